import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EventEmitter } from 'node:events';
import WebSocket, { WebSocketServer } from 'ws';
import { checkUpgradeRequest, type Route } from './auth';
import { WebSocketServerTransport } from './webSocketTransport';
import { cappedLogger, rateLimitedLog, type Logger } from '../util/logger';
import { clientFromUserAgent, CompatibilityNotices, describeClient, type ClientInfo } from './clientVersion';
import { ConnectionIdentity } from './connectionIdentity';
import { peerPidCheckFor, type PeerPidCheck, type PidCheck } from './peerProcess';

/** The close code and reason the CLI reads as "superseded, do not reconnect" (docs/protocol.md#reconnects-and-the-4001-close). */
export const SUPERSEDED_CLOSE_CODE = 4001;
export const SUPERSEDED_CLOSE_REASON = 'Another Claude Code session connected to this IDE';

/**
 * What a new `ide_connected` does to the window's other CLI sessions: `all` keeps every one (each
 * `claude` in its own terminal stays connected), `newest-wins` closes the older ones with 4001.
 */
export type SessionPolicy = 'all' | 'newest-wins';

/** How long `stop()` lets peers answer the close frame before their sockets are cut. */
const STOP_GRACE_MS = 500;

/** One accepted WebSocket connection and the MCP session that serves it. */
export interface Connection {
  readonly id: number;
  readonly route: Route;
  readonly connectedAt: Date;
  /** Set when the peer announced itself with `ide_connected`: it is a Claude Code IDE session (0: no pid sent). */
  cliPid?: number;
  /** Whether the announced pid was shown to hold this connection's socket (peerProcess.ts). */
  pidCheck?: PidCheck;
  /**
   * Tools route only: which claude holds this connection's socket, found among the verified pids of the
   * IDE sessions (a tools-route connection announces none). `verified`: `pid` holds it; `unverified`:
   * none of the pids tried so far does (checked again when another IDE session's pid is verified);
   * `unchecked`: no `/proc` to look in.
   */
  owner?: { check: PidCheck; pid?: number };
  /** Who the peer is: from `initialize` once it arrived, else from the upgrade's User-Agent. */
  client?: ClientInfo;
  readonly transport: WebSocketServerTransport;
  /** The MCP session serving this connection, once it is up. */
  session?: SessionHandle;
  close(code?: number, reason?: string): void;
}

