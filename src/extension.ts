import * as vscode from 'vscode';
import type { ApprovalMode } from './host/approvalMode';
import { IdeBridge } from './server/ideBridge';
import { lazySessionFactory } from './server/lazySessionFactory';
import { RecentEdits } from './review/recentEdits';
import { registerPendingReviews } from './vscode/pendingReviews';
import { describeSession, type SessionLabel } from './vscode/statusBar';
import type { PendingReviewInfo } from './vscode/diffReviewHost';
import { WindowSessions } from './vscode/windowSessions';
import { approvalModes, setting } from './vscode/settings';
import { KeyedLock } from './util/keyedLock';
import { safeLogger } from './util/safeLogger';
import { registerMentionCommand } from './vscode/mentionCommand';
import { registerServerCommands } from './vscode/commands';
import { VsCodeDiagnosticsSource } from './vscode/diagnosticsSource';
import { askLanguageServers, isTypeScriptProject, typeScriptWarmUp } from './vscode/languageServers';
import { startsClaude } from './terminal/claudeCommandLine';
import { DiffReviewHost } from './vscode/diffReviewHost';
import { VsCodeDocumentWriter } from './vscode/documentWriter';
import { VsCodeTextCodec } from './vscode/vsCodeTextCodec';
import { workspaceIdentityStore } from './vscode/identityStore';
import { SelectionTracker } from './vscode/selectionTracker';
import { currentSharingPolicy, registerSelectionSharing } from './vscode/selectionSharing';
import { StatusBar } from './vscode/statusBar';
import { TerminalEnvironment } from './vscode/terminalEnvironment';
import { lockFilePid, workspaceFolderPaths } from './vscode/workspaceFolders';
import { createWorkspaceHost } from './vscode/workspaceHost';
import { VsCodeTerminalRunner } from './vscode/terminalRunner';
import { createToolsConsent } from './vscode/toolsRoute';
import { WalkthroughContext } from './vscode/walkthroughContext';
import { PORT_VARIABLE, TOKEN_VARIABLE } from './cliSetup/toolsRouteEntry';
import { modalCommandApprover } from './vscode/commandApprover';
import { Coexistence } from './vscode/coexistenceChoice';
import { offerHealthCheckIfNeeded, registerHealthView, type HealthViewDeps } from './vscode/healthView';
import { registerPermissionRulesCommand } from './vscode/permissionRulesCommand';
import { showCompatibilityNotice } from './vscode/compatibilityNotice';
import { ClaudeChanges } from './vscode/claudeChanges';
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

