import { peerPidCheckFor, type PeerPidCheck } from '../../src/server/peerProcess';
import type { Connection } from '../../src/server/ideServer';
import { claudeLikes, spawnClaudeLike, type ClaudeLikeProcess } from '../support/claudeLikeProcess';
import { newestConnection, startTestServer, waitFor } from '../support/serverFixture';

// A tools-route connection announces no pid: the server finds which claude owns it by checking which of
// the IDE sessions' verified pids holds its socket (src/server/peerProcess.ts, Linux /proc). Real
// sockets, real separate processes: one that holds its connections, one that holds only a /tools one.

jest.setTimeout(30_000);

const describeLinux = process.platform === 'linux' ? describe : describe.skip;

describeLinux('which claude owns a tools-route connection', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  const claudes = claudeLikes(() => fixture.url);
  /** Every pid the server checked, in order (the real /proc check underneath). */
  let checked: number[];

  beforeEach(async () => {
    checked = [];
    const real = peerPidCheckFor('linux');
    const counting: PeerPidCheck = (peer, pid) => (checked.push(pid), real(peer, pid));
    fixture = await startTestServer({ checkPeerPid: counting });
  });
  afterEach(async () => {
    claudes.stopAll();
    await fixture.server.stop();
  });

  const start = claudes.start;
  const newest = (route: 'ide' | 'tools', count: number) => newestConnection(fixture.server, route, count);
  const ownerSettled = (c: Connection) => waitFor(() => c.owner !== undefined && c.owner.check !== 'pending', 10_000, `connection #${c.id}'s owner`);
  const verified = (c: Connection) => waitFor(() => c.pidCheck === 'verified', 10_000, `connection #${c.id}'s pid verified`);

  test('IDE route first, then the tools route: owned by that claude', async () => {
    const claude = await start();
    await claude.openIde();
    const ide = await newest('ide', 1);
    await verified(ide);
    await claude.openTools();
    const tools = await newest('tools', 1);
    await ownerSettled(tools);
    expect(tools.owner).toEqual({ check: 'verified', pid: claude.pid });
    expect(fixture.server.claudeOf(tools)).toBe(ide);
    expect(fixture.log.join('\n')).toMatch(new RegExp(`#${tools.id} \\(tools\\) belongs to the claude with pid ${claude.pid} \\(\\d+\\.\\d ms\\)`));
    console.log(`owner search cost: ${fixture.log.find((l) => l.includes('(tools) belongs to'))}`);
  });

  test('tools route first, IDE route later: matched once the IDE session’s pid is verified', async () => {
    const claude = await start();
    await claude.openTools();
    const tools = await newest('tools', 1);
    await ownerSettled(tools);
    expect(tools.owner).toEqual({ check: 'unverified' });
    expect(fixture.server.claudeOf(tools)).toBeUndefined();
    await claude.openIde();
    const ide = await newest('ide', 1);
    await waitFor(() => tools.owner?.check === 'verified', 10_000, 'the owner found after the IDE session');
    expect(tools.owner).toEqual({ check: 'verified', pid: claude.pid });
    expect(fixture.server.claudeOf(tools)).toBe(ide);
  });

  test('two claudes, connected interleaved: each tools route is matched to its own claude', async () => {
    const [a, b] = [await start(), await start()];
    await a.openTools();
    const toolsA = await newest('tools', 1);
    await b.openIde();
    const ideB = await newest('ide', 1);
    await b.openTools();
    const toolsB = await newest('tools', 2);
    await a.openIde();
    const ideA = await newest('ide', 2);
    await waitFor(() => toolsA.owner?.check === 'verified' && toolsB.owner?.check === 'verified', 10_000, 'both owners').catch((e: Error) => {
      throw new Error(
        `${e.message}: ${JSON.stringify({ toolsA: toolsA.owner, toolsB: toolsB.owner, a: a.pid, b: b.pid, checked, log: fixture.log.slice(-12) })}`,
      );
    });
    expect([toolsA.owner?.pid, toolsB.owner?.pid]).toEqual([a.pid, b.pid]);
    expect(fixture.server.claudeOf(toolsA)).toBe(ideA);
    expect(fixture.server.claudeOf(toolsB)).toBe(ideB);
    // A pid is tried once per tools connection: at most one check per (tools connection, claude) pair,
    // besides the two IDE sessions' own checks.
    expect(checked.length).toBeLessThanOrEqual(2 + 2 * 2);
  });

  test("a process holding only a /tools connection (a token holder) is nobody's, even with a single claude connected", async () => {
    const claude = await start();
    await claude.openIde();
    const ide = await newest('ide', 1);
    await verified(ide);
    const intruder = await start();
    await intruder.openTools();
    const tools = await newest('tools', 1);
    await ownerSettled(tools);
    expect(tools.owner).toEqual({ check: 'unverified' });
    expect(fixture.server.claudeOf(tools)).toBeUndefined();
    expect(checked).toEqual([claude.pid, claude.pid]);
    // Announcing the claude's pid on the IDE route does not help it either: that pid is not verified there.
    await intruder.openIde(claude.pid);
    const forged = await newest('ide', 2);
    await waitFor(() => forged.pidCheck === 'unverified', 10_000, 'the forged pid refused');
    await new Promise((r) => setTimeout(r, 100));
    expect(tools.owner).toEqual({ check: 'unverified' });
    expect(fixture.server.claudeOf(tools)).toBeUndefined();
  });

  test('a tools connection is not searched again once its owner is known', async () => {
    const a = await start();
    await a.openIde();
    await verified(await newest('ide', 1));
    await a.openTools();
    const tools = await newest('tools', 1);
    await ownerSettled(tools);
    const b = await start();
    await b.openIde();
    await verified(await newest('ide', 2));
    await new Promise((r) => setTimeout(r, 100));
    expect(checked).toEqual([a.pid, a.pid, b.pid]);
    expect(tools.owner).toEqual({ check: 'verified', pid: a.pid });
  });
});

describe('without /proc (the check answers "unchecked")', () => {
  const unchecked: PeerPidCheck = async () => ({ result: 'unchecked' });

  test('the tools route is given to the only IDE session, and to none when there are two', async () => {
    const fixture = await startTestServer({ checkPeerPid: unchecked });
    const processes: ClaudeLikeProcess[] = [];
    try {
      const a = await spawnClaudeLike(fixture.url);
      processes.push(a);
      await a.openIde();
      await a.openTools();
      await waitFor(() => fixture.server.connections().length === 2, 10_000, 'both connections');
      const tools = fixture.server.connections().find((c) => c.route === 'tools')!;
      await waitFor(() => tools.owner?.check === 'unchecked', 10_000, 'the owner unchecked');
      const [ide] = fixture.server.sessionConnections();
      expect(fixture.server.claudeOf(tools)).toBe(ide);
      const b = await spawnClaudeLike(fixture.url);
      processes.push(b);
      await b.openIde();
      await waitFor(() => fixture.server.sessionConnections().length === 2, 10_000, 'the second session');
      expect(fixture.server.claudeOf(tools)).toBeUndefined();
    } finally {
      processes.forEach((p) => p.stop());
      await fixture.server.stop();
    }
  });
});