/** What the server needs from the MCP session of one connection; the session ends when its socket closes. */
export interface SessionHandle {
  /** Sends a notification to this peer (selection_changed, at_mentioned). */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

/** Builds and connects the MCP server for one connection. */
export type SessionFactory = (connection: Connection, events: SessionEvents) => Promise<SessionHandle>;

/** What a session reports back to the server about its peer. */
export interface SessionEvents {
  ideConnected(pid: number | undefined): void;
  /** The peer's `initialize` said who it is (clientInfo, protocolVersion). */
  clientIdentified(client: ClientInfo): void;
}

export interface IdeServerOptions {
  token: string;
  createSession: SessionFactory;
  log: Logger;
  /** Port to re-bind (the window's previous port) so the CLI's reconnect finds us; 0 = random. */
  preferredPort?: number;
  maxMessageBytes?: number;
  /** Read at every `ide_connected`, so a settings change applies to the next session. Default `all`. */
  sessionPolicy?: () => SessionPolicy;
  /** How often to ping; a peer that missed the previous pong is dropped. */
  heartbeatMs?: number;
  host?: string;
  /** Bytes that may wait unsent for one peer before it is closed as not reading (default 8 MiB). */
  maxBufferedBytes?: number;
  /** Remembers which out-of-range CLI versions were already warned about; share one per window. */
  compatibilityNotices?: CompatibilityNotices;
  /** Checks an announced pid against the connecting process; default: `/proc` on Linux, none elsewhere. */
  checkPeerPid?: PeerPidCheck;
}

export interface IdeServerEvents {
  /** Connections were added or removed, or one became an IDE session. */
  change: [];
  /** A Claude Code session announced itself; it should be sent the current editor state. */
  ideSession: [Connection];
  /** The pid an IDE session announced was checked (its `pidCheck` is no longer `pending`). */
  pidChecked: [Connection];
  /** A claude CLI outside the supported range connected; the message says what may not work and what to do (once per version). */
  unsupportedClient: [Connection, string];
}

/**
 * The window's WebSocket server: loopback only, token checked before the upgrade, one MCP session
 * per connection; several Claude Code IDE sessions at once, or the newest only (see {@link SessionPolicy}).
 */
export class IdeServer extends EventEmitter<IdeServerEvents> {
  private http?: http.Server;
  private wss?: WebSocketServer;
  private heartbeat?: NodeJS.Timeout;
  private nextId = 1;
  private readonly live = new Map<number, Connection>();
  /** Heartbeat state per connection: whether a pong came back since the last ping. */
  private readonly heartbeats = new Map<number, { ws: WebSocket; answered: boolean }>();
  /** Every TCP socket of this server, upgraded or not, so `stop()` can cut them all. */
  private readonly sockets = new Set<Socket>();
  private boundPort = 0;
  /** Every line capped: a peer controls much of what is logged about it. */
  private readonly log: Logger;
  /** Lines a peer can trigger at will (refusals, odd messages) are rate-limited too. */
  private readonly peerWarn: (message: string) => void;
  private readonly notices: CompatibilityNotices;
  /** Which claude each connection is: announced pids checked, tools-route owners found. */
  private readonly identity: ConnectionIdentity;

  constructor(private readonly options: IdeServerOptions) {
    super();
    this.log = cappedLogger(options.log);
    this.peerWarn = rateLimitedLog((m) => this.log.warn(m));
    this.identity = new ConnectionIdentity(options.checkPeerPid ?? peerPidCheckFor(), {
      port: () => this.boundPort,
      isLive: (id) => this.live.has(id),
      connections: () => this.connections(),
      log: this.log,
      peerWarn: (m) => this.peerWarn(m),
      changed: () => this.safeEmit('change'),
      pidChecked: (connection) => this.safeEmit('pidChecked', connection),
    });
    this.notices = options.compatibilityNotices ?? new CompatibilityNotices();
  }

  get port(): number {
    return this.boundPort;
  }

  get running(): boolean {
    return this.http?.listening ?? false;
  }

  connections(): Connection[] {
    return [...this.live.values()];
  }

  /** The IDE session of the claude a connection belongs to (connectionIdentity.ts): itself, or a tools-route connection's owner. */
  claudeOf(connection: Connection): Connection | undefined {
    return this.identity.claudeOf(connection);
  }

  /** The connections whose CLI announced itself with `ide_connected`: the Claude Code sessions. */
  sessionConnections(): Connection[] {
    return this.connections().filter((c) => c.cliPid !== undefined);
  }

