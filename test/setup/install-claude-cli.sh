#!/usr/bin/env bash
# Installs one `claude` CLI version into the real-client cache, the way install-real-clients.sh
# installs the pinned one:  ${NATIVE_CLAUDE_CACHE:-$HOME/.cache/native-claude}/claude-<version>.
# Usage: install-claude-cli.sh VERSION   (idempotent: skipped when <dir>/.complete exists)
#
# The install runs in a clean npm environment: `npm run` exports npm_* / npm_config_* variables
# (prefix, global, the caller's package.json, …) and a nested `npm install` would obey them.
set -euo pipefail

VERSION="${1:?usage: install-claude-cli.sh VERSION}"
if ! [[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "install-claude-cli: '$VERSION' is not a version like 2.1.328" >&2; exit 2
fi
CACHE="${NATIVE_CLAUDE_CACHE:-$HOME/.cache/native-claude}"
CLI_DIR="$CACHE/claude-$VERSION"
log() { printf '[install-claude-cli] %s\n' "$*" >&2; }

if [ -f "$CLI_DIR/.complete" ]; then exit 0; fi

unset_args=()
while IFS='=' read -r name _; do
  case "$name" in npm_*|NPM_CONFIG_*) unset_args+=(-u "$name") ;; esac
done < <(env)

log "installing @anthropic-ai/claude-code@$VERSION in $CLI_DIR"
rm -rf "$CLI_DIR"; mkdir -p "$CLI_DIR"
printf '{"name":"claude-host","private":true,"allowScripts":{"*":true}}\n' > "$CLI_DIR/package.json"
( cd "$CLI_DIR" && env "${unset_args[@]}" npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$VERSION" >/dev/null )

# 2.1.x ships a native binary at bin/claude.exe; older lines ship cli.js (run by node).
PKG="$CLI_DIR/node_modules/@anthropic-ai/claude-code"
if [ -x "$PKG/bin/claude.exe" ]; then RUN=("$PKG/bin/claude.exe"); else RUN=(node "$PKG/cli.js"); fi
got="$("${RUN[@]}" --version 2>/dev/null || true)"
case "$got" in
  "$VERSION"*) ;;
  *) log "the claude CLI $VERSION does not run after install (--version printed: '$got')"; exit 1 ;;
esac
touch "$CLI_DIR/.complete"
log "ready: $CLI_DIR"
