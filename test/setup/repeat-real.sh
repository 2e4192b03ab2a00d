#!/usr/bin/env bash
# Runs real test files N times in a row and prints how many runs passed, e.g.
#   test/setup/repeat-real.sh 10 test/real/vscode-review-window-life.test.ts
# Each run takes the machine's real-test lock on its own, so other runs can interleave. The extension is
# packaged once, up front (NATIVE_CLAUDE_VSIX=<file> uses that one). Logs: .test-runs/repeat-<i>.log.
set -u
if [ "$#" -lt 2 ]; then echo "usage: $0 <runs> <test file>..." >&2; exit 2; fi
runs=$1
shift
cd "$(dirname "$0")/../.."
mkdir -p .test-runs
if [ -z "${NATIVE_CLAUDE_VSIX:-}" ]; then
  npm run package > .test-runs/repeat-package.log 2>&1 || { echo "packaging failed: .test-runs/repeat-package.log" >&2; exit 1; }
  # A copy: packaging again meanwhile must not change what the runs test.
  export NATIVE_CLAUDE_VSIX="$PWD/.test-runs/repeat-native-claude.vsix"
  cp dist/native-claude.vsix "$NATIVE_CLAUDE_VSIX"
fi
passed=0
for i in $(seq 1 "$runs"); do
  if flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- "$@" > ".test-runs/repeat-$i.log" 2>&1; then
    passed=$((passed + 1))
    echo "run $i: passed"
  else
    echo "run $i: FAILED (.test-runs/repeat-$i.log)"
  fi
done
echo "$passed/$runs runs passed"
[ "$passed" = "$runs" ]
