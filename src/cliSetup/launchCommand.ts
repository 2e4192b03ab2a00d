import { TOOLS_SERVER_NAME, toolsRouteEntry } from './toolsRouteEntry';

/**
 * The command line **Launch claude in Terminal** types. When the user enabled VS Code's tools, the
 * entry also goes on the command line (`--mcp-config`), so this claude gets the tools even when the
 * entry was written to ~/.claude.json after something read it: the CLI merges it with the user-scope
 * entry of the same name instead of listing the tools twice (test/real/cli-mcp-config.test.ts).
 * The JSON is single-quoted for POSIX shells (bash, zsh, fish keep `${…}` literal there, and the CLI
 * expands it from the terminal's environment); on Windows shells quote differently, so it is left out.
 */
export function claudeLaunchCommand(command: string, options: { toolsEnabled: boolean; platform?: NodeJS.Platform; serverName?: string }): string {
  if (!options.toolsEnabled || (options.platform ?? process.platform) === 'win32') return command;
  return `${command} --mcp-config ${singleQuoted(JSON.stringify({ mcpServers: { [options.serverName ?? TOOLS_SERVER_NAME]: toolsRouteEntry() } }))}`;
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
