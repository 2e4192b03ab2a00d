#!/usr/bin/env bash
# Runs one real test file (optionally narrowed with jest's -t) N times in a row and prints the pass
# count, so a real test is trusted only when it holds every time (each run starts its own code-server
# and claude, so no run warms the next):
#   bash test/setup/repeat-real-test.sh 20 test/real/vscode-diagnostics-cold.test.ts -t json-review
# Each run's jest output goes to .test-runs/repeat/<n>.log; a failing run's name is printed.
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/setup/clean-npm-env.sh
runs="${1:?usage: repeat-real-test.sh N TEST_FILE [jest args…]}"; shift
file="${1:?usage: repeat-real-test.sh N TEST_FILE [jest args…]}"; shift
out=.test-runs/repeat; mkdir -p "$out"
# Package once; every run installs the same .vsix (a copy: packaging again meanwhile must not change
# what the runs test). NATIVE_CLAUDE_VSIX=<file> uses that one.
if [ -z "${NATIVE_CLAUDE_VSIX:-}" ]; then
  npm run package >"$out/package.log" 2>&1 || { echo "npm run package failed: $out/package.log"; exit 1; }
  export NATIVE_CLAUDE_VSIX="$PWD/$out/native-claude.vsix"
  cp dist/native-claude.vsix "$NATIVE_CLAUDE_VSIX"
fi
lock=(); command -v flock >/dev/null && lock=(flock /tmp/native-claude-real.lock)
passed=0
: >"$out/tests.txt"
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  if "${lock[@]}" npx jest --selectProjects real --runInBand "$@" -- "$file" >"$out/$i.log" 2>&1; then
    passed=$((passed + 1)); echo "run $i: passed ($(( $(date +%s) - start )) s)"
  else
    echo "run $i: FAILED ($(( $(date +%s) - start )) s), see $out/$i.log"
  fi
  # Each test's outcome in this run (jest's ✓/✕ lines, durations dropped).
  grep -E '^\s+(✓|✕) ' "$out/$i.log" | sed -E 's/^\s+//; s/ \([0-9]+ ms\)$//' >>"$out/tests.txt"
done
echo "per test (passed of $runs):"
sort "$out/tests.txt" | uniq -c | sed -E 's/^ *//'
echo "$passed of $runs passed"
[ "$passed" -eq "$runs" ]
