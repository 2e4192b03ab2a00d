/** The name the model sees the tools under: `mcp__vscode__read_file`, … (not `ide`: that name is special, docs/protocol.md#what-the-model-sees). */
export const TOOLS_SERVER_NAME = 'vscode';

/** Set in every integrated terminal of a window; the user-scope entry reads them (route-discovery.md a). */
export const PORT_VARIABLE = 'NATIVE_CLAUDE_PORT';
export const TOKEN_VARIABLE = 'NATIVE_CLAUDE_TOKEN';

/**
 * One static entry for all windows: the CLI expands `${VAR}` in a user-scope `ws` server's url and
 * headers, so each terminal's `claude` reaches its own window. Outside VS Code the variables are
 * unset and the CLI makes no connection attempt; `/mcp` names the missing variables.
 */
export function toolsRouteEntry(): Record<string, unknown> {
  return {
    type: 'ws',
    url: `ws://127.0.0.1:\${${PORT_VARIABLE}}/tools`,
    headers: { 'X-Claude-Code-Ide-Authorization': `\${${TOKEN_VARIABLE}}` },
  };
}