export async function activate(context: vscode.ExtensionContext): Promise<NativeClaudeApi> {
  const activated = performance.now();
  const log = vscode.window.createOutputChannel('Native Claude', { log: true });
  const serverLog = safeLogger(log); // used during shutdown, when the channel may be gone
  const terminalEnv = new TerminalEnvironment(context.environmentVariableCollection, () => vscode.workspace.workspaceFolders ?? []);
  const statusBar = new StatusBar();
  const review = new DiffReviewHost(log, {
    placement: () => setting('reviewPlacement'),
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
  });
  const warmUpTypeScript = typeScriptWarmUp(diagnostics.documents!, serverLog);
  context.subscriptions.push(vscode.window.onDidStartTerminalShellExecution((e) => startsClaude(e.execution.commandLine.value) && warmUpTypeScript('claude started in a terminal')));
  const hosts = {
    review,
    diagnostics,
    workspace,
    documents: new VsCodeDocumentWriter(codec),
    codec,
    approvalMode,
    terminal: terminalRunner,
    commandApprover: modalCommandApprover,
    lock: new KeyedLock(),
    recentEdits: new RecentEdits(),
    log: serverLog,
    // Set below, once the sessions it names are known (before any connection: the tools are built with the first).
    changes: undefined as ChangeCapture | undefined,
  };
  const identity = workspaceIdentityStore(context.workspaceState, context.secrets);

  const ideBridge = new IdeBridge({
    ideName: vscode.env.appName,
    lockPid: lockFilePid(),
    runningInWindows: process.platform === 'win32',
    identity,
    maxMessageBytes: setting('maxMessageBytes'),
    sessionPolicy: () => setting('multipleSessions'),
    log: serverLog,
    // The SDK, zod and the tools load with the first connection (webpack chunk dist/session.js).
    createSession: lazySessionFactory(async () => {
      const [{ createSessionFactory }, { ideTools, workspaceTools }, { serverInstructions }] = await Promise.all([
        import(/* webpackChunkName: "session" */ './server/mcpSession'),
        import(/* webpackChunkName: "session" */ './tools/registry'),
        import(/* webpackChunkName: "session" */ './tools/instructions'),
      ]);
      const toolsByRoute = { ide: ideTools(hosts), tools: workspaceTools(hosts) };
      return createSessionFactory({
        toolsFor: (route) => toolsByRoute[route],
        serverInfo: { name: 'native-claude', version: String(context.extension.packageJSON.version) },
        instructionsFor: serverInstructions,
        log: serverLog,
        onSessionClosed: (connectionId) => review.withdrawForConnection(connectionId),
        traceCalls: () => log.logLevel !== vscode.LogLevel.Off && log.logLevel <= vscode.LogLevel.Debug,
      });
    }),
  });
  bridge = ideBridge;
  const toolsRoute = createToolsConsent(context.globalState, log);
  // Which terminal each claude runs in: selections and at-mentions go to the one in front (else all).
  const windowSessions = new WindowSessions(ideBridge);
  const sessionTerminals = windowSessions.sessionTerminals;
  // Claude's changes: before-images and the list live in the extension's storage, never the workspace.
  const changesDir = context.storageUri?.fsPath ?? `${context.globalStorageUri.fsPath}/no-workspace`;
  const claudeChanges = new ClaudeChanges(changesDir, ideBridge, windowSessions, (p) => hosts.documents.isDirty(p), serverLog);
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

  let startError: string | undefined;
  const coexistence = new Coexistence(context.workspaceState, async (plan) => {
    const running = ideBridge.status().running;
    if (!plan.runServer && running) await controls.stop();
    else if (plan.runServer && !running) await controls.start();
    else if (running) refreshTerminalEnv();
  }, () => ideBridge.status().port);
  const applyTerminalEnv = (port: number, token: string) =>
    // The tools route's user-scope entry reads these two (src/cliSetup/toolsRouteEntry.ts).
    terminalEnv.apply(port, { [PORT_VARIABLE]: String(port), [TOKEN_VARIABLE]: token }, coexistence.plan().provideTerminalPort);
  /** Applies the running server's port again (the coexistence plan or the workspace folders changed). */
  const refreshTerminalEnv = () => {
    const { running, port } = ideBridge.status();
    const token = ideBridge.identity()?.token;
    if (running && port !== undefined && token !== undefined) applyTerminalEnv(port, token);
  };
  const controls = {
    start: async () => {
      try {
        const { port, token } = await ideBridge.start(workspaceFolderPaths());
        startError = undefined;
        applyTerminalEnv(port, token);
        // After the lock file, so claude finds the window first.
        void Promise.all(workspaceFolderPaths().map(isTypeScriptProject)).then((projects) => projects.includes(true) && warmUpTypeScript('the window opened on a TypeScript project'));
      } catch (error) {
        startError = (error as Error).message;
        throw error;
      }
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

  const healthDeps: HealthViewDeps = {
    status: () => ideBridge.status(),
    identity: () => ideBridge.identity(),
    lockPid: lockFilePid(),
    workspaceFolders: workspaceFolderPaths,
    providesTerminalPort: () => ideBridge.status().running && coexistence.plan().provideTerminalPort,
    startError: () => startError,
    anthropicExtension: () => coexistence.anthropic,
    toolsServerName: () => toolsRoute.serverName(),
    log,
  };
  toolsRoute.onEnabled = () => vscode.commands.executeCommand('nativeClaude.addPermissionRules');

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
    registerSelectionSharing(() => selection.refresh()),
    ...registerServerCommands(ideBridge, controls, log, { ...windowSessions.launch, toolsEnabled: () => toolsRoute.isEnabled(), toolsServerName: () => toolsRoute.serverName() }, () => sessionLabels().map(describeSession)),
    vscode.commands.registerCommand('nativeClaude.enableTools', () => toolsRoute.enable().then(walkthrough.refreshTools)),
    registerHealthView(healthDeps),
    registerPermissionRulesCommand(log, () => toolsRoute.serverName()),
    vscode.commands.registerCommand('nativeClaude.chooseIdeExtension', async (choice?: 'this' | 'anthropic') => {
      const chosen = await coexistence.choose(choice);
      return { choice: chosen, portElsewhere: coexistence.portElsewhere };
    }),
    vscode.commands.registerCommand('nativeClaude.removeTools', () => toolsRoute.remove().then(walkthrough.refreshTools)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      void ideBridge.updateWorkspaceFolders(workspaceFolderPaths()).catch((e: Error) => log.error(e.message));
      // The port is also set per workspace folder (terminalEnvironment.ts): follow the folders.
      refreshTerminalEnv();
    }),
  );

  const plan = coexistence.plan();
  if (!plan.runServer) {
    log.info("Anthropic's Claude Code extension serves this workspace (your choice): the IDE server is not started. Claude: Choose IDE Extension switches.");
    terminalEnv.clear();
  } else if (setting('autoStart')) {
    const setUp = performance.now();
    await controls.start().then(
      () => log.info(`Listening, lock file written ${Math.round(performance.now() - activated)} ms after activation began (${Math.round(setUp - activated)} ms of it setting up)`),
      (error: Error) => {
        log.error(`Could not start the Claude Code IDE server: ${error.message}`);
        void vscode.window.showErrorMessage(`Claude Code IDE server did not start: ${error.message}`, 'Check Setup', 'Show Log').then((c) =>
          c === 'Show Log' ? log.show() : c && vscode.commands.executeCommand('nativeClaude.checkSetup'),
        );
      },
    );
  }
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
