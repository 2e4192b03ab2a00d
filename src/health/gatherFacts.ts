import * as net from 'node:net';
import WebSocket from 'ws';
import { readJsonFile, settingsFiles } from './cliSettings';
import type { SetupFacts, TerminalFacts, IdeExtensionChoice } from './checkSetup';
import { probeCli } from './cliProbe';
import { parseClaudeCommand } from '../cliSetup/claudeCommand';
import { readLockFiles } from './lockFiles';
import type { ApprovalMode } from '../host/approvalMode';
import { rulesToAdd } from '../cliSetup/permissionRules';
import { claudeUserConfigPath, lockFileDirectories, userSettingsPath } from '../otherPrograms/claudeConfigDir';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../cliSetup/toolsRouteEntry';
import { matchesToolLevelRules } from '../util/cliVersion';
import * as path from 'node:path';

/** What only the editor knows; everything else is read from disk, the PATH and the sockets. */
export interface EditorFacts {
  workspaceFolders: string[];
  server: { running: boolean; port?: number; lockFilePath?: string; token?: string; startError?: string };
  lockPid: number;
  terminals: TerminalFacts[];
  providesTerminalPort: boolean;
  /** The `nativeClaude.claudeCommand` setting as written (parsed here with this env and home). */
  claudeCommand: string;
  /** What this window does, and the user's own setting (the rules written to the CLI's user settings follow it). */
  approvalMode: { effective: ApprovalMode; user: ApprovalMode };
  anthropicExtension?: { version: string; active: boolean; choice?: IdeExtensionChoice };
  /** The MCP server name the tools are under; default TOOLS_SERVER_NAME. */
  toolsServerName?: string;
}

export interface GatherOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** `claude --version` may take a while on a cold disk. */
  versionTimeoutMs?: number;
}

export async function gatherSetupFacts(editor: EditorFacts, options: GatherOptions = {}): Promise<SetupFacts> {
  const env = options.env ?? process.env;
  const home = options.home;
  const configFile = claudeUserConfigPath(env, home);
  const settingsFile = userSettingsPath(env, home);
  const [lockFiles, cli, userConfig, settings, listening, reach] = await Promise.all([
    readLockFiles(lockFileDirectories(env, home)),
    probeCli(parseClaudeCommand(editor.claudeCommand, { env, home }), env, options.versionTimeoutMs),
    readJsonFile(configFile),
    Promise.all(settingsFiles(path.dirname(settingsFile), editor.workspaceFolders).map(async ({ scope, file }) => ({ scope, ...(await readJsonFile(file)) }))),
    editor.server.running && editor.server.port ? tcpListening(editor.server.port) : Promise.resolve(undefined),
    editor.server.running && editor.server.port && editor.server.token
      ? toolsRouteAccepts(editor.server.port, editor.server.token)
      : Promise.resolve(undefined),
  ]);
  const mcpServers = userConfig.content?.mcpServers as Record<string, unknown> | undefined;
  const serverName = editor.toolsServerName ?? TOOLS_SERVER_NAME;
  return {
    workspaceFolders: editor.workspaceFolders,
    server: {
      running: editor.server.running,
      port: editor.server.port,
      lockFilePath: editor.server.lockFilePath,
      startError: editor.server.startError,
      listening,
    },
    lockFiles,
    lockPid: editor.lockPid,
    terminals: editor.terminals,
    providesTerminalPort: editor.providesTerminalPort,
    cli,
    userConfig,
    settings,
    toolsRoute: {
      serverName,
      expectedEntry: toolsRouteEntry(),
      entry: mcpServers && typeof mcpServers === 'object' ? mcpServers[serverName] : undefined,
      reachable: reach?.ok,
      reachError: reach?.error,
    },
    suggestedRules: rulesToAdd(editor.approvalMode.user, matchesToolLevelRules(cli.version ?? ''), serverName),
    approvalMode: editor.approvalMode,
    anthropicExtension: editor.anthropicExtension,
  };
}

function tcpListening(port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Opens the tools route the way claude does (token header, `mcp` subprotocol) and closes it at once. */
function toolsRouteAccepts(port: number, token: string, timeoutMs = 3000): Promise<{ ok: boolean; error?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/tools`, 'mcp', { headers: { 'X-Claude-Code-Ide-Authorization': token }, handshakeTimeout: timeoutMs });
    ws.once('open', () => {
      ws.close(1000);
      resolve({ ok: true });
    });
    ws.once('unexpected-response', (_req, res) => {
      ws.terminate();
      resolve({ ok: false, error: `HTTP ${res.statusCode}` });
    });
    ws.once('error', (error) => resolve({ ok: false, error: error.message }));
  });
}
