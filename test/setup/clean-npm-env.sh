# shellcheck shell=bash
# Sourced by every script that starts a nested npm. `npm test` / `npm run …` export their own config
# (npm_config_user_agent "… node/v20 …", npm_config_nodedir, npm_config_allow_scripts, …), NODE and
# INIT_CWD to every child; a nested `npm install` would inherit them — code-server's postinstall reads
# the Node version from npm_config_user_agent and refuses to build (issue 8). Unset them all, so a
# script behaves the same whether started by npm, by bash or by .ci/run. What a nested npm needs it
# reads again from the user's .npmrc; uppercase NPM_CONFIG_* set by the user on purpose are kept.
while IFS= read -r _nc_var; do
  case "$_nc_var" in
    npm_*|INIT_CWD|NODE) unset "$_nc_var" ;;
  esac
done < <(compgen -e)
unset _nc_var
# Set on purpose: no update/funding/audit notices in a first run's output.
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
