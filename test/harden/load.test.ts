import { INITIALIZE, rawConnect, textFrame } from '../support/rawWebSocket';
import { connectClient } from '../support/serverFixture';
import { FAST, HardenServer, MiB, figures, probe } from './support/hardenServer';

// Load: many well-behaved clients at once (0 errors), connection churn (file descriptors back to
// where they were), and one client that never reads (the server's memory stays bounded).

const CLIENTS = 20;
const CALLS = FAST ? 50 : 1000;
const CHURN = 200;

describe('load', () => {
  let server: HardenServer;
  beforeAll(async () => {
    server = await HardenServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  test(`${CLIENTS} clients × ${CALLS} calls on each route, 0 errors`, async () => {
    const started = Date.now();
    const results = await Promise.all(
      ['', '/tools'].flatMap((route) =>
        Array.from({ length: CLIENTS }, async (_, c) => {
          const { client } = await connectClient(`${server.url}${route}`);
          let errors = 0;
          let wrong = 0;
          for (let i = 0; i < CALLS; i++) {
            const text = `${route}-${c}-${i}`;
            try {
              const result = await client.callTool({ name: 'echo', arguments: { text } });
              if ((result.content as Array<{ text: string }>)[0]?.text !== text || result.isError) wrong++;
            } catch {
              errors++;
            }
          }
          await client.close();
          return { errors, wrong };
        }),
      ),
    );
    const errors = results.reduce((n, r) => n + r.errors, 0);
    const wrong = results.reduce((n, r) => n + r.wrong, 0);
    const stats = await server.stats();
    const seconds = (Date.now() - started) / 1000;
    figures('load', {
      clients: CLIENTS * 2,
      calls: CLIENTS * 2 * CALLS,
      errors,
      wrongAnswers: wrong,
      callsPerSecond: Math.round((CLIENTS * 2 * CALLS) / seconds),
      serverRssMiB: (stats.rss / MiB).toFixed(1),
      crashes: server.alive ? 0 : 1,
    });
    expect(errors).toBe(0);
    expect(wrong).toBe(0);
    expect(server.alive).toBe(true);
    expect(await server.connectionsSettle(0)).toBe(0);
  }, 600_000);

  test(`${CHURN}-connection churn leaves the server's file descriptors where they were`, async () => {
    expect(await probe(server.url)).toBe(true);
    await server.connectionsSettle(0);
    const before = await server.stats();
    const clients = await Promise.all(Array.from({ length: CHURN }, (_, i) => connectClient(`${server.url}${i % 2 ? '/tools' : ''}`)));
    const peakConnections = (await server.stats()).connections;
    // Half close politely, half just drop the TCP connection.
    await Promise.all(clients.map(({ client, transport }, i) => (i % 2 ? client.close() : Promise.resolve(transport.socket!.terminate()))));
    const left = await server.connectionsSettle(0, 5000);
    let after = await server.stats();
    for (let tries = 0; after.fds > before.fds && tries < 100; tries++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await server.stats();
    }
    figures('churn', {
      connections: CHURN,
      peakConnections,
      connectionsLeft: left,
      fdsBefore: before.fds,
      fdsAfter: after.fds,
      heapBeforeMiB: (before.heapUsed / MiB).toFixed(1),
      heapAfterMiB: (after.heapUsed / MiB).toFixed(1),
    });
    expect(peakConnections).toBe(CHURN);
    expect(left).toBe(0);
    expect(after.fds).toBeLessThanOrEqual(before.fds);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(16 * MiB);
  }, 120_000);

  /** A raw client initializes, stops reading, and pipelines `calls` requests for 256 KiB answers each. */
  async function nonReadingClient(target: HardenServer, calls: number, maxPolls = 100) {
    const before = await target.stats();
    const { socket } = await rawConnect(target.port);
    socket.write(textFrame(INITIALIZE));
    socket.pause();
    const frames: Buffer[] = [];
    for (let i = 1; i <= calls; i++) frames.push(textFrame({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'blob', arguments: { n: i } } }));
    socket.write(Buffer.concat(frames));
    let peakRss = before.rss;
    let closed = false;
    for (let polls = 0; polls < maxPolls && !closed; polls++) {
      await new Promise((r) => setTimeout(r, 50));
      const stats = await target.stats();
      peakRss = Math.max(peakRss, stats.rss);
      closed = stats.connections === 0;
    }
    socket.destroy();
    const log = await target.log();
    return { closed, growthMiB: (peakRss - before.rss) / MiB, loggedReason: log.some((l) => /not reading/.test(l)) };
  }

  test('a client that never reads is closed and the server stays bounded (compared with the bound lifted)', async () => {
    const calls = 200; // 200 × 256 KiB = 50 MiB of answers
    const bounded = await nonReadingClient(server, calls);
    const unboundedServer = await HardenServer.start({ HARDEN_MAX_BUFFERED_BYTES: String(2 ** 40) });
    let unbounded: Awaited<ReturnType<typeof nonReadingClient>>;
    try {
      unbounded = await nonReadingClient(unboundedServer, calls, 40);
    } finally {
      await unboundedServer.stop();
    }
    figures('non-reading client', {
      calls,
      answerMiB: calls / 4,
      closedByServer: bounded.closed ? 1 : 0,
      rssGrowthMiB: bounded.growthMiB.toFixed(1),
      rssGrowthWithoutBoundMiB: unbounded.growthMiB.toFixed(1),
      closedWithoutBound: unbounded.closed ? 1 : 0,
    });
    expect(bounded.closed).toBe(true);
    expect(bounded.loggedReason).toBe(true);
    expect(bounded.growthMiB).toBeLessThan(48);
    expect(bounded.growthMiB).toBeLessThan(unbounded.growthMiB / 2);
    expect(await probe(server.url)).toBe(true);
  }, 120_000);
});
