import { EventEmitter } from 'node:events';
import { createAuthToken } from './auth';
import { IdeServer, type SessionFactory, type SessionPolicy } from './ideServer';
import { CompatibilityNotices } from './clientVersion';
import { LockFile, lockFileDirectory, resolveWorkspaceFolders } from './lockFile';
import type { Logger } from '../util/logger';

/** The port and token a window keeps for its whole life, so the CLI's reconnect (docs/protocol.md#reconnects-and-the-4001-close) finds it. */
export interface ServerIdentity {
  port: number;
  token: string;
}

/**
 * Where the identity survives an extension reload (VS Code: the port in the workspace's state, the
 * token in SecretStorage; src/vscode/lifecycle/identityStore.ts). `load` may find the port without the token
 * (secrets not kept on this machine): the port is re-bound and a new token made.
 */
export interface IdentityStore {
  load(): Promise<Partial<ServerIdentity> | undefined> | Partial<ServerIdentity> | undefined;
  save(identity: ServerIdentity): Promise<void>;
}

export interface IdeBridgeOptions {
  ideName: string;
  /** The pid written to the lock file; see docs/architecture.md for why it is the one it is. */
  lockPid: number;
  runningInWindows: boolean;
  identity: IdentityStore;
  createSession: SessionFactory;
  log: Logger;
  maxMessageBytes?: number;
  /** Several CLI sessions at once (`all`, the default) or the newest only. */
  sessionPolicy?: () => SessionPolicy;
  /** Defaults to `<CLAUDE_CONFIG_DIR or ~/.claude>/ide`. */
  lockDirectory?: string;
}

export interface BridgeStatus {
  running: boolean;
  port?: number;
  lockFilePath?: string;
  /** Claude Code sessions (connections that sent `ide_connected`). */
  sessionCount: number;
  /** All open connections, including the tools route. */
  connections: number;
}

/**
 * Ties the server to the lock file for one window: start → bind (preferring the window's old port)
 * → write the lock file; folder changes → rewrite it; stop → delete it (only if still ours).
 * Plain Node, so the whole life cycle is testable without VS Code.
 */
export class IdeBridge extends EventEmitter<{ change: []; unsupportedClient: [string] }> {
  private server?: IdeServer;
  /** Out-of-range CLI warnings are given once per version for the window's life, across restarts. */
  private readonly notices = new CompatibilityNotices();
  private lockFile?: LockFile;
  private token?: string;

  constructor(private readonly options: IdeBridgeOptions) {
    super();
  }

  get ideServer(): IdeServer | undefined {
    return this.server;
  }

  /** The running server's port and token (the terminals' variables, the health check's probe). */
  identity(): ServerIdentity | undefined {
    return this.server?.running && this.token ? { port: this.server.port, token: this.token } : undefined;
  }

  status(): BridgeStatus {
    const server = this.server;
    return {
      running: server?.running ?? false,
      port: server?.running ? server.port : undefined,
      lockFilePath: this.lockFile?.path,
      sessionCount: server?.sessionConnections().length ?? 0,
      connections: server?.connections().length ?? 0,
    };
  }

  async start(workspaceFolders: readonly string[]): Promise<ServerIdentity> {
    if (this.server) throw new Error('The Claude Code IDE server is already running');
    const { log } = this.options;
    const saved = await Promise.resolve(this.options.identity.load()).catch((error: Error) => {
      log.warn(`Could not read the previous port and token (${error.message}); a new token is made`);
      return undefined;
    });
    const token = saved?.token ?? createAuthToken();
    const server = new IdeServer({
      token,
      preferredPort: saved?.port,
      createSession: this.options.createSession,
      log,
      maxMessageBytes: this.options.maxMessageBytes,
      sessionPolicy: this.options.sessionPolicy,
      compatibilityNotices: this.notices,
    });
    server.on('change', () => this.emit('change'));
    server.on('unsupportedClient', (_connection, message) => this.emit('unsupportedClient', message));
    // The lock file's folders are resolved (realpath: a trip to the thread pool each) while the server
    // binds. This never rejects (a folder that cannot be resolved is kept as given), so it may go unawaited.
    const resolvedFolders = resolveWorkspaceFolders(workspaceFolders);
    const port = await server.start();
    this.server = server;
    this.token = token;
    this.lockFile = new LockFile(port, this.options.lockDirectory ?? lockFileDirectory());
    // Saved in the background: the CLI needs the lock file now, the identity only at the next reload. Never
    // awaited: VS Code's workspaceState answers through the window, and a window closed right after start
    // never answers, which would leave activation pending, so VS Code would skip deactivate (lock file left).
    void this.options.identity.save({ port, token }).catch((error: Error) => log.warn(`Could not remember port ${port} for the next reload: ${error.message}`));
    try {
      await this.writeLockFile(resolvedFolders);
    } catch (error) {
      const lockPath = this.lockFile.path; // stop() forgets it
      await this.stop();
      throw new Error(`Could not write the lock file ${lockPath}: ${(error as Error).message}`, { cause: error });
    }
    // Last resort when the process ends without stop(): VS Code gives deactivate 5 s, and skips it for an
    // extension whose activation has not finished.
    process.on('exit', this.deleteLockOnExit);
    this.emit('change');
    return { port, token };
  }

  /** Last-chance cleanup when the process exits without `stop()` (synchronous: nothing is awaited at exit). */
  private readonly deleteLockOnExit = () => {
    if (this.lockFile && this.token) this.lockFile.deleteIfOwnedSync(this.token);
  };

  async updateWorkspaceFolders(workspaceFolders: readonly string[]): Promise<void> {
    if (this.server) await this.writeLockFile(resolveWorkspaceFolders(workspaceFolders));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    process.off('exit', this.deleteLockOnExit);
    const lockFile = this.lockFile;
    this.lockFile = undefined;
    // Clean up first, log last: on window close VS Code may already have disposed the log channel.
    const deleted = lockFile && this.token ? await lockFile.deleteIfOwned(this.token) : false;
    await server?.stop();
    if (deleted) this.options.log.info(`Lock file ${lockFile!.path} deleted`);
    this.emit('change');
  }

  private async writeLockFile(resolvedFolders: Promise<string[]>): Promise<void> {
    if (!this.lockFile || !this.token) return;
    const folders = await resolvedFolders;
    await this.lockFile.write({
      pid: this.options.lockPid,
      workspaceFolders: folders,
      ideName: this.options.ideName,
      transport: 'ws',
      runningInWindows: this.options.runningInWindows,
      authToken: this.token,
    });
    this.options.log.info(`Lock file ${this.lockFile.path} written (folders: ${folders.join(', ') || 'none'})`);
  }
}
