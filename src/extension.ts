import * as vscode from 'vscode';
import type { ApprovalMode } from './host/approvalMode';
import { IdeBridge } from './server/ideBridge';
import { RecentEdits } from './review/recentEdits';
import { registerPendingReviews } from './vscode/review/pendingReviews';
import { describeSession, type SessionLabel } from './vscode/statusBar';
import type { PendingReviewInfo } from './vscode/review/diffReviewHost';
import { WindowSessions } from './vscode/lifecycle/windowSessions';
import { COMMANDS } from './host/commandIds';
import { reportCommandFailuresTo } from './vscode/commandTable';
import { approvalModes, reportInvalidSettingsTo, setting } from './vscode/settings';
import { KeyedLock } from './util/keyedLock';
import { safeLogger } from './util/safeLogger';
import { registerMentionCommand } from './vscode/selection/mentionCommand';
import { registerHandoffCommands } from './vscode/selection/handoffCommands';
import { registerServerCommands } from './vscode/lifecycle/serverCommands';
import { VsCodeDiagnosticsSource } from './vscode/diagnostics/diagnosticsSource';
import { askLanguageServers, typeScriptWarmUp } from './vscode/diagnostics/languageServers';
import { dependentsOf } from './vscode/diagnostics/fileReferences';
import { startsClaude } from './terminal/claudeCommandLine';
import { DiffReviewHost } from './vscode/review/diffReviewHost';
import { VsCodeDocumentWriter } from './vscode/review/documentWriter';
import { VsCodeTextCodec } from './vscode/workspace/vsCodeTextCodec';
import { SelectionTracker } from './vscode/selection/selectionTracker';
import { currentSharingPolicy, registerSelectionSharing } from './vscode/selection/selectionSharing';
import { StatusBar } from './vscode/statusBar';
import { TerminalEnvironment } from './vscode/terminals/terminalEnvironment';
import { workspaceFolderPaths } from './vscode/workspace/workspaceFolders';
import { createIdeBridge, lockFilePid, ServerLifecycle } from './vscode/lifecycle/serverLifecycle';
import { createWorkspaceHost } from './vscode/workspace/workspaceHost';
import { VsCodeLanguageFeatures } from './vscode/language/vsCodeLanguageFeatures';
import { VsCodeTerminalRunner } from './vscode/terminals/terminalRunner';
import { createToolsConsent, registerToolsCommands } from './vscode/setup/toolsRoute';
import { WalkthroughContext } from './vscode/setup/walkthroughContext';
import { modalCommandApprover, notebookCodeApprover } from './vscode/terminals/commandApprover';
import { VsCodeNotebookKernelHost } from './vscode/notebooks/vsCodeNotebookKernel';
import { Coexistence, registerChooseIdeExtension } from './vscode/lifecycle/coexistenceChoice';
import { offerHealthCheckIfNeeded, registerHealthView, type HealthViewDeps } from './vscode/setup/healthView';
import { registerPermissionRulesCommand } from './vscode/setup/permissionRulesCommand';
import { showCompatibilityNotice } from './vscode/lifecycle/compatibilityNotice';
import { ClaudeChanges } from './vscode/changes/claudeChanges';
import { scriptedAnswersAllowed } from './vscode/changes/changesCommands';
import type { ChangeCapture } from './host/changeCapture';
import type { SessionChanges } from './changes/changeLedger';

let bridge: IdeBridge | undefined;
let reviewHost: DiffReviewHost | undefined;

/** What the extension exports, for the end-to-end tests and for other extensions. */
export interface NativeClaudeApi {
  status(): ReturnType<IdeBridge['status']>;
  pendingReviews(): number;
  /** The connected claude sessions and the terminal each runs in. */
  sessions(): SessionLabel[];
  /** The reviews waiting for a decision. */
  reviews(): PendingReviewInfo[];
  /** Claude's changes: per session, the files it changed (once every change seen so far was handled). */
  changes(): Promise<readonly SessionChanges[]>;
}

