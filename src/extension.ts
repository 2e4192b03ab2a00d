import * as vscode from 'vscode';
import type { ApprovalMode } from './host/documents';
import { IdeBridge } from './server/ideBridge';
import { createSessionFactory } from './server/mcpSession';
import { ideTools, workspaceTools, type ToolHosts } from './tools/registry';
import { RecentEdits } from './review/recentEdits';
import { bridgeSessionSource } from './selection/ideSessions';
import { KeyedLock } from './util/keyedLock';
import { safeLogger } from './util/safeLogger';
import { registerMentionCommand } from './vscode/atMention';
import { registerServerCommands } from './vscode/commands';
import { VsCodeDiagnosticsSource } from './vscode/diagnosticsSource';
import { DiffReviewHost } from './vscode/diffReviewHost';
import { VsCodeDocumentWriter } from './vscode/documentWriter';
import { workspaceIdentityStore } from './vscode/identityStore';
import { SelectionTracker } from './vscode/selectionTracker';
import { StatusBar } from './vscode/statusBar';
import { TerminalEnvironment } from './vscode/terminalEnvironment';
import { lockFilePid, workspaceFolderPaths } from './vscode/workspace';
import { createWorkspaceHost } from './vscode/workspaceHost';
import { VsCodeTerminalRunner } from './vscode/terminalRunner';
import { createToolsConsent } from './vscode/toolsRoute';
import { WalkthroughContext } from './vscode/walkthroughContext';
import { PORT_VARIABLE, TOKEN_VARIABLE, TOOLS_SERVER_NAME } from './route/toolsRouteEntry';
import { executeCommandTool } from './tools/executeCommand';
import { modalCommandApprover } from './vscode/commandApprover';

let bridge: IdeBridge | undefined;

/** What the extension exports, for the end-to-end tests and for other extensions. */
export interface NativeClaudeApi {
  status(): ReturnType<IdeBridge['status']>;
  pendingReviews(): number;
}

export async function activate(context: vscode.ExtensionContext): Promise<NativeClaudeApi> {
  const log = vscode.window.createOutputChannel('Native Claude', { log: true });
  const serverLog = safeLogger(log); // used during shutdown, when the channel may be gone
  const config = () => vscode.workspace.getConfiguration('nativeClaude');
  const terminalEnv = new TerminalEnvironment(context.environmentVariableCollection);
  const statusBar = new StatusBar();
  const review = new DiffReviewHost(log);
  const approvalMode = () => config().get<ApprovalMode>('approvalMode', 'write-only');
  const terminalRunner = new VsCodeTerminalRunner(vscode.window);
  const workspace = createWorkspaceHost({ folders: workspaceFolderPaths, appRoot: vscode.env.appRoot });
  const hosts: ToolHosts = {
    review,
    diagnostics: new VsCodeDiagnosticsSource(vscode.languages, (p) => vscode.Uri.file(p)),
    workspace,
    documents: new VsCodeDocumentWriter(),
    approvalMode,
    lock: new KeyedLock(),
    recentEdits: new RecentEdits(),
    extraWorkspaceTools: [executeCommandTool(terminalRunner, workspace, { mode: approvalMode, approver: modalCommandApprover })],
  };
  const toolsByRoute = { ide: ideTools(hosts), tools: workspaceTools(hosts) };

  const ideBridge = new IdeBridge({
    ideName: vscode.env.appName,
    lockPid: lockFilePid(),
    runningInWindows: process.platform === 'win32',
    identity: workspaceIdentityStore(context.workspaceState),
    maxMessageBytes: config().get<number>('maxMessageBytes'),
    log: serverLog,
    createSession: createSessionFactory({
      toolsFor: (route) => toolsByRoute[route],
      serverInfo: { name: 'native-claude', version: String(context.extension.packageJSON.version) },
      log: serverLog,
      onSessionClosed: (connectionId) => review.withdrawForConnection(connectionId),
    }),
  });
  bridge = ideBridge;
  const toolsRoute = createToolsConsent(context.globalState, log);
  const ideSessions = bridgeSessionSource(ideBridge);
  const selection = new SelectionTracker(ideSessions, log);
  // The first-run walkthrough's steps complete on these context keys.
  const walkthrough = new WalkthroughContext(async () => (await toolsRoute.config.getServer(TOOLS_SERVER_NAME)) !== undefined);
  ideBridge.on('change', () => {
    const status = ideBridge.status();
    statusBar.update(status);
    walkthrough.bridgeChanged(status);
    // The tools route is offered once, when the user first actually uses claude with this window.
    if (status.ideSessions > 0) void toolsRoute.offerOnce().then(walkthrough.refreshTools);
  });
  statusBar.update(ideBridge.status());

  const controls = {
    start: async () => {
      const { port, token } = await ideBridge.start(workspaceFolderPaths());
      // The tools route's user-scope entry reads these two (src/route/toolsRouteEntry.ts).
      terminalEnv.apply(port, { [PORT_VARIABLE]: String(port), [TOKEN_VARIABLE]: token });
    },
    stop: async () => {
      await ideBridge.stop();
      terminalEnv.clear();
    },
    restart: async () => {
      await ideBridge.stop();
      await controls.start();
    },
  };

  context.subscriptions.push(
    log,
    statusBar,
    review,
    terminalRunner,
    ideSessions,
    selection,
    walkthrough,
    registerMentionCommand(ideSessions, log),
    ...registerServerCommands(ideBridge, controls, log),
    vscode.commands.registerCommand('nativeClaude.enableTools', () => toolsRoute.enable().then(walkthrough.refreshTools)),
    vscode.commands.registerCommand('nativeClaude.removeTools', () => toolsRoute.remove().then(walkthrough.refreshTools)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void ideBridge.updateWorkspaceFolders(workspaceFolderPaths()).catch((e: Error) => log.error(e.message))),
    { dispose: () => ideBridge.stopSync() },
  );

  if (config().get<boolean>('autoStart', true)) {
    await controls.start().catch((error: Error) => {
      log.error(`Could not start the Claude Code IDE server: ${error.message}`);
      void vscode.window.showErrorMessage(`Claude Code IDE server did not start: ${error.message}`, 'Show Log').then((c) => c && log.show());
    });
  }
  return { status: () => ideBridge.status(), pendingReviews: () => review.pendingCount };
}

export async function deactivate(): Promise<void> {
  await bridge?.stop();
  bridge = undefined;
}
