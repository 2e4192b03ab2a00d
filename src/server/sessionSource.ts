import type { Connection } from './ideServer';
import { pidTrusted, type PidCheck } from './peerProcess';

/** Something that can be stopped; VS Code's `Disposable` has the same shape. */
export interface Disposable {
  dispose(): void;
}

/** One Claude Code CLI session (a connection that sent `ide_connected`), as the selection code sees it. */
export interface IdeSession {
  /** The connection id; stable for the life of the socket. */
  readonly id: number;
  /**
   * The CLI's pid from `ide_connected`, once it was shown to hold this connection (or cannot be
   * checked on this platform); undefined when the CLI did not say, or while / because it is unverified.
   * Only this pid may place a session in a terminal: any token holder can announce another claude's pid.
   */
  readonly cliPid?: number;
  /** The pid as announced, verified or not (for display). */
  readonly claimedPid?: number;
  /** How far the announced pid was checked (peerProcess.ts); undefined when none was sent. */
  readonly pidCheck?: PidCheck;
  /** The CLI's version from its `initialize` (e.g. `2.1.328`); undefined when it did not say. */
  readonly cliVersion?: string;
  /** When its connection opened (a reconnect is a new connection). */
  readonly connectedAt?: Date;
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

/** The live CLI sessions of the window and the moment each new one announces itself. */
export interface IdeSessionSource {
  sessions(): IdeSession[];
  onDidConnect(listener: (session: IdeSession) => void): Disposable;
  /**
   * The sessions the user means right now (the one whose terminal is in front, else all); selections
   * and at-mentions go to these. Absent: all of `sessions()`.
   */
  targets?(): IdeSession[];
  /** `targets()` may have changed (another terminal came to the front, a session came or went). */
  onDidChangeTargets?(listener: () => void): Disposable;
}

/** Sessions come and go (also the ones that never sent `ide_connected` leave through this). */
export interface IdeSessionChanges {
  onDidChange(listener: () => void): Disposable;
  /** A session's announced pid was checked: its `cliPid` may now be set (or stay unset). */
  onDidCheckPid?(listener: (session: IdeSession) => void): Disposable;
}

type SessionConnection = Pick<Connection, 'id' | 'cliPid' | 'pidCheck' | 'session' | 'client'> & { readonly connectedAt?: Date };

type ServerEvent = 'ideSession' | 'pidChecked';

/** The part of `IdeServer` this module uses. */
export interface SessionServer {
  sessionConnections(): SessionConnection[];
  connections(): Connection[];
  /** The IDE session of the claude a connection belongs to (connectionIdentity.ts). */
  claudeOf(connection: Connection): SessionConnection | undefined;
  on(event: ServerEvent, listener: (connection: Connection) => void): unknown;
  off(event: ServerEvent, listener: (connection: Connection) => void): unknown;
}

/** The part of `IdeBridge` this module uses: its server is replaced on every start/restart. */
export interface SessionBridge {
  readonly ideServer: SessionServer | undefined;
  on(event: 'change', listener: () => void): unknown;
  off(event: 'change', listener: () => void): unknown;
}

/**
 * Follows the bridge's current server (a restart builds a new `IdeServer`) so listeners attached once
 * keep hearing about new CLI sessions.
 */
/**
 * The one answer to "which claude is connection N": its own IDE session, or for a tools-route connection
 * the IDE session of the claude holding its socket (connectionIdentity.ts); undefined when it is neither
 * (a token holder's own connection, a session not announced yet, a closed one). The review labels, the
 * selection routing, Claude's changes and the tools route all ask this.
 */
export interface ClaudeOfConnection {
  claudeOf(connectionId: number): IdeSession | undefined;
}

export function bridgeSessionSource(bridge: SessionBridge): IdeSessionSource & IdeSessionChanges & ClaudeOfConnection & Disposable {
  const listeners = new Set<(session: IdeSession) => void>();
  const checkListeners = new Set<(session: IdeSession) => void>();
  let server: SessionServer | undefined;
  const onIdeSession = (connection: Connection) => {
    const session = toIdeSession(connection);
    for (const listener of [...listeners]) listener(session);
  };
  const onPidChecked = (connection: Connection) => {
    const session = toIdeSession(connection);
    for (const listener of [...checkListeners]) listener(session);
  };
  const follow = () => {
    if (bridge.ideServer === server) return;
    server?.off('ideSession', onIdeSession);
    server?.off('pidChecked', onPidChecked);
    server = bridge.ideServer;
    server?.on('ideSession', onIdeSession);
    server?.on('pidChecked', onPidChecked);
  };
  bridge.on('change', follow);
  follow();
  return {
    sessions: () => (bridge.ideServer?.sessionConnections() ?? []).filter((c) => c.session !== undefined).map(toIdeSession),
    claudeOf: (connectionId) => {
      const server = bridge.ideServer;
      const connection = server?.connections().find((c) => c.id === connectionId);
      const claude = connection && server?.claudeOf(connection);
      return claude ? toIdeSession(claude) : undefined;
    },
    onDidConnect: (listener) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    onDidChange: (listener) => {
      bridge.on('change', listener);
      return { dispose: () => bridge.off('change', listener) };
    },
    onDidCheckPid: (listener) => {
      checkListeners.add(listener);
      return { dispose: () => checkListeners.delete(listener) };
    },
    dispose: () => {
      bridge.off('change', follow);
      server?.off('ideSession', onIdeSession);
      server?.off('pidChecked', onPidChecked);
      server = undefined;
      listeners.clear();
      checkListeners.clear();
    },
  };
}

function toIdeSession(connection: SessionConnection): IdeSession {
  return {
    id: connection.id,
    // The server records 0 when `ide_connected` carried no pid.
    cliPid: connection.cliPid && pidTrusted(connection.pidCheck) ? connection.cliPid : undefined,
    claimedPid: connection.cliPid ? connection.cliPid : undefined,
    pidCheck: connection.pidCheck,
    cliVersion: connection.client?.version,
    connectedAt: connection.connectedAt,
    notify: (method, params) =>
      connection.session ? connection.session.notify(method, params) : Promise.reject(new Error(`connection #${connection.id} has no MCP session yet`)),
  };
}
