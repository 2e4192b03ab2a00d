import * as vscode from 'vscode';
import type { IdeBridge } from '../../server/ideBridge';
import { describeStatus } from '../../server/statusText';
import { claudeLaunchCommand } from '../../cliSetup/launchCommand';
import { claudeCommand, setting } from '../settings';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

export interface ServerControls {
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

export interface LaunchOptions {
  /** The terminal of a connected claude, if one runs in this window (the one in front preferred). */
  connectedTerminal(): Promise<vscode.Terminal | undefined>;
  /** Whether the user enabled VS Code's tools (the entry is in the CLI's user config). */
  toolsEnabled(): Promise<boolean>;
  /** The MCP server name the tools are under. */
  toolsServerName(): string;
}

/**
 * Brings forward the terminal already running a connected claude; else opens a terminal at the
 * workspace root running `claude` (its env points it at this window; with the tools enabled, the
 * tools entry goes on its command line so they are there at once).
 */
async function launchClaudeInTerminal(options: LaunchOptions, log: vscode.LogOutputChannel): Promise<vscode.Terminal> {
  const running = await options.connectedTerminal().catch(() => undefined);
  if (running) {
    log.info(`Launch: claude already runs in terminal "${running.name}"; bringing it forward`);
    running.show(false);
    return running;
  }
  const base = claudeCommand().line;
  const command = claudeLaunchCommand(base, { toolsEnabled: await options.toolsEnabled().catch(() => false), serverName: options.toolsServerName() });
  const cwd = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri;
  const terminal = vscode.window.createTerminal({ name: 'Claude', cwd, iconPath: new vscode.ThemeIcon('sparkle') });
  terminal.show();
  terminal.sendText(command, true);
  log.info(`Launch: ${command === base ? base : `${base} --mcp-config <the VS Code tools entry>`} in a new terminal`);
  return terminal;
}

export function registerServerCommands(
  bridge: IdeBridge,
  controls: ServerControls,
  log: vscode.LogOutputChannel,
  launch: LaunchOptions,
  sessionPlaces: () => string[] = () => [],
): vscode.Disposable[] {
  return [
    registerCommand(COMMANDS.startServer, () => controls.start(), 'Claude Code IDE server: could not start'),
    registerCommand(COMMANDS.stopServer, () => controls.stop(), 'Claude Code IDE server: could not stop'),
    registerCommand(COMMANDS.restartServer, () => controls.restart(), 'Claude Code IDE server: could not restart'),
    registerCommand(COMMANDS.launchClaude, () => launchClaudeInTerminal(launch, log), 'Could not launch claude'),
    registerCommand(COMMANDS.showLog, () => log.show(), 'Could not show the log'),
    registerCommand(
      COMMANDS.showStatus,
      async () => {
        const status = bridge.status();
        const { long } = describeStatus(status, sessionPlaces());
        const actions: Array<vscode.QuickPickItem & { command?: string }> = [
          ...long.split('\n').map((line) => ({ label: line, kind: vscode.QuickPickItemKind.Separator })),
          status.running
            ? { label: '$(debug-restart) Restart server', command: COMMANDS.restartServer }
            : { label: '$(play) Start server', command: COMMANDS.startServer },
          ...(status.running ? [{ label: '$(debug-stop) Stop server', command: COMMANDS.stopServer }] : []),
          { label: '$(terminal) Launch claude in a terminal', command: COMMANDS.launchClaude },
          { label: '$(checklist) Check setup', command: COMMANDS.checkSetup },
          setting('shareSelection')
            ? { label: '$(eye-closed) Stop sharing the selection', command: COMMANDS.toggleSelectionSharing }
            : { label: '$(eye) Share the selection again', command: COMMANDS.toggleSelectionSharing },
          { label: '$(output) Show log', command: COMMANDS.showLog },
        ];
        const picked = await vscode.window.showQuickPick(actions, { title: 'Claude Code IDE', placeHolder: long.split('\n')[0] });
        if (picked?.command) await vscode.commands.executeCommand(picked.command);
        return status;
      },
      'Could not show the status',
    ),
  ];
}
