// Hardening — the pid check (src/server/peerProcess.ts) found the peer's socket in /proc/net/tcp by its
// port alone. Every 127.0.0.N is loopback, so any local process with the token could connect from
// 127.0.0.N with the real claude's source port and announce claude's pid: "verified" (the 2nd address
// of 16 tried in the reproduction), and on /tools such a connection was attributed to that claude. The
// check now matches the peer's full address and port. Its 2 s time limit also did not stop its work: a
// peer announcing again after a time-out started a second scan beside the first. Real server, real
// sockets bound to 127.0.0.N, a real separate process as claude.

import WebSocket from 'ws';
import { AUTH_HEADER } from '../../src/server/auth';
import type { PeerPidCheck } from '../../src/server/peerProcess';
import { spawnAnnouncer, type Announcer } from '../support/announcer';
import { INITIALIZE } from '../support/rawWebSocket';
import { connectClient, startTestServer, TEST_TOKEN, waitFor } from '../support/serverFixture';
import { figures } from './support/hardenServer';

jest.setTimeout(60_000);

const describeLinux = process.platform === 'linux' ? describe : describe.skip;
/** The loopback addresses tried as the forger's source (the reproduction's 16). */
const ADDRESSES = Array.from({ length: 16 }, (_, i) => `127.0.0.${i + 2}`);

/** A token holder connecting from `host`:`port` (another loopback address, claude's source port); announces `pid` on the IDE route. */
async function connectFrom(url: string, host: string, port: number, pid?: number): Promise<WebSocket | undefined> {
  const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN }, localAddress: host, localPort: port });
  const opened = await new Promise<boolean>((resolve) => (ws.once('open', () => resolve(true)), ws.once('error', () => resolve(false))));
  if (!opened) return undefined;
  const initialized = new Promise((resolve) => ws.on('message', (data) => (JSON.parse(String(data)) as { id?: number }).id === 0 && resolve(undefined)));
  ws.send(JSON.stringify(INITIALIZE));
  await initialized;
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  if (pid !== undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid } }));
  return ws;
}

describeLinux("hardening: the pid check matches the peer's address and port, one check at a time", () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  let claude: Announcer | undefined;
  const sockets: WebSocket[] = [];
  afterEach(async () => {
    sockets.splice(0).forEach((ws) => ws.terminate());
    claude?.stop();
    await fixture.server.stop();
  });

  /** Closes a forger's socket and waits until the server has only `left` connections. */
  async function closed(ws: WebSocket, left: number) {
    ws.terminate();
    await waitFor(() => fixture.server.connections().length === left, 5000, 'the socket closed');
  }

  async function claudeVerified() {
    fixture = await startTestServer();
    claude = await spawnAnnouncer(fixture.url);
    await waitFor(() => fixture.server.sessionConnections()[0]?.pidCheck === 'verified', 5000, 'claude verified');
    return claude;
  }

  test("a forger on 127.0.0.N with claude's source port, announcing claude's pid, is never verified", async () => {
    const { pid, localPort } = await claudeVerified();
    let connected = 0;
    const verified: string[] = [];
    for (const host of ADDRESSES) {
      const ws = await connectFrom(fixture.url, host, localPort, pid);
      if (!ws) continue;
      connected++;
      const forged = () => fixture.server.sessionConnections().find((c) => c.id !== fixture.server.sessionConnections()[0].id);
      await waitFor(() => forged() !== undefined && forged()!.pidCheck !== 'pending', 5000, `the check of ${host}`);
      if (forged()!.pidCheck === 'verified') verified.push(host);
      // One forged socket at a time: /proc/net/tcp then holds only claude's row and this one with that port.
      await closed(ws, 1);
    }
    figures("forged pid from 127.0.0.N with claude's source port", { addressesConnected: connected, verified: verified.length, first: verified[0] ?? 'none' });
    expect(connected).toBeGreaterThan(0);
    expect(verified).toEqual([]);
    // claude itself stays verified.
    expect(fixture.server.sessionConnections()[0]).toMatchObject({ cliPid: pid, pidCheck: 'verified' });
  });

  test("a /tools connection from 127.0.0.N with claude's source port is not attributed to that claude", async () => {
    const { localPort } = await claudeVerified();
    let connected = 0;
    const attributed: string[] = [];
    for (const host of ADDRESSES) {
      const ws = await connectFrom(`${fixture.url}/tools`, host, localPort);
      if (!ws) continue;
      connected++;
      const tools = () =>
        fixture.server
          .connections()
          .filter((c) => c.route === 'tools')
          .at(-1)!;
      await waitFor(() => tools()?.owner !== undefined && tools().owner!.check !== 'pending', 5000, `the owner search of ${host}`);
      if (fixture.server.claudeOf(tools())) attributed.push(host);
      await closed(ws, 1);
    }
    figures("/tools from 127.0.0.N with claude's source port", {
      addressesConnected: connected,
      attributedToClaude: attributed.length,
      first: attributed[0] ?? 'none',
    });
    expect(connected).toBeGreaterThan(0);
    expect(attributed).toEqual([]);
  });

  test('a peer announcing again after the check timed out does not start a second check beside the first', async () => {
    let running = 0;
    let most = 0;
    const checked: number[] = [];
    // A scan slower than the 2 s limit (a /proc under load), whatever pid it is given.
    const slow: PeerPidCheck = async (_peer, pid) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 2600));
      running--;
      checked.push(pid);
      return { result: 'verified' };
    };
    fixture = await startTestServer({ checkPeerPid: slow });
    const { client } = await connectClient(fixture.url, { announce: true, pid: 1001 });
    const connection = () => fixture.server.sessionConnections()[0];
    await waitFor(() => connection()?.pidCheck === 'unverified', 5000, 'the time-out');
    await client.notification({ method: 'ide_connected', params: { pid: 1002 } });
    await waitFor(() => connection()?.cliPid === 1002 && connection().pidCheck !== 'pending', 10_000, 'the second pid decided');
    figures('re-announce after a time-out', { checksAtOnce: most, checked: checked.join(' ') });
    expect(most).toBe(1);
  });
});
