import * as vscode from 'vscode';
import { PORT_VARIABLE, TOKEN_VARIABLE } from '../../cliSetup/toolsRouteEntry';
import type { CoexistencePlan } from '../../health/coexistence';
import { IdeBridge } from '../../server/ideBridge';
import { lazySessionFactory } from '../../server/lazySessionFactory';
import type { ToolHosts } from '../../tools/registry';
import type { Logger } from '../../util/logger';
import type { ServerControls } from './serverCommands';
import { workspaceIdentityStore } from './identityStore';
import { isTypeScriptProject } from '../diagnostics/languageServers';
import { setting } from '../settings';
import type { TerminalEnvironment } from '../terminals/terminalEnvironment';
import { workspaceFolderPaths } from '../workspace/workspaceFolders';
import { notify } from '../notify';
import { COMMANDS } from '../../host/commandIds';

/**
 * The lock file's pid. The CLI requires it to be alive, owned by this user, and (in an integrated
 * terminal without CLAUDE_CODE_SSE_PORT) an ancestor of the `claude` process (docs/protocol.md#lock-file-and-discovery).
 * The extension host is a sibling of the terminals' pty host, not their ancestor; its parent (VS Code's
 * main process on the desktop, the server process in code-server and remote) is an ancestor of both.
 * See docs/architecture.md ("Which pid") for the process tree observed in code-server.
 */
export function lockFilePid(): number {
  return process.ppid > 1 ? process.ppid : process.pid;
}

export interface IdeBridgeWiring {
  /** The output channel (its log level turns call tracing on). */
  log: vscode.LogOutputChannel;
  /** The channel as the server writes to it (safe during shutdown). */
  serverLog: Logger;
  /** A connection closed: its pending reviews are settled. */
  onSessionClosed(connectionId: number): void;
}

/** The window's IDE bridge; the SDK, zod and the tools load with the first connection (webpack chunk dist/session.js). */
export function createIdeBridge(context: vscode.ExtensionContext, hosts: ToolHosts, wiring: IdeBridgeWiring): IdeBridge {
  const { log, serverLog } = wiring;
  return new IdeBridge({
    ideName: vscode.env.appName,
    lockPid: lockFilePid(),
    runningInWindows: process.platform === 'win32',
    identity: workspaceIdentityStore(context.workspaceState, context.secrets),
    maxMessageBytes: setting('maxMessageBytes'),
    sessionPolicy: () => setting('multipleSessions'),
    log: serverLog,
    createSession: lazySessionFactory(async () => {
      const [{ createSessionFactory }, { ideTools, workspaceTools }, { serverInstructions }] = await Promise.all([
        import(/* webpackChunkName: "session" */ '../../server/mcpSession'),
        import(/* webpackChunkName: "session" */ '../../tools/registry'),
        import(/* webpackChunkName: "session" */ '../../tools/instructions'),
      ]);
      const toolsByRoute = { ide: ideTools(hosts), tools: workspaceTools(hosts) };
      return createSessionFactory({
        toolsFor: (route) => toolsByRoute[route],
        serverInfo: { name: 'native-claude', version: String(context.extension.packageJSON.version) },
        instructionsFor: serverInstructions,
        log: serverLog,
        onSessionClosed: wiring.onSessionClosed,
        traceCalls: () => log.logLevel !== vscode.LogLevel.Off && log.logLevel <= vscode.LogLevel.Debug,
      });
    }),
  });
}

export interface ServerLifecycleDeps {
  bridge: IdeBridge;
  terminalEnv: TerminalEnvironment;
  /** Whether new terminals get `CLAUDE_CODE_SSE_PORT` (the coexistence plan's answer, read each time). */
  providesTerminalPort(): boolean;
  warmUpTypeScript(reason: string): void;
  log: vscode.LogOutputChannel;
}

/**
 * Starts, stops and restarts the window's IDE server with what goes with it: the terminals' variables
 * (set on start, cleared on stop, re-applied when the plan or the folders change) and the start error
 * Check Setup shows.
 */
export class ServerLifecycle implements ServerControls {
  /** Why the last start failed; cleared by the next successful one. */
  startError: string | undefined;

  constructor(private readonly deps: ServerLifecycleDeps) {}

  readonly start = async (): Promise<void> => {
    const { bridge, warmUpTypeScript } = this.deps;
    try {
      const { port, token } = await bridge.start(workspaceFolderPaths());
      this.startError = undefined;
      this.applyTerminalEnv(port, token);
      // After the lock file, so claude finds the window first.
      void Promise.all(workspaceFolderPaths().map(isTypeScriptProject)).then(
        (projects) => projects.includes(true) && warmUpTypeScript('the window opened on a TypeScript project'),
      );
    } catch (error) {
      this.startError = (error as Error).message;
      throw error;
    }
  };

  readonly stop = async (): Promise<void> => {
    await this.deps.bridge.stop();
    this.deps.terminalEnv.clear();
  };

  readonly restart = async (): Promise<void> => {
    await this.deps.bridge.stop();
    await this.start();
  };

  /** The coexistence choice changed: run or stop the server as it says. */
  async followPlan(plan: CoexistencePlan): Promise<void> {
    const running = this.deps.bridge.status().running;
    if (!plan.runServer && running) await this.stop();
    else if (plan.runServer && !running) await this.start();
    else if (running) this.refreshTerminalEnv();
  }

  /** The workspace folders changed: the lock file lists them, and the port is also set per folder (terminalEnvironment.ts). */
  followWorkspaceFolders(): void {
    void this.deps.bridge.updateWorkspaceFolders(workspaceFolderPaths()).catch((e: Error) => this.deps.log.error(e.message));
    this.refreshTerminalEnv();
  }

  /** At activation: start (with `autoStart`) unless Anthropic's extension serves this workspace. `activated`: when activate() began. */
  async startAtActivation(plan: CoexistencePlan, activated: number): Promise<void> {
    const { log, terminalEnv } = this.deps;
    if (!plan.runServer) {
      log.info("Anthropic's Claude Code extension serves this workspace (your choice): the IDE server is not started. Claude: Choose IDE Extension switches.");
      terminalEnv.clear();
    } else if (setting('autoStart')) {
      const setUp = performance.now();
      await this.start().then(
        () =>
          log.info(
            `Listening, lock file written ${Math.round(performance.now() - activated)} ms after activation began (${Math.round(setUp - activated)} ms of it setting up)`,
          ),
        (error: Error) => {
          log.error(`Could not start the Claude Code IDE server: ${error.message}`);
          void notify
            .error(`Claude Code IDE server did not start: ${error.message}`, 'Check Setup', 'Show Log')
            .then((c) => (c === 'Show Log' ? log.show() : c && vscode.commands.executeCommand(COMMANDS.checkSetup)));
        },
      );
    }
  }

  private applyTerminalEnv(port: number, token: string): void {
    // The tools route's user-scope entry reads these two (src/cliSetup/toolsRouteEntry.ts).
    this.deps.terminalEnv.apply(port, { [PORT_VARIABLE]: String(port), [TOKEN_VARIABLE]: token }, this.deps.providesTerminalPort());
  }

  /** Applies the running server's port again (the coexistence plan or the workspace folders changed). */
  private refreshTerminalEnv(): void {
    const { bridge } = this.deps;
    const { running, port } = bridge.status();
    const token = bridge.identity()?.token;
    if (running && port !== undefined && token !== undefined) this.applyTerminalEnv(port, token);
  }
}
