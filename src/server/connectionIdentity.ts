import type { Socket } from 'node:net';
import type { Logger } from '../util/logger';
import type { Connection } from './ideServer';
import { startPeerPidCheck, pidTrusted, type PeerPidCheck, type PidCheck } from './peerProcess';

/** What the identity checks need from the server that owns the connections. */
export interface IdentityServer {
  /** The port the server listens on (a peer's socket is found by its pair of ports). */
  port(): number;
  isLive(id: number): boolean;
  connections(): Connection[];
  log: Logger;
  /** Rate-limited: a peer can trigger these at will. */
  peerWarn(message: string): void;
  changed(): void;
  pidChecked(connection: Connection): void;
}

/**
 * Which claude a connection is (the one answer the rest of the code asks, through
 * sessionSource.ts): an IDE session's announced pid, checked against the process holding its socket,
 * and the claude holding a tools-route connection's socket, found among the verified pids.
 */
export class ConnectionIdentity {
  /** Connections whose announced pid is being checked now. */
  private readonly checkingPid = new Set<number>();
  /** Per tools-route connection: its peer's address (read at accept) and the pids already tried as its owner. */
  private readonly toolsPeers = new Map<number, { peerHost: string | undefined; peerPort: number | undefined; tried: Set<number> }>();
  /** Owner searches run one at a time for the whole server: a burst of connections cannot fan out /proc reads. */
  private ownerSearch: Promise<void> = Promise.resolve();

  constructor(
    private readonly check: PeerPidCheck,
    private readonly server: IdentityServer,
  ) {}

  /** A tools-route connection was accepted: its peer's address is read now (gone once the socket closes), then its claude looked for. */
  toolsConnected(connection: Connection, socket: Socket): void {
    this.toolsPeers.set(connection.id, { peerHost: socket.remoteAddress, peerPort: socket.remotePort, tried: new Set() });
    this.findOwners([connection]);
  }

  closed(id: number): void {
    this.toolsPeers.delete(id);
  }

  /** An IDE session announced `pid` (again): it is checked, one check at a time per connection. */
  announced(connection: Connection, pid: number, socket: Socket): void {
    if (!this.checkingPid.has(connection.id)) void this.checkPid(connection, pid, socket);
  }

  /**
   * The IDE session of the claude that owns a connection: itself for an IDE session; for a tools-route
   * connection the one whose verified pid holds its socket. Where nothing can be checked (no `/proc`),
   * the only IDE session when there is exactly one; otherwise none, never a guess between several.
   */
  claudeOf(connection: Connection): Connection | undefined {
    if (connection.route === 'ide') return connection.cliPid !== undefined ? connection : undefined;
    const owner = connection.owner;
    const ide = this.server.connections().filter((c) => c.route === 'ide' && c.cliPid !== undefined);
    if (owner?.check === 'verified') return ide.find((c) => c.cliPid === owner.pid && c.pidCheck === 'verified');
    return owner?.check === 'unchecked' && ide.length === 1 ? ide[0] : undefined;
  }

  /**
   * Any token holder can send `ide_connected` with another claude's pid; until the pid is shown to hold
   * this connection's socket, the session is not placed in that claude's terminal (sessionSource.ts).
   * Runs after the announcement, never on the handshake, and one at a time per connection (a peer that
   * keeps announcing cannot fill the thread pool with /proc reads), also past a time-out: the next check
   * starts only once the running one's work ended, for the pid announced last if it is still undecided.
   */
  private async checkPid(connection: Connection, pid: number, socket: Socket): Promise<void> {
    const peerPort = socket.remotePort;
    const peerHost = socket.remoteAddress;
    const started = performance.now();
    this.checkingPid.add(connection.id);
    const run =
      peerPort === undefined || peerHost === undefined
        ? { outcome: Promise.resolve({ result: 'unverified' as const, reason: 'the socket closed' }), finished: Promise.resolve() }
        : startPeerPidCheck(this.check, { serverPort: this.server.port(), peerHost, peerPort }, pid);
    const outcome = await run.outcome;
    if (this.server.isLive(connection.id) && connection.pidCheck === 'pending' && connection.cliPid === pid) this.decidePid(connection, pid, outcome, started);
    await run.finished;
    this.checkingPid.delete(connection.id);
    // Announced again while this check ran (or overran its time limit): the pid announced last, now.
    if (this.server.isLive(connection.id) && connection.pidCheck === 'pending' && connection.cliPid) void this.checkPid(connection, connection.cliPid, socket);
  }

