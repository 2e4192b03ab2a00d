#!/usr/bin/env bash
# The whole test suite, installing what it needs: `npm test` runs this (README, .ci/run).
#   1. npm dependencies (`npm ci`) when missing or older than package.json or package-lock.json
#   2. the real peers: Debian chromium/tmux, code-server (built with Node 24), the pinned claude CLI
#   3. type check, lint, format check, then unit + integration tests (parallel), the fast hardening subset, then the
#      real-client tests (serial)
# Ends with one line "N passed, N failed" summed over every jest run.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=setup/clean-npm-env.sh
source test/setup/clean-npm-env.sh
mkdir -p .test-runs
say() { printf '\n=== %s\n' "$*"; }

# `npm ci`: exactly the lock, or a clear error when package.json and the lock disagree (never a silent
# re-resolve). test/unit/package-lock.test.ts keeps the lock complete enough for it.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund || exit 1
fi

say "real clients (code-server, claude CLI, chromium, tmux)"
bash test/setup/install-real-clients.sh || exit 1

say "type check"
npx tsc --noEmit -p . || exit 1
npx tsc --noEmit -p test/vscode/tsconfig.json || exit 1

status=0
say "lint (typescript-eslint, type-aware: eslint.config.mjs)"
npx eslint . || { echo "lint: the tree is not clean (npx eslint . --fix fixes some)"; status=1; }
say "format (prettier: .prettierrc.json)"
npx prettier --check . || { echo "format: files not formatted (npm run format formats them)"; status=1; }
say "unit + integration"
npx jest --selectProjects unit integration --json --outputFile=.test-runs/jest-fast.json || status=1
say "hardening (fast subset: npm run harden runs it all)"
HARDEN_FAST=1 npx jest --selectProjects harden --runInBand --json --outputFile=.test-runs/jest-harden.json || status=1
say "real claude CLI and real VS Code (code-server)"
# One real-client run at a time on a machine (code-server + Chromium + claude need the cores to themselves).
real_lock=(); command -v flock >/dev/null && real_lock=(flock /tmp/native-claude-real.lock)
"${real_lock[@]}" npx jest --selectProjects real --runInBand --json --outputFile=.test-runs/jest-real.json || status=1

node -e '
  let passed = 0, failed = 0, skipped = 0;
  for (const f of [".test-runs/jest-fast.json", ".test-runs/jest-harden.json", ".test-runs/jest-real.json"]) {
    try {
      const r = require(require("path").resolve(f));
      passed += r.numPassedTests; failed += r.numFailedTests + r.numRuntimeErrorTestSuites; skipped += r.numPendingTests + r.numTodoTests;
    } catch { failed += 1; console.error("missing result file " + f); }
  }
  console.log(`\n${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
  if (passed === 0) process.exitCode = 1;
' || status=1
exit $status
