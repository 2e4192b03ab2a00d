import WebSocket from 'ws';
import { AUTH_HEADER } from '../../src/server/auth';
import { rawConnect } from '../support/rawWebSocket';
import { TEST_TOKEN } from '../support/serverFixture';
import { Fuzz, type FuzzMessage } from './support/fuzzInputs';
import { FAST, HardenServer, MiB, figures, probe } from './support/hardenServer';

// ≥ 100,000 malformed messages and frames from a fixed seed on both routes (HARDEN_FAST=1: 5,000).
// After every batch: the server process is alive, a fresh client's ping is answered within 1 s,
// every request id got exactly one answer, nothing answered a response or an unknown id, every
// protocol violation was closed with its code, and no connection outlived its client.

const SEED = Number(process.env.HARDEN_SEED ?? 20261123);
const BATCHES = FAST ? 5 : 100;
const MESSAGES_PER_BATCH = 950;
const FRAMES_PER_BATCH = 50;
const CONNECTIONS_PER_BATCH = 10;
const MAX_MESSAGE_BYTES = 256 * 1024;
const ROUTES = ['/', '/tools'] as const;

type Id = number | string;

interface Tally {
  inputs: number;
  messages: number;
  frames: number;
  answered: number;
  missingAnswers: string[];
  duplicateAnswers: string[];
  forbiddenAnswers: string[];
  nullAnswers: number;
  nullAnswersAllowed: number;
  unexpectedCloses: string[];
  closeCodes: Record<string, number>;
  wrongCloseCodes: string[];
  failedProbes: number;
  leftConnections: number[];
  heapPeak: number;
  rssPeak: number;
}

function openClient(url: string): Promise<{ ws: WebSocket; answers: Map<Id | null, number>; closes: Array<{ code: number; reason: string }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN }, maxPayload: 0 });
    const answers = new Map<Id | null, number>();
    const closes: Array<{ code: number; reason: string }> = [];
    ws.on('message', (data) => {
      const id = (JSON.parse(data.toString()) as { id?: Id | null }).id;
      if (id === undefined) return; // a notification from the server
      answers.set(id, (answers.get(id) ?? 0) + 1);
    });
    ws.on('close', (code, reason) => closes.push({ code, reason: reason.toString() }));
    ws.once('open', () => resolve({ ws, answers, closes }));
    ws.once('error', reject);
  });
}

async function until(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/** One batch of JSON-RPC messages spread over connections on both routes. */
async function messageBatch(server: HardenServer, fuzz: Fuzz, batch: number, tally: Tally): Promise<void> {
  const clients = await Promise.all(Array.from({ length: CONNECTIONS_PER_BATCH }, (_, i) => openClient(`${server.url}${ROUTES[i % 2]}`)));
  const expected = clients.map(() => ({ answers: [] as Id[], forbidden: [] as Id[], nullAllowed: 0 }));
  clients.forEach((client, i) => {
    // Most connections initialize first; some never do, and must get "not initialized" answers.
    if (fuzz.chance(0.8)) {
      const id = `init-${batch}-${i}`;
      client.ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
        }),
      );
      expected[i].answers.push(id);
    }
  });
  for (let n = 0; n < MESSAGES_PER_BATCH; n++) {
    const i = fuzz.int(clients.length);
    const input: FuzzMessage = fuzz.message();
    clients[i].ws.send(input.binary ? Buffer.from(input.text) : input.text, { binary: input.binary ?? false });
    expected[i].answers.push(...(input.answers ?? []));
    expected[i].forbidden.push(...(input.forbidden ?? []));
    expected[i].nullAllowed += input.nullAnswers ?? 0;
    tally.inputs++;
    tally.messages++;
  }
  // A last ping per connection: answers are sent in order of completion, so wait for all of them.
  clients.forEach((client, i) => {
    const id = `last-${batch}-${i}`;
    client.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    expected[i].answers.push(id);
  });
  const allAnswered = () => clients.every((c, i) => c.closes.length > 0 || expected[i].answers.every((id) => c.answers.has(id)));
  await until(allAnswered, 10_000);

  clients.forEach((client, i) => {
    const where = `batch ${batch} connection ${i}`;
    for (const id of expected[i].answers) {
      const count = client.answers.get(id) ?? 0;
      if (count === 0) tally.missingAnswers.push(`${where} id ${String(id)}`);
      if (count > 1) tally.duplicateAnswers.push(`${where} id ${String(id)} ×${count}`);
      tally.answered += Math.min(count, 1);
    }
    for (const id of expected[i].forbidden) if (client.answers.has(id)) tally.forbiddenAnswers.push(`${where} id ${String(id)}`);
    tally.nullAnswers += client.answers.get(null) ?? 0;
    tally.nullAnswersAllowed += expected[i].nullAllowed;
    if (client.closes.length) tally.unexpectedCloses.push(`${where}: ${JSON.stringify(client.closes[0])}`);
  });
  await Promise.all(
    clients.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.ws.readyState === WebSocket.CLOSED) return resolve();
          c.ws.once('close', () => resolve());
          c.ws.close();
        }),
    ),
  );
}

