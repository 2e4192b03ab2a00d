import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import WebSocket, { WebSocketServer } from 'ws';
import { checkUpgradeRequest, type Route } from './auth';
import { WebSocketServerTransport } from './webSocketTransport';
import { clientFromUserAgent, CompatibilityNotices, describeClient, type ClientInfo } from './clientVersion';
import type { Logger } from '../util/logger';

/** The close code and reason the CLI reads as "superseded, do not reconnect" (ide-protocol.md §2.4). */
export const SUPERSEDED_CLOSE_CODE = 4001;
export const SUPERSEDED_CLOSE_REASON = 'Another Claude Code session connected to this IDE';

/** One accepted WebSocket connection and the MCP session that serves it. */
export interface Connection {
  readonly id: number;
  readonly route: Route;
  readonly connectedAt: Date;
  /** Set when the peer announced itself with `ide_connected`: it is a Claude Code IDE session. */
  cliPid?: number;
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
  /** How often to ping; a peer that missed the previous pong is dropped. */
  heartbeatMs?: number;
  host?: string;
  /** Remembers which out-of-range CLI versions were already warned about; share one per window. */
  compatibilityNotices?: CompatibilityNotices;
}

export interface IdeServerEvents {
  /** Connections were added or removed, or one became an IDE session. */
  change: [];
  /** A Claude Code session announced itself; it should be sent the current editor state. */
  ideSession: [Connection];
  /** A claude CLI outside the supported range connected; the message says what may not work and what to do (once per version). */
  unsupportedClient: [Connection, string];
}

/**
 * The window's WebSocket server: loopback only, token checked before the upgrade, one MCP session
 * per connection, newest Claude Code IDE session wins.
 */
export class IdeServer extends EventEmitter<IdeServerEvents> {
  private http?: http.Server;
  private wss?: WebSocketServer;
  private heartbeat?: NodeJS.Timeout;
  private nextId = 1;
  private readonly live = new Map<number, Connection>();
  /** Heartbeat state per connection: whether a pong came back since the last ping. */
  private readonly heartbeats = new Map<number, { ws: WebSocket; answered: boolean }>();
  private boundPort = 0;
  private readonly notices: CompatibilityNotices;

  constructor(private readonly options: IdeServerOptions) {
    super();
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

  ideSessions(): Connection[] {
    return this.connections().filter((c) => c.cliPid !== undefined);
  }

  async start(): Promise<number> {
    if (this.http) throw new Error('The IDE server is already running');
    const { log } = this.options;
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.options.maxMessageBytes ?? 16 * 1024 * 1024,
      // Echo `mcp`: the CLI's WebSocket client aborts the handshake without it (§2.2).
      handleProtocols: (offered) => (offered.has('mcp') ? 'mcp' : false),
      perMessageDeflate: false,
    });
    const server = http.createServer((_req, res) => {
      res.writeHead(426, { 'Content-Type': 'text/plain' }).end('This is the Claude Code IDE WebSocket server; connect with a WebSocket client.\n');
    });
    server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      const verdict = checkUpgradeRequest(req, this.options.token);
      if (!verdict.ok) {
        log.warn(`Refused a connection from ${req.socket.remoteAddress}: ${verdict.reason} (HTTP ${verdict.status})`);
        socket.end(`HTTP/1.1 ${verdict.status} ${http.STATUS_CODES[verdict.status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      const userAgent = req.headers['user-agent'];
      wss.handleUpgrade(req, socket, head, (ws) => void this.accept(ws, verdict.route, userAgent));
    });
    server.on('clientError', (_error, socket) => socket.destroy());
    this.http = server;
    this.wss = wss;
    this.boundPort = await listen(server, this.options.host ?? '127.0.0.1', this.options.preferredPort ?? 0, log);
    this.heartbeat = setInterval(() => this.checkHeartbeats(), this.options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
    log.info(`IDE server listening on ${this.options.host ?? '127.0.0.1'}:${this.boundPort}`);
    return this.boundPort;
  }

  async stop(): Promise<void> {
    const server = this.http;
    if (!server) return;
    this.http = undefined;
    clearInterval(this.heartbeat);
    for (const connection of this.live.values()) connection.close(1001, 'VS Code closed the Claude Code IDE server');
    this.wss?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections?.();
    this.options.log.info(`IDE server on port ${this.boundPort} stopped`);
  }

  private async accept(ws: WebSocket, route: Route, userAgent: string | undefined): Promise<void> {
    const { log } = this.options;
    const id = this.nextId++;
    const transport = new WebSocketServerTransport(ws);
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
    this.emit('change');

    ws.on('close', (code, reason) => {
      this.live.delete(id);
      this.heartbeats.delete(id);
      log.info(`Connection #${id} closed (code ${code}${reason.length ? `, ${reason.toString()}` : ''})`);
      this.emit('change');
    });
    ws.on('error', (error) => log.warn(`Connection #${id}: ${error.message}`));
    transport.onerror = (error) => log.warn(`Connection #${id}: ${error.message}`);

    try {
      connection.session = await this.options.createSession(connection, {
        ideConnected: (pid) => this.onIdeConnected(connection, pid),
        clientIdentified: (client) => this.onClientIdentified(connection, client),
      });
    } catch (error) {
      log.error(`Connection #${id}: could not start its MCP session: ${(error as Error).message}`);
      connection.close(1011, 'Internal error starting the MCP session');
    }
  }

  /** Logs who connected; a claude CLI outside the supported range is reported once per version. */
  private onClientIdentified(connection: Connection, client: ClientInfo): void {
    connection.client = client;
    this.options.log.info(`Connection #${connection.id} is ${describeClient(client)}`);
    const notice = this.notices.noticeFor(client);
    if (notice !== undefined) {
      this.options.log.warn(notice);
      this.emit('unsupportedClient', connection, notice);
    }
    this.emit('change');
  }

  /** Newest wins: earlier IDE sessions are told, with the code the CLI recognises, not to reconnect. */
  private onIdeConnected(connection: Connection, pid: number | undefined): void {
    connection.cliPid = pid ?? 0;
    this.options.log.info(`Connection #${connection.id} is a Claude Code session (CLI pid ${pid ?? 'unknown'})`);
    for (const other of this.live.values()) {
      if (other !== connection && other.cliPid !== undefined) {
        this.options.log.info(`Closing connection #${other.id}: superseded by #${connection.id}`);
        other.close(SUPERSEDED_CLOSE_CODE, SUPERSEDED_CLOSE_REASON);
      }
    }
    this.emit('change');
    this.emit('ideSession', connection);
  }

  /** Sends a notification to every Claude Code IDE session of this window; failures are logged, not thrown. */
  async notifyIdeSessions(method: string, params: Record<string, unknown>): Promise<number> {
    const targets = this.ideSessions().filter((c) => c.session);
    await Promise.all(
      targets.map((c) =>
        c.session!.notify(method, params).catch((error: Error) => this.options.log.warn(`Could not send ${method} to #${c.id}: ${error.message}`)),
      ),
    );
    return targets.length;
  }

  private checkHeartbeats(): void {
    for (const [id, heartbeat] of this.heartbeats) {
      if (!heartbeat.answered) {
        this.options.log.warn(`Connection #${id} stopped answering pings; dropping it`);
        heartbeat.ws.terminate();
        continue;
      }
      heartbeat.answered = false;
      heartbeat.ws.ping();
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
