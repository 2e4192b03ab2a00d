import * as vscode from 'vscode';
import { IdeBridge } from './server/ideBridge';
import { createSessionFactory } from './server/mcpSession';
import { registerServerCommands } from './vscode/commands';
import { workspaceIdentityStore } from './vscode/identityStore';
import { StatusBar } from './vscode/statusBar';
import { TerminalEnvironment } from './vscode/terminalEnvironment';
import { lockFilePid, workspaceFolderPaths } from './vscode/workspace';

let bridge: IdeBridge | undefined;

/** What the extension exports, for the end-to-end tests and for other extensions. */
export interface NativeClaudeApi {
  status(): ReturnType<IdeBridge['status']>;
}

export async function activate(context: vscode.ExtensionContext): Promise<NativeClaudeApi> {
  const log = vscode.window.createOutputChannel('Native Claude', { log: true });
  const config = () => vscode.workspace.getConfiguration('nativeClaude');
  const terminalEnv = new TerminalEnvironment(context.environmentVariableCollection);
  const statusBar = new StatusBar();

  const ideBridge = new IdeBridge({
    ideName: vscode.env.appName,
    lockPid: lockFilePid(),
    runningInWindows: process.platform === 'win32',
    identity: workspaceIdentityStore(context.workspaceState),
    maxMessageBytes: config().get<number>('maxMessageBytes'),
    log,
    createSession: createSessionFactory({
      toolsFor: () => [],
      serverInfo: { name: 'native-claude', version: String(context.extension.packageJSON.version) },
      log,
    }),
  });
  bridge = ideBridge;
  ideBridge.on('change', () => statusBar.update(ideBridge.status()));
  statusBar.update(ideBridge.status());

  const controls = {
    start: async () => {
      const { port } = await ideBridge.start(workspaceFolderPaths());
      terminalEnv.apply(port);
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
    ...registerServerCommands(ideBridge, controls, log),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void ideBridge.updateWorkspaceFolders(workspaceFolderPaths()).catch((e: Error) => log.error(e.message))),
    { dispose: () => ideBridge.stopSync() },
  );

  if (config().get<boolean>('autoStart', true)) {
    await controls.start().catch((error: Error) => {
      log.error(`Could not start the Claude Code IDE server: ${error.message}`);
      void vscode.window.showErrorMessage(`Claude Code IDE server did not start: ${error.message}`, 'Show Log').then((c) => c && log.show());
    });
  }
  return { status: () => ideBridge.status() };
}

export async function deactivate(): Promise<void> {
  await bridge?.stop();
  bridge = undefined;
}
