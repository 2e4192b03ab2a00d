import { spawn, type ChildProcess } from 'node:child_process';
import { spawnAnnouncer } from '../support/announcer';
import { bridgeSessionSource, type SessionBridge } from '../../src/server/sessionSource';
import type { Connection } from '../../src/server/ideServer';
import { connectClient, startTestServer, waitFor } from '../support/serverFixture';

// The pid a session announces in ide_connected is checked against the process holding the socket
// (src/server/peerProcess.ts, Linux /proc). Real sockets, real processes.

const describeLinux = process.platform === 'linux' ? describe : describe.skip;

function stop(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null) child.kill();
}

describeLinux('ide_connected pid checked against the connecting process', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  const children: ChildProcess[] = [];
  beforeEach(async () => (fixture = await startTestServer()));
  afterEach(async () => {
    children.splice(0).forEach(stop);
    await fixture.server.stop();
  });

  const checked = (connection: () => Connection | undefined) =>
    waitFor(() => connection()?.pidCheck !== undefined && connection()?.pidCheck !== 'pending', 3000, 'the pid check');

  test("a client claiming another process's pid (a spawned sleep) is unverified, and gets no cliPid", async () => {
    const sleep = spawn('sleep', ['30']);
    children.push(sleep);
    const sessions = bridgeSessionSource(bridgeOf(fixture.server));
    const checkedSessions: number[] = [];
    sessions.onDidCheckPid!((s) => checkedSessions.push(s.id));
    await connectClient(fixture.url, { announce: true, pid: sleep.pid });
    const connection = () => fixture.server.sessionConnections()[0];
    await checked(connection);
    expect(connection().pidCheck).toBe('unverified');
    expect(sessions.sessions()).toEqual([expect.objectContaining({ claimedPid: sleep.pid, pidCheck: 'unverified', cliPid: undefined })]);
    expect(checkedSessions).toEqual([connection().id]);
    expect(fixture.log.join('\n')).toMatch(
      new RegExp(`announced CLI pid ${sleep.pid}, which could not be verified \\(process ${sleep.pid} does not hold the connection's socket`),
    );
    sessions.dispose();
  });

  test('a pid with no such process is unverified', async () => {
    const sleep = spawn('sleep', ['0']);
    await new Promise((r) => sleep.once('exit', r));
    await connectClient(fixture.url, { announce: true, pid: sleep.pid });
    await checked(() => fixture.server.sessionConnections()[0]);
    expect(fixture.server.sessionConnections()[0].pidCheck).toBe('unverified');
  });

  test('a real child process connecting and claiming its own pid is verified', async () => {
    const sessions = bridgeSessionSource(bridgeOf(fixture.server));
    const child = await spawnAnnouncer(fixture.url);
    children.push(child.child);
    await waitFor(() => fixture.server.sessionConnections().length === 1, 3000, 'the child to announce itself');
    await checked(() => fixture.server.sessionConnections()[0]);
    expect(fixture.server.sessionConnections()[0]).toMatchObject({ cliPid: child.pid, pidCheck: 'verified' });
    expect(sessions.sessions()).toEqual([expect.objectContaining({ cliPid: child.pid, claimedPid: child.pid, pidCheck: 'verified' })]);
    const line = fixture.log.find((l) => /CLI pid \d+ verified in/.test(l));
    expect(line).toBeDefined();
    console.log(`pid check cost: ${line}`);
    sessions.dispose();
  });

  test("a child claiming this test process's pid (the parent) is unverified: an ancestor does not hold the socket", async () => {
    const child = await spawnAnnouncer(fixture.url, process.pid);
    children.push(child.child);
    await waitFor(() => fixture.server.sessionConnections().length === 1, 3000, 'the child to announce itself');
    await checked(() => fixture.server.sessionConnections()[0]);
    expect(fixture.server.sessionConnections()[0].pidCheck).toBe('unverified');
  });

  test('announcing again with another pid is checked again; a stale result does not stick', async () => {
    const { client } = await connectClient(fixture.url, { announce: true, pid: process.pid });
    const connection = () => fixture.server.sessionConnections()[0];
    await checked(connection);
    expect(connection().pidCheck).toBe('verified');
    const sleep = spawn('sleep', ['30']);
    children.push(sleep);
    await client.notification({ method: 'ide_connected', params: { pid: sleep.pid } });
    await waitFor(() => connection().cliPid === sleep.pid, 2000, 'the second announcement');
    await checked(connection);
    expect(connection().pidCheck).toBe('unverified');
  });
});

/** The part of IdeBridge that bridgeSessionSource follows, around one server. */
function bridgeOf(server: SessionBridge['ideServer']): SessionBridge {
  return { ideServer: server, on: () => undefined, off: () => undefined };
}

describe('pid checks are bounded', () => {
  test('a peer announcing over and over runs one check at a time, and the last pid announced is the one checked', async () => {
    let running = 0;
    let most = 0;
    const checked: number[] = [];
    const fixture = await startTestServer({
      checkPeerPid: async (_peer, pid) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 30));
        running--;
        checked.push(pid);
        return { result: pid === 4242 ? 'verified' : 'unverified' };
      },
    });
    try {
      const { client } = await connectClient(fixture.url, { announce: true, pid: 1001 });
      for (let pid = 1002; pid < 1050; pid++) await client.notification({ method: 'ide_connected', params: { pid } });
      await client.notification({ method: 'ide_connected', params: { pid: 4242 } });
      const connection = () => fixture.server.sessionConnections()[0];
      await waitFor(() => connection()?.cliPid === 4242 && connection().pidCheck === 'verified', 5000, 'the last pid checked');
      expect(most).toBe(1);
      expect(checked.length).toBeLessThan(10);
      expect(checked[checked.length - 1]).toBe(4242);
    } finally {
      await fixture.server.stop();
    }
  });
});