// Long (~120 lines) but wiring only: each statement builds or connects one piece; the logic lives in src/vscode.
export async function activate(context: vscode.ExtensionContext): Promise<NativeClaudeApi> {
  const activated = performance.now();
  const log = vscode.window.createOutputChannel('Native Claude', { log: true });
  const serverLog = safeLogger(log); // used during shutdown, when the channel may be gone
  reportInvalidSettingsTo(log);
  reportCommandFailuresTo(log);
  const terminalEnv = new TerminalEnvironment(context.environmentVariableCollection, () => vscode.workspace.workspaceFolders ?? []);
  const statusBar = new StatusBar();
  const review = new DiffReviewHost(log, {
    placement: () => setting('reviewPlacement'),
    keepAcceptedFileOpen: () => setting('keepAcceptedFileOpen'),
    // The accepted file, shown on purpose, stays even if a diagnostics check had opened its tab first.
    onRevealed: (filePath) => diagnostics.documents?.keepTab?.(filePath),
    describePath: (filePath) => vscode.workspace.asRelativePath(filePath, false),
  });
  reviewHost = review;
  const approvalMode = (): ApprovalMode => approvalModes().effective;
  const terminalRunner = new VsCodeTerminalRunner(vscode.window);
  const codec = new VsCodeTextCodec();
  const workspace = createWorkspaceHost({ folders: workspaceFolderPaths, appRoot: vscode.env.appRoot, codec });
  const diagnostics = new VsCodeDiagnosticsSource(vscode.languages, (p) => vscode.Uri.file(p), {
    workspace: vscode.workspace,
    window: vscode.window,
    showInBackground: (uri) => vscode.commands.executeCommand('vscode.open', uri, { preview: false, preserveFocus: true, background: true }),
    askLanguageServers,
    dependentsOf,
  });
  const warmUpTypeScript = typeScriptWarmUp(diagnostics.documents!, serverLog);
  context.subscriptions.push(
    vscode.window.onDidStartTerminalShellExecution((e) => startsClaude(e.execution.commandLine.value) && warmUpTypeScript('claude started in a terminal')),
  );
  const hosts = {
    review,
    diagnostics,
    workspace,
    documents: new VsCodeDocumentWriter(codec),
    codec,
    approvalMode,
    terminal: terminalRunner,
    commandApprover: modalCommandApprover,
    notebooks: new VsCodeNotebookKernelHost(),
    codeApprover: notebookCodeApprover,
    language: new VsCodeLanguageFeatures(diagnostics.documents!),
    lock: new KeyedLock(),
    recentEdits: new RecentEdits(),
    log: serverLog,
    // Set below, once the sessions it names are known (before any connection: the tools are built with the first).
    changes: undefined as ChangeCapture | undefined,
  };
  const ideBridge = createIdeBridge(context, hosts, { log, serverLog, onSessionClosed: (connectionId) => review.withdrawForConnection(connectionId) });
  bridge = ideBridge;
  const toolsRoute = createToolsConsent(context.globalState, log);
  // Which terminal each claude runs in: selections and at-mentions go to the one in front (else all).
  const windowSessions = new WindowSessions(ideBridge);
  const sessionTerminals = windowSessions.sessionTerminals;
  // Claude's changes: before-images and the list live in the extension's storage, never the workspace.
  const changesDir = context.storageUri?.fsPath ?? `${context.globalStorageUri.fsPath}/no-workspace`;
  const scriptedAnswers = scriptedAnswersAllowed(context.extensionMode, process.env);
  const claudeChanges = new ClaudeChanges(changesDir, ideBridge, windowSessions, (p) => hosts.documents.isDirty(p), serverLog, scriptedAnswers, codec);
  hosts.changes = claudeChanges.tracker;
  const selection = new SelectionTracker(sessionTerminals, log, currentSharingPolicy);
  const sessionLabels = () => windowSessions.labels();
  const updateStatus = () => statusBar.update(ideBridge.status(), sessionLabels());
  // The first-run walkthrough's steps complete on these context keys.
  const walkthrough = new WalkthroughContext(() => toolsRoute.isEnabled());
  ideBridge.on('change', () => {
    updateStatus();
    const status = ideBridge.status();
    walkthrough.bridgeChanged(status);
    // The tools route is offered once, when the user first actually uses claude with this window.
    if (status.sessionCount > 0) void toolsRoute.offerOnce().then(walkthrough.refreshTools);
    if (status.sessionCount > 0) warmUpTypeScript('claude connected');
  });
  updateStatus();
  ideBridge.on('unsupportedClient', (message) => showCompatibilityNotice(message, log));

  const coexistence: Coexistence = new Coexistence(
    context.workspaceState,
    (plan) => lifecycle.followPlan(plan),
    () => ideBridge.status().port,
  );
  const lifecycle: ServerLifecycle = new ServerLifecycle({
    bridge: ideBridge,
    terminalEnv,
    providesTerminalPort: () => coexistence.plan().provideTerminalPort,
    warmUpTypeScript,
    log,
  });

  const healthDeps: HealthViewDeps = {
    status: () => ideBridge.status(),
    identity: () => ideBridge.identity(),
    lockPid: lockFilePid(),
    workspaceFolders: workspaceFolderPaths,
    providesTerminalPort: () => ideBridge.status().running && coexistence.plan().provideTerminalPort,
    startError: () => lifecycle.startError,
    anthropicExtension: () => coexistence.anthropic,
    toolsServerName: () => toolsRoute.serverName(),
    log,
  };
  toolsRoute.onEnabled = () => vscode.commands.executeCommand(COMMANDS.addPermissionRules);

  context.subscriptions.push(
    log,
    diagnostics,
    statusBar,
    review,
    terminalRunner,
    windowSessions,
    claudeChanges,
    sessionTerminals.onDidChangeTargets(updateStatus),
    selection,
    walkthrough,
    registerPendingReviews(review, statusBar, (id) => windowSessions.whoAsked(id)),
    registerMentionCommand(sessionTerminals, log, currentSharingPolicy),
    registerHandoffCommands(sessionTerminals, log, currentSharingPolicy, (uri) => claudeChanges.changeOf(uri)),
    registerSelectionSharing(() => selection.refresh()),
    ...registerServerCommands(
      ideBridge,
      lifecycle,
      log,
      { ...windowSessions.launch, toolsEnabled: () => toolsRoute.isEnabled(), toolsServerName: () => toolsRoute.serverName() },
      () => sessionLabels().map(describeSession),
    ),
    ...registerToolsCommands(toolsRoute, walkthrough.refreshTools),
    registerHealthView(healthDeps),
    registerPermissionRulesCommand(log, () => toolsRoute.serverName()),
    registerChooseIdeExtension(coexistence),
    vscode.workspace.onDidChangeWorkspaceFolders(() => lifecycle.followWorkspaceFolders()),
  );

  await lifecycle.startAtActivation(coexistence.plan(), activated);
  void coexistence.askIfUndecided().catch((error: Error) => log.error(error.message));
  // Problems the user would only notice as "claude does not connect": say so once, a moment after start-up.
  const offer = setTimeout(() => void offerHealthCheckIfNeeded(healthDeps).catch((error: Error) => log.warn(`Check Setup: ${error.message}`)), 4000);
  context.subscriptions.push({ dispose: () => clearTimeout(offer) });
  return {
    status: () => ideBridge.status(),
    pendingReviews: () => review.pendingCount,
    sessions: sessionLabels,
    reviews: () => review.pendingReviews(),
    changes: async () => (await claudeChanges.settled(), claudeChanges.sessions()),
  };
}

export async function deactivate(): Promise<void> {
  // Before anything awaits: VS Code disposes the subscriptions (the review host too) as soon as this
  // returns its promise, while the server still has its connections open.
  reviewHost?.stop();
  reviewHost = undefined;
  await bridge?.stop();
  bridge = undefined;
}
