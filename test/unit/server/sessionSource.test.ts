import { EventEmitter } from 'node:events';
import type { IdeBridge } from '../../../src/server/ideBridge';
import type { Connection, SessionHandle } from '../../../src/server/ideServer';
import { bridgeSessionSource, type IdeSession, type SessionBridge } from '../../../src/server/sessionSource';

// Compile-time: the real bridge fits what the selection code needs from it.
const realBridgeFits = (bridge: IdeBridge): SessionBridge => bridge;
void realBridgeFits;

type FakeConnection = Pick<Connection, 'id' | 'cliPid' | 'session'>;

class FakeServer extends EventEmitter<{ ideSession: [Connection] }> {
  readonly live: FakeConnection[] = [];
  sessionConnections(): FakeConnection[] {
    return this.live.filter((c) => c.cliPid !== undefined);
  }
  connections(): Connection[] {
    return this.live as Connection[];
  }
  /** As IdeServer answers for IDE sessions; a tools-route owner is connectionIdentity.ts's (test/integration/toolsRouteOwner.test.ts). */
  claudeOf(connection: Connection): Connection | undefined {
    return connection.cliPid !== undefined ? connection : undefined;
  }
  announce(connection: FakeConnection): void {
    this.live.push(connection);
    this.emit('ideSession', connection as Connection);
  }
}

class FakeBridge extends EventEmitter<{ change: [] }> {
  ideServer: FakeServer | undefined;
  replace(server: FakeServer | undefined): void {
    this.ideServer = server;
    this.emit('change');
  }
}

const handle = (log: string[], name: string): SessionHandle => ({
  notify: async (method) => void log.push(`${name}:${method}`),
});

describe('selection session source', () => {
  test('hears new sessions across server restarts, and only from the current server', () => {
    const bridge = new FakeBridge();
    const source = bridgeSessionSource(bridge);
    const heard: number[] = [];
    source.onDidConnect((s) => heard.push(s.id));

    const first = new FakeServer();
    bridge.replace(first);
    first.announce({ id: 1, cliPid: 11, session: handle([], 'a') });
    const second = new FakeServer();
    bridge.replace(second);
    first.announce({ id: 2, cliPid: 12, session: handle([], 'b') });
    second.announce({ id: 3, cliPid: 13, session: handle([], 'c') });
    expect(heard).toEqual([1, 3]);

    source.dispose();
    second.announce({ id: 4, cliPid: 14, session: handle([], 'd') });
    expect(heard).toEqual([1, 3]);
    expect(second.listenerCount('ideSession')).toBe(0);
    expect(bridge.listenerCount('change')).toBe(0);
  });

  test('lists only IDE sessions with an MCP session, maps pid 0 to unknown, and sends through the session', async () => {
    const bridge = new FakeBridge();
    const source = bridgeSessionSource(bridge);
    expect(source.sessions()).toEqual([]);
    const server = new FakeServer();
    bridge.replace(server);
    const log: string[] = [];
    server.live.push({ id: 1, cliPid: 0, session: handle(log, 'one') }, { id: 2, cliPid: 22 }, { id: 3, session: handle(log, 'tools') });
    const sessions: IdeSession[] = source.sessions();
    expect(sessions.map((s) => [s.id, s.cliPid])).toEqual([[1, undefined]]);
    await sessions[0].notify('selection_changed', {});
    expect(log).toEqual(['one:selection_changed']);
  });

  test('a session announced before its MCP handle exists rejects sends with a reason instead of throwing', async () => {
    const bridge = new FakeBridge();
    const server = new FakeServer();
    bridge.replace(server);
    const source = bridgeSessionSource(bridge);
    const heard: IdeSession[] = [];
    source.onDidConnect((s) => heard.push(s));
    server.announce({ id: 9, cliPid: 99 });
    await expect(heard[0].notify('at_mentioned', {})).rejects.toThrow('connection #9 has no MCP session yet');
  });
  test("claudeOf, the one answer to 'which claude is connection N': an IDE session is itself, a tools-route connection its owner's, others none", () => {
    const bridge = new FakeBridge();
    const source = bridgeSessionSource(bridge);
    expect(source.claudeOf(1)).toBeUndefined(); // no server yet
    const server = new FakeServer();
    bridge.replace(server);
    const at = new Date(5);
    server.announce({ id: 1, cliPid: 11, pidCheck: 'verified', connectedAt: at } as FakeConnection);
    server.announce({ id: 2, cliPid: 22, pidCheck: 'unverified' } as FakeConnection);
    server.live.push({ id: 3, route: 'tools' } as FakeConnection, { id: 4, route: 'tools' } as FakeConnection);
    // The server's own answer for tools-route connections (connectionIdentity.ts): #3 is held by claude #1, #4 by none.
    server.claudeOf = (c) => (c.id === 3 ? (server.live[0] as Connection) : c.cliPid !== undefined ? c : undefined);
    expect(source.claudeOf(1)).toMatchObject({ id: 1, cliPid: 11, connectedAt: at });
    expect(source.claudeOf(3)).toMatchObject({ id: 1, cliPid: 11 });
    expect(source.claudeOf(4)).toBeUndefined();
    expect(source.claudeOf(99)).toBeUndefined();
    // An unverified announced pid is the session's, but never its trusted pid.
    expect(source.claudeOf(2)).toMatchObject({ id: 2, cliPid: undefined, claimedPid: 22 });
  });
});