  async start(): Promise<number> {
    if (this.http) throw new Error('The IDE server is already running');
    const { log } = this;
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.options.maxMessageBytes ?? 16 * 1024 * 1024,
      // Echo `mcp`: the CLI's WebSocket client aborts the handshake without it (docs/protocol.md#upgrade-and-auth).
      handleProtocols: (offered) => (offered.has('mcp') ? 'mcp' : false),
      perMessageDeflate: false,
    });
    const server = http.createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain' }).end('This is the Claude Code IDE WebSocket server; connect with a WebSocket client.\n');
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('upgrade', (req, socket: Socket, head) => {
      socket.on('error', () => socket.destroy());
      try {
        const verdict = checkUpgradeRequest(req, this.options.token);
        if (!verdict.ok) {
          this.peerWarn(`Refused a connection from ${req.socket.remoteAddress}: ${verdict.reason} (HTTP ${verdict.status})`);
          socket.end(`HTTP/1.1 ${verdict.status} ${http.STATUS_CODES[verdict.status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
          return;
        }
        const userAgent = req.headers['user-agent'];
        wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, verdict.route, socket, userAgent));
      } catch (error) {
        this.peerWarn(`Dropped an upgrade request: ${(error as Error).message}`);
        socket.destroy();
      }
    });
    // A request Node cannot parse gets a plain HTTP error, then the socket is cut.
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      if (!socket.writable) return void socket.destroy();
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
    });
    // A half-sent upgrade request holds a socket; do not wait Node's default minute for it.
    server.headersTimeout = 10_000;
    server.requestTimeout = 10_000;
    this.http = server;
    this.wss = wss;
    this.boundPort = await listen(server, this.options.host ?? '127.0.0.1', this.options.preferredPort ?? 0, log);
    this.heartbeat = setInterval(() => this.checkHeartbeats(), this.options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
    log.info(`IDE server listening on ${this.options.host ?? '127.0.0.1'}:${this.boundPort}`);
    return this.boundPort;
  }

  /**
   * Closes every connection with 1001 and stops listening. Returns within about a second whatever
   * the peers do: those that have not answered the close frame after a short grace, and sockets
   * still in their HTTP request, are cut (VS Code awaits this in deactivate and Restart Server).
   */
  async stop(): Promise<void> {
    const server = this.http;
    if (!server) return;
    this.http = undefined;
    clearInterval(this.heartbeat);
    const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const connection of this.live.values()) connection.close(1001, 'VS Code closed the Claude Code IDE server');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (this.live.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const heartbeat of this.heartbeats.values()) heartbeat.ws.terminate();
    for (const socket of this.sockets) socket.destroy();
    server.closeAllConnections?.();
    this.wss?.close();
    for (const id of [...this.live.keys()]) this.forget(id);
    await Promise.race([listenerClosed, new Promise((r) => setTimeout(r, 500).unref())]);
    this.log.info(`IDE server on port ${this.boundPort} stopped`);
  }

  private accept(ws: WebSocket, route: Route, socket: Socket, userAgent: string | undefined): void {
    const { log } = this;
    if (!this.http) {
      ws.terminate(); // the upgrade finished after stop()
      return;
    }
    const id = this.nextId++;
    const transport = new WebSocketServerTransport(ws, { maxBufferedBytes: this.options.maxBufferedBytes, upgradedSocket: socket });
    const heartbeat = { ws, answered: true };
    this.heartbeats.set(id, heartbeat);
    ws.on('pong', () => (heartbeat.answered = true));
    const connection: Connection = {
      id,
      route,
      connectedAt: new Date(),
      transport,
      client: clientFromUserAgent(userAgent),
      close: (code = 1000, reason = '') => {
        if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, reason);
      },
    };
    this.live.set(id, connection);
    log.info(`Connection #${id} opened (${route})`);
    this.safeEmit('change');
    if (route === 'tools') {
      this.identity.toolsConnected(connection, socket);
    }

    ws.on('close', (code, reason) => {
      log.info(`Connection #${id} closed (code ${code}${reason.length ? `, ${reason.toString()}` : ''})`);
      this.forget(id);
    });
    // Second path out of the live set: if the socket dies without ws reporting 'close'.
    socket.once('close', () => this.forget(id));
    ws.on('error', (error) => this.peerWarn(`Connection #${id}: ${error.message}`));
    transport.onerror = (error) => this.peerWarn(`Connection #${id}: ${error.message}`);

    this.options
      .createSession(connection, {
        ideConnected: (pid) => this.onIdeConnected(connection, pid, socket),
        clientIdentified: (client) => this.onClientIdentified(connection, client),
      })
      .then((session) => (connection.session = session))
      .catch((error: Error) => {
        log.error(`Connection #${id}: could not start its MCP session: ${error.message}`);
        connection.close(1011, 'Internal error starting the MCP session');
      });
  }

  /** Removes a connection from the live set; safe to call more than once. */
  private forget(id: number): void {
    const wasLive = this.live.delete(id);
    this.heartbeats.delete(id);
    this.identity.closed(id);
    if (wasLive) this.safeEmit('change');
  }

  /** Listeners (status bar, selection) must not be able to break the connection that triggered them. */
  private safeEmit<K extends keyof IdeServerEvents>(event: K, ...args: IdeServerEvents[K]): void {
    try {
      (this.emit as (e: K, ...a: IdeServerEvents[K]) => boolean)(event, ...args);
    } catch (error) {
      this.log.error(`A ${event} listener failed: ${(error as Error).message}`);
    }
  }

  /** Logs who connected; a claude CLI outside the supported range is reported once per version. */
  private onClientIdentified(connection: Connection, client: ClientInfo): void {
    if (!this.live.has(connection.id)) return; // already gone
    connection.client = client;
    this.log.info(`Connection #${connection.id} is ${describeClient(client)}`);
    const notice = this.notices.noticeFor(client);
    if (notice !== undefined) {
      this.log.warn(notice);
      this.safeEmit('unsupportedClient', connection, notice);
    }
    this.safeEmit('change');
  }

  /**
   * Under `newest-wins`, earlier IDE sessions are told, with the code the CLI recognises, not to
   * reconnect. Under `all` they stay.
   */
  private onIdeConnected(connection: Connection, pid: number | undefined, socket: Socket): void {
    if (!this.live.has(connection.id)) return; // already gone
    connection.cliPid = pid ?? 0;
    connection.pidCheck = pid === undefined ? undefined : 'pending';
    this.log.info(`Connection #${connection.id} is a Claude Code session (CLI pid ${pid ?? 'unknown'})`);
    const policy = this.options.sessionPolicy?.() ?? 'all';
    for (const other of this.live.values()) {
      if (policy === 'newest-wins' && other !== connection && other.cliPid !== undefined) {
        this.log.info(`Closing connection #${other.id}: superseded by #${connection.id}`);
        other.close(SUPERSEDED_CLOSE_CODE, SUPERSEDED_CLOSE_REASON);
      }
    }
    this.safeEmit('change');
    this.safeEmit('ideSession', connection);
    if (pid !== undefined) this.identity.announced(connection, pid, socket);
  }

  /** Sends a notification to every Claude Code IDE session of this window; failures are logged, not thrown. */
  async notifySessions(method: string, params: Record<string, unknown>): Promise<number> {
    const targets = this.sessionConnections().filter((c) => c.session);
    await Promise.all(
      targets.map((c) => c.session!.notify(method, params).catch((error: Error) => this.log.warn(`Could not send ${method} to #${c.id}: ${error.message}`))),
    );
    return targets.length;
  }

  private checkHeartbeats(): void {
    for (const [id, heartbeat] of this.heartbeats) {
      if (!heartbeat.answered) {
        this.log.warn(`Connection #${id} stopped answering pings; dropping it`);
        heartbeat.ws.terminate();
        continue;
      }
      heartbeat.answered = false;
      try {
        heartbeat.ws.ping();
      } catch {
        heartbeat.ws.terminate(); // not open any more; 'close' removes it
      }
    }
  }
}

/** Binds the preferred port when it is free, else a random one, so a reload keeps the CLI's URL valid. */
async function listen(server: http.Server, host: string, preferred: number, log: Logger): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const onError = (error: Error) => {
        server.off('listening', onListening);
        reject(error);
      };
      const onListening = () => {
        server.off('error', onError);
        resolve((server.address() as AddressInfo).port);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, host);
    });
  if (preferred > 0) {
    try {
      return await tryPort(preferred);
    } catch (error) {
      log.info(`Port ${preferred} is not available (${(error as NodeJS.ErrnoException).code}); using a new random port`);
    }
  }
  return tryPort(0);
}
