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

/** The name offered instead when the user's own MCP server is already called {@link TOOLS_SERVER_NAME}. */
export const ALTERNATE_TOOLS_SERVER_NAME = 'vscode-native';

/**
 * Whether an entry in the CLI's config is VS Code's tools route (this or an earlier version of it),
 * told by its shape: a `ws` server on 127.0.0.1 at `/tools` that sends the token variable in the IDE
 * header. Anything else under that name is the user's own server, which is never replaced or removed
 * without their explicit choice.
 */
export function isToolsRouteEntry(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  const { type, url, headers } = entry as Record<string, unknown>;
  if (type !== 'ws' || typeof url !== 'string' || !/^ws:\/\/127\.0\.0\.1:[^/]+\/tools\/?$/.test(url)) return false;
  if (typeof headers !== 'object' || headers === null) return false;
  return Object.entries(headers).some(
    ([name, value]) => name.toLowerCase() === 'x-claude-code-ide-authorization' && typeof value === 'string' && value.includes(`\${${TOKEN_VARIABLE}}`),
  );
}

/**
 * A short description of someone's MCP entry for a question: its type and command, or its URL without
 * credentials or query; never its args, env or headers (they may hold secrets).
 */
export function describeEntry(entry: unknown): string {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return 'not an object';
  const { type, command, url } = entry as Record<string, unknown>;
  const kind = typeof type === 'string' ? type : 'stdio';
  const target = typeof command === 'string' ? command : typeof url === 'string' ? withoutSecrets(url) : undefined;
  return target ? `${kind}: ${target}` : kind;
}

function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'a URL';
  }
}