  private decidePid(connection: Connection, pid: number, outcome: { result: Exclude<PidCheck, 'pending'>; reason?: string }, started: number): void {
    connection.pidCheck = outcome.result;
    const took = `${(performance.now() - started).toFixed(1)} ms`;
    if (outcome.result === 'unverified') {
      this.server.peerWarn(
        `Connection #${connection.id} announced CLI pid ${pid}, which could not be verified (${outcome.reason}; ${took}): it is not matched to any terminal`,
      );
    } else {
      this.server.log.info(
        `Connection #${connection.id}: CLI pid ${pid} ${outcome.result === 'verified' ? 'verified' : `not checked (${outcome.reason})`} in ${took}`,
      );
    }
    this.server.changed();
    this.server.pidChecked(connection);
    // A claude's tools route may have connected before its IDE session's pid was known.
    if (pidTrusted(outcome.result) && connection.route === 'ide') {
      this.findOwners(this.server.connections().filter((c) => c.route === 'tools'));
    }
  }

  /**
   * Looks for the claude holding each tools-route connection's socket among the verified pids of the
   * IDE sessions, with the same check as an announced pid (peerProcess.ts): a token holder's own
   * connection to /tools is held by no claude, so its writes are never put on one. Only pids not tried
   * yet for that connection are checked (a few per window); the searches are queued one after another.
   */
  private findOwners(connections: Connection[]): void {
    // Settled ones are not searched again: a verified owner stays, and without /proc nothing can be learnt.
    const open = connections.filter((c) => c.owner?.check !== 'verified' && c.owner?.check !== 'unchecked');
    if (open.length === 0) return;
    for (const c of open) c.owner = { check: 'pending' };
    this.ownerSearch = this.ownerSearch.then(async () => {
      for (const connection of open) {
        try {
          await this.findOwner(connection);
        } catch (error) {
          this.server.log.error(`Connection #${connection.id}: looking for its claude failed: ${(error as Error).message}`);
        }
      }
    });
  }

  private async findOwner(connection: Connection): Promise<void> {
    const peer = this.toolsPeers.get(connection.id);
    // Queued before an earlier search found the owner: nothing left to look for.
    if (!peer || !this.server.isLive(connection.id) || connection.owner?.check === 'verified') return;
    const candidates = new Set(
      this.server
        .connections()
        .filter((c) => c.route === 'ide' && c.cliPid && pidTrusted(c.pidCheck) && !peer.tried.has(c.cliPid))
        .map((c) => c.cliPid!),
    );
    let outcome: { check: PidCheck; pid?: number } = { check: 'unverified' };
    const started = performance.now();
    for (const pid of candidates) {
      peer.tried.add(pid);
      let result: { result: Exclude<PidCheck, 'pending'> } = { result: 'unverified' };
      if (peer.peerPort !== undefined && peer.peerHost !== undefined) {
        const run = startPeerPidCheck(this.check, { serverPort: this.server.port(), peerHost: peer.peerHost, peerPort: peer.peerPort }, pid);
        result = await run.outcome;
        // One search at a time holds past a time-out too: the next check waits for this one's work.
        await run.finished;
      }
      if (result.result === 'verified') {
        outcome = { check: 'verified', pid };
        break;
      }
      if (result.result === 'unchecked') {
        outcome = { check: 'unchecked' };
        break;
      }
    }
    if (!this.server.isLive(connection.id)) return;
    connection.owner = outcome;
    const took = `${(performance.now() - started).toFixed(1)} ms`;
    this.server.log.info(
      outcome.check === 'verified'
        ? `Connection #${connection.id} (tools) belongs to the claude with pid ${outcome.pid} (${took})`
        : outcome.check === 'unchecked'
          ? `Connection #${connection.id} (tools): its claude cannot be checked on this platform`
          : `Connection #${connection.id} (tools): held by none of the ${candidates.size} verified claude pid(s) tried (${took}); its writes are not attributed to a session`,
    );
    this.server.changed();
  }
}