/** One batch of WebSocket protocol violations, each on its own connection. */
async function frameBatch(server: HardenServer, fuzz: Fuzz, batch: number, tally: Tally): Promise<void> {
  const inputs = Array.from({ length: FRAMES_PER_BATCH }, () => fuzz.frame(MAX_MESSAGE_BYTES));
  const concurrency = 10;
  for (let start = 0; start < inputs.length; start += concurrency) {
    await Promise.all(
      inputs.slice(start, start + concurrency).map(async (input, k) => {
        const route = ROUTES[(start + k) % 2];
        const { socket, reader } = await rawConnect(server.port, { path: route });
        for (const frame of input.frames) socket.write(frame);
        await until(() => reader.closeCode !== undefined || reader.ended, 3000);
        const code = reader.closeCode ?? 'none';
        tally.closeCodes[`${input.kind}→${code}`] = (tally.closeCodes[`${input.kind}→${code}`] ?? 0) + 1;
        if (code !== input.close) tally.wrongCloseCodes.push(`batch ${batch} ${input.kind} on ${route}: ${code}, expected ${input.close}`);
        socket.destroy();
        tally.inputs++;
        tally.frames++;
      }),
    );
  }
}

describe('fuzz: malformed frames and JSON-RPC messages', () => {
  let server: HardenServer;
  beforeAll(async () => {
    server = await HardenServer.start({ HARDEN_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES) });
  });
  afterAll(async () => {
    await server.stop();
  });

  test(
    `${BATCHES * (MESSAGES_PER_BATCH + FRAMES_PER_BATCH)} inputs from seed ${SEED}: no crash, no hang, one answer per id, right close codes, bounded heap, no connection left`,
    async () => {
      const fuzz = new Fuzz(SEED);
      const tally: Tally = {
        inputs: 0,
        messages: 0,
        frames: 0,
        answered: 0,
        missingAnswers: [],
        duplicateAnswers: [],
        forbiddenAnswers: [],
        nullAnswers: 0,
        nullAnswersAllowed: 0,
        unexpectedCloses: [],
        closeCodes: {},
        wrongCloseCodes: [],
        failedProbes: 0,
        leftConnections: [],
        heapPeak: 0,
        rssPeak: 0,
      };
      expect(await probe(server.url)).toBe(true);
      const baseline = await server.stats();
      const started = Date.now();
      let stoppedBy: string | undefined;
      for (let batch = 0; batch < BATCHES && server.alive && !stoppedBy; batch++) {
        try {
          await messageBatch(server, fuzz, batch, tally);
          await frameBatch(server, fuzz, batch, tally);
        } catch (error) {
          stoppedBy = `batch ${batch}: ${(error as Error).message}`;
          break;
        }
        for (const route of ROUTES) if (!(await probe(`${server.url}${route}`))) tally.failedProbes++;
        const left = await server.connectionsSettle(0, 3000);
        if (left > 0) tally.leftConnections.push(left);
        const stats = await server.stats();
        tally.heapPeak = Math.max(tally.heapPeak, stats.heapUsed);
        tally.rssPeak = Math.max(tally.rssPeak, stats.rss);
      }
      const final = server.alive ? await server.stats() : undefined;
      figures('fuzz', {
        seed: SEED,
        inputs: tally.inputs,
        messages: tally.messages,
        frames: tally.frames,
        crashes: server.alive ? 0 : 1,
        stoppedBy: stoppedBy ?? 'none',
        requestIdsAnswered: tally.answered,
        missingAnswers: tally.missingAnswers.length,
        duplicateAnswers: tally.duplicateAnswers.length,
        answersToResponsesOrUnknownIds: tally.forbiddenAnswers.length,
        nullIdAnswers: tally.nullAnswers,
        unexpectedCloses: tally.unexpectedCloses.length,
        wrongCloseCodes: tally.wrongCloseCodes.length,
        failedProbes: tally.failedProbes,
        connectionsLeft: tally.leftConnections.length,
        heapBaselineMiB: (baseline.heapUsed / MiB).toFixed(1),
        heapPeakMiB: (tally.heapPeak / MiB).toFixed(1),
        heapFinalMiB: final ? (final.heapUsed / MiB).toFixed(1) : 'n/a',
        rssPeakMiB: (tally.rssPeak / MiB).toFixed(1),
        longestLogLine: final?.longestLogLine ?? 'n/a',
        logLines: final?.logLines ?? 'n/a',
        seconds: ((Date.now() - started) / 1000).toFixed(1),
      });

      console.log(`fuzz close codes: ${JSON.stringify(tally.closeCodes)}`);
      expect({ alive: server.alive, stoppedBy, exit: server.exit, stderr: server.stderr.slice(0, 500) }).toEqual({
        alive: true,
        stoppedBy: undefined,
        exit: undefined,
        stderr: '',
      });
      expect(tally.inputs).toBe(BATCHES * (MESSAGES_PER_BATCH + FRAMES_PER_BATCH));
      expect(tally.missingAnswers.slice(0, 10)).toEqual([]);
      expect(tally.duplicateAnswers.slice(0, 10)).toEqual([]);
      expect(tally.forbiddenAnswers.slice(0, 10)).toEqual([]);
      expect(tally.nullAnswers).toBeLessThanOrEqual(tally.nullAnswersAllowed);
      expect(tally.unexpectedCloses.slice(0, 10)).toEqual([]);
      expect(tally.wrongCloseCodes.slice(0, 10)).toEqual([]);
      expect(tally.failedProbes).toBe(0);
      expect(tally.leftConnections).toEqual([]);
      // Bounded: the peak is a few batches' worth of buffers, and what stays after the last batch is no leak.
      expect(tally.heapPeak - baseline.heapUsed).toBeLessThan(96 * MiB);
      expect(final!.heapUsed - baseline.heapUsed).toBeLessThan(24 * MiB);
      expect(final!.longestLogLine).toBeLessThanOrEqual(1100);
    },
    FAST ? 120_000 : 1_800_000,
  );
});
