import * as vscode from 'vscode';
import { checkSetup, HEALTH_COMMANDS, type IdeExtensionChoice, type TerminalFacts } from '../../health/checkSetup';
import { problems, type HealthReport } from '../../health/findings';
import { gatherSetupFacts } from '../../health/gatherFacts';
import { deleteStaleLockFile } from '../../health/lockFiles';
import { renderHealthHtml } from '../../health/renderHealth';
import type { BridgeStatus, ServerIdentity } from '../../server/ideBridge';
import { approvalModes, setting } from '../settings';
import { notify } from '../notify';
import { terminalSsePort } from '../terminals/terminalEnvironment';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

export interface HealthViewDeps {
  status(): BridgeStatus;
  identity(): ServerIdentity | undefined;
  lockPid: number;
  workspaceFolders(): string[];
  /** Whether this window gives terminals CLAUDE_CODE_SSE_PORT now (see coexistence). */
  providesTerminalPort(): boolean;
  startError(): string | undefined;
  anthropicExtension(): { version: string; active: boolean; choice?: IdeExtensionChoice } | undefined;
  /** The MCP server name the tools are under (src/cliSetup/toolsConsent.ts). */
  toolsServerName(): string;
  log: vscode.LogOutputChannel;
}

async function terminalFacts(): Promise<TerminalFacts[]> {
  return Promise.all(vscode.window.terminals.map(async (t) => ({ name: t.name, ssePort: await terminalSsePort(t) })));
}

/** Gathers everything and evaluates it (also used for the start-up notification). */
async function runHealthCheck(deps: HealthViewDeps): Promise<HealthReport> {
  const status = deps.status();
  const facts = await gatherSetupFacts({
    workspaceFolders: deps.workspaceFolders(),
    server: { running: status.running, port: status.port, lockFilePath: status.lockFilePath, token: deps.identity()?.token, startError: deps.startError() },
    lockPid: deps.lockPid,
    terminals: await terminalFacts(),
    providesTerminalPort: deps.providesTerminalPort(),
    claudeCommand: setting('claudeCommand'),
    approvalMode: approvalModes(),
    anthropicExtension: deps.anthropicExtension(),
    toolsServerName: deps.toolsServerName(),
  });
  return checkSetup(facts);
}

/**
 * `Claude: Check Setup`: one webview page (re-used while open) listing every finding with its fix buttons
 * (command links). The command returns the report, so tests and other extensions can read it.
 */
// Long (~90 lines) on purpose: the page and its commands are closures over the one panel.
export function registerHealthView(deps: HealthViewDeps): vscode.Disposable {
  let panel: vscode.WebviewPanel | undefined;
  const show = async (): Promise<HealthReport> => {
    const report = await runHealthCheck(deps);
    if (!panel) {
      panel = vscode.window.createWebviewPanel(
        'nativeClaude.health',
        'Claude: Check Setup',
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        {
          enableScripts: false,
          // Only the buttons' own commands may run from the page.
          enableCommandUris: Object.values(HEALTH_COMMANDS),
        },
      );
      panel.onDidDispose(() => (panel = undefined));
    } else {
      panel.reveal(undefined, false);
    }
    panel.webview.html = renderHealthHtml(report, { refreshCommand: COMMANDS.checkSetup, generatedAt: new Date() });
    deps.log.info(
      `Check Setup: ${problems(report).length} problem(s): ${
        problems(report)
          .map((p) => p.id)
          .join(', ') || 'none'
      }`,
    );
    return report;
  };
  const refreshIfOpen = () => void (panel ? show().catch((e: Error) => deps.log.error(e.message)) : undefined);

  return vscode.Disposable.from(
    { dispose: () => panel?.dispose() },
    registerCommand(COMMANDS.checkSetup, show, 'Could not check the setup'),
    registerCommand(
      COMMANDS.relaunchTerminals,
      async (names?: string[]) => {
        const wanted = new Set(names ?? []);
        const stale = vscode.window.terminals.filter((t) => wanted.size === 0 || wanted.has(t.name));
        const port = deps.status().port;
        const targets: vscode.Terminal[] = [];
        for (const t of stale) {
          const value = await terminalSsePort(t);
          if (value !== undefined && value !== String(port)) targets.push(t);
        }
        if (targets.length === 0) return 0;
        const go = await notify.warn(
          `Relaunch ${targets.length} terminal${targets.length > 1 ? 's' : ''} (${targets.map((t) => t.name).join(', ')})? Whatever runs in them now is stopped; the new ones get CLAUDE_CODE_SSE_PORT=${port}.`,
          'Relaunch',
        );
        if (go !== 'Relaunch') return 0;
        for (const old of targets) {
          const options = old.creationOptions as vscode.TerminalOptions;
          const cwd = old.shellIntegration?.cwd ?? options.cwd;
          vscode.window
            .createTerminal({
              name: old.name,
              cwd,
              shellPath: options.shellPath,
              shellArgs: options.shellArgs,
              iconPath: options.iconPath,
              color: options.color,
            })
            .show(true);
          old.dispose();
        }
        refreshIfOpen();
        return targets.length;
      },
      'Could not relaunch the terminals',
    ),
    registerCommand(
      COMMANDS.deleteStaleLockFile,
      async (file: unknown) => {
        // Any extension can run this command with any argument: only a stale <port>.lock in claude's lock folders goes.
        try {
          await deleteStaleLockFile(file);
        } catch (error) {
          deps.log.warn((error as Error).message);
          void notify.warn((error as Error).message);
          return false;
        }
        deps.log.info(`Deleted stale lock file ${String(file)}`);
        refreshIfOpen();
        return true;
      },
      'Could not delete the lock file',
    ),
    registerCommand(COMMANDS.openPath, (file: string) => vscode.window.showTextDocument(vscode.Uri.file(file)), 'Could not open the file'),
  );
}

/**
 * Once per window, shortly after start-up: if something is wrong that the user would otherwise only
 * notice as "claude does not connect", say the worst one and offer the page.
 */
export async function offerHealthCheckIfNeeded(deps: HealthViewDeps): Promise<void> {
  const report = await runHealthCheck(deps);
  const urgent = problems(report).filter((p) =>
    ['terminals.missingPort', 'terminals.otherPort', 'lockFiles.competing', 'server.stopped', 'lockFile.bad', 'lockFile.missing'].includes(p.id),
  );
  if (urgent.length === 0) return;
  const first = urgent[0];
  const fixes = first.fixes ?? [];
  const choice = await notify.warn(
    `Claude: ${first.title}${urgent.length > 1 ? ` (and ${urgent.length - 1} more)` : ''}`,
    ...fixes.map((f) => f.label),
    'Check Setup',
  );
  if (choice === 'Check Setup') await vscode.commands.executeCommand(COMMANDS.checkSetup);
  const picked = fixes.find((f) => f.label === choice);
  if (picked) await vscode.commands.executeCommand(picked.command, ...(picked.args ?? []));
}
