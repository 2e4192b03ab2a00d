// The transport against the raw socket, in one run: a raw `ws` echo server, the floor (a minimal
// JSON-RPC-over-ws server) and this project's real server (IdeBridge/IdeServer/McpServer with its
// tools), each in its own child process, all driven by the same client, interleaved in rounds.
// Every latency/throughput figure is a paired ratio to the echo server measured in the same round
// (median over rounds); server CPU comes from /proc/<pid>/stat, memory from /proc/<pid>/status.
//
// Run: npx ts-node --transpile-only bench/transport.bench.ts  (or npm run bench)
//   BENCH_ROUNDS=n (default 7)   BENCH_CPU_PROF=<dir>: the servers write --cpu-prof profiles there.
//
// The servers are bundled first with the extension's own webpack config in production mode (as
// `npm run build` ships dist/: minified, the real server's session code in a chunk loaded on the first
// connection), so they run as plain Node without a TypeScript loader inflating their memory.

import { fork, type ChildProcess } from 'node:child_process';
import { execSync } from 'node:child_process';
import { readFileSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import { AUTH_HEADER } from '../src/server/auth';
import { BENCH_TOKEN, BULK_PATH, SMALL_FILE, type ControlReply, type ControlRequest, type HeapSpaces } from './transport/shared';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SEQUENTIAL_CALLS = 1000;
const PARALLEL_CALLS = 3000;
const IN_FLIGHT = 16;
const HANDSHAKES = 30;
const NOTIFICATIONS = 3000;
const BULK_CALLS = 6;
const IDLE_CONNECTIONS = 100;
const CLOCK_TICK_US = 1e6 / Number(execSync('getconf CLK_TCK').toString().trim() || 100);

type Kind = 'echo' | 'floor' | 'real';
const KINDS: Kind[] = ['echo', 'floor', 'real'];

// ---------- the servers ----------

/**
 * Builds the three servers with the extension's own webpack.config.js in production mode, as
 * `npm run build` ships dist/ (minified, ES module builds where packages have them, the session code
 * in its own chunk). Only the entries, output and source maps differ. With profiles on, the bundles
 * are left unminified with module names (pathinfo) so bench/cpuProfileSummary.ts can name modules.
 */
async function bundleServers(outDir: string, forProfiles: boolean): Promise<string> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const webpack = require('webpack') as typeof import('webpack');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const shipped = require('../webpack.config.js') as import('webpack').Configuration;
  const config: import('webpack').Configuration = {
    ...shipped,
    mode: 'production',
    context: path.join(__dirname, '..'),
    entry: Object.fromEntries(KINDS.map((kind) => [kind, path.join(__dirname, 'transport', `${kind}Server.ts`)])),
    output: { ...shipped.output, path: outDir, filename: '[name].js', chunkFilename: '[name].[id].js', clean: false, pathinfo: forProfiles },
    // The shipped ts-loader options, without type checking (the bench and test/support are outside tsconfig.build.json).
    module: { rules: [{ test: /\.ts$/, exclude: /node_modules/, use: [{ loader: 'ts-loader', options: { ...shippedTsLoaderOptions(shipped), transpileOnly: true, configFile: path.join(__dirname, '..', 'tsconfig.build.json') } }] }] },
    devtool: false,
    optimization: { ...shipped.optimization, ...(forProfiles && { minimize: false, concatenateModules: false }) },
    infrastructureLogging: { level: 'error' },
  };
  await new Promise<void>((resolve, reject) =>
    webpack(config, (error, stats) => {
      if (error || stats?.hasErrors()) reject(error ?? new Error(stats?.toString('errors-only')));
      else resolve();
    }),
  );
  return outDir;
}

function shippedTsLoaderOptions(config: import('webpack').Configuration): Record<string, unknown> {
  const rule = config.module?.rules?.[0] as { use?: Array<{ loader: string; options?: Record<string, unknown> }> } | undefined;
  const tsLoader = rule?.use?.find((u) => u.loader === 'ts-loader');
  if (!tsLoader?.options) throw new Error('webpack.config.js no longer has its ts-loader rule first: update bench/transport.bench.ts');
  return tsLoader.options;
}

class ServerProcess {
  port = 0;
  private replies: Array<(reply: ControlReply) => void> = [];
  private constructor(
    readonly kind: Kind,
    readonly child: ChildProcess,
  ) {
    child.on('message', (reply: ControlReply) => this.replies.shift()?.(reply));
  }

  static async start(kind: Kind, bundleDir: string, profileDir?: string): Promise<ServerProcess> {
    const execArgv = ['--expose-gc', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${kind}.cpuprofile`] : [])];
    const server = new ServerProcess(kind, fork(path.join(bundleDir, `${kind}.js`), [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const ready = await server.next();
    if (ready.kind !== 'ready') throw new Error(`${kind} server did not start`);
    server.port = ready.port;
    return server;
  }

  private next(): Promise<ControlReply> {
    return new Promise((resolve) => this.replies.push(resolve));
  }

  async control(request: ControlRequest): Promise<ControlReply> {
    const reply = this.next();
    this.child.send(request);
    return reply;
  }

  /** User + system CPU of the whole process, in µs (clock-tick resolution). */
  cpuMicros(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US;
  }

  rssMb(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.disconnect(); // the server exits on disconnect (and writes its profile)
    await exited;
  }
}

// ---------- the client (the same for all three) ----------

class Peer {
  private nextId = 1;
  private readonly pending = new Map<number, () => void>();
  notifications = 0;
  private notificationWaiter?: { count: number; resolve: () => void };

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; method?: string };
      const waiter = message.id !== undefined ? this.pending.get(message.id) : undefined;
      if (waiter) {
        this.pending.delete(message.id!);
        waiter();
      } else if (message.method !== undefined) {
        this.notifications++;
        if (this.notificationWaiter && this.notifications >= this.notificationWaiter.count) this.notificationWaiter.resolve();
      }
    });
  }

  static open(port: number, urlPath = '/'): Promise<Peer> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${urlPath}`, ['mcp'], { headers: { [AUTH_HEADER]: BENCH_TOKEN }, perMessageDeflate: false });
      ws.once('open', () => resolve(new Peer(ws)));
      ws.once('error', reject);
    });
  }

  request(method: string, params: object): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  notify(method: string, params?: object): void {
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params && { params }) }));
  }

  /** What the claude CLI does on connecting: initialize, initialized, tools/list. */
  async handshake(): Promise<void> {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: 'bench' } });
    this.notify('notifications/initialized');
    await this.request('tools/list', {});
  }

  waitForNotifications(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.notifications = 0;
      this.notificationWaiter = { count, resolve };
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}

const smallCall = { name: 'getDiagnostics', arguments: { uri: `file://${SMALL_FILE}` } };
const bulkCall = { name: 'getDiagnostics', arguments: {} };
const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface RoundFigures {
  handshakeP50: number;
  callP50: number;
  cpuSequentialUs: number;
  callsPerSecond: number;
  cpuParallelUs: number;
  notificationsPerSecond: number;
  bulkP50: number;
}

interface Totals {
  sequentialCpu: number;
  sequentialCalls: number;
  parallelCpu: number;
  parallelCalls: number;
}

async function measureRound(server: ServerProcess, main: Peer, bulk: Peer, totals: Totals): Promise<RoundFigures> {
  const handshakes: number[] = [];
  for (let i = 0; i < HANDSHAKES; i++) {
    const t = now();
    const peer = await Peer.open(server.port);
    await peer.handshake();
    handshakes.push(now() - t);
    await peer.close();
  }

  const calls: number[] = [];
  let cpu = server.cpuMicros();
  for (let i = 0; i < SEQUENTIAL_CALLS; i++) {
    const t = now();
    await main.request('tools/call', smallCall);
    calls.push(now() - t);
  }
  const sequentialCpu = server.cpuMicros() - cpu;
  totals.sequentialCpu += sequentialCpu;
  totals.sequentialCalls += SEQUENTIAL_CALLS;

  cpu = server.cpuMicros();
  let issued = 0;
  const t = now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (issued < PARALLEL_CALLS) {
        issued++;
        await main.request('tools/call', smallCall);
      }
    }),
  );
  const parallelMs = now() - t;
  const parallelCpu = server.cpuMicros() - cpu;
  totals.parallelCpu += parallelCpu;
  totals.parallelCalls += PARALLEL_CALLS;

  const received = main.waitForNotifications(NOTIFICATIONS);
  const tn = now();
  await server.control({ kind: 'push', count: NOTIFICATIONS });
  await received;
  const notificationMs = now() - tn;

  const bulkTimes: number[] = [];
  for (let i = 0; i < BULK_CALLS; i++) {
    const tb = now();
    await bulk.request('tools/call', bulkCall);
    bulkTimes.push(now() - tb);
  }

  return {
    handshakeP50: median(handshakes),
    callP50: median(calls),
    cpuSequentialUs: sequentialCpu / SEQUENTIAL_CALLS,
    callsPerSecond: PARALLEL_CALLS / (parallelMs / 1000),
    cpuParallelUs: parallelCpu / PARALLEL_CALLS,
    notificationsPerSecond: NOTIFICATIONS / (notificationMs / 1000),
    bulkP50: median(bulkTimes),
  };
}

async function heapPerIdleConnection(server: ServerProcess): Promise<number> {
  const before = (await server.control({ kind: 'heap' })) as { heapUsed: number };
  const peers: Peer[] = [];
  for (let i = 0; i < IDLE_CONNECTIONS; i++) {
    const peer = await Peer.open(server.port);
    await peer.handshake();
    peers.push(peer);
  }
  const after = (await server.control({ kind: 'heap' })) as { heapUsed: number };
  await Promise.all(peers.map((p) => p.close()));
  return (after.heapUsed - before.heapUsed) / IDLE_CONNECTIONS / 1024;
}

// ---------- the report ----------

type Row = { measure: string; unit: string; echo: string; floor: string; real: string; target: string; pass?: boolean };

async function main(): Promise<void> {
  const started = Date.now();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-transport-bench-'));
  const profileDir = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
  const servers: ServerProcess[] = [];
  try {
    // With profiles on, the bundles stay next to them so bench/cpuProfileSummary.ts can name modules.
    const bundle = await bundleServers(profileDir ?? work, profileDir !== undefined);
    for (const kind of KINDS) servers.push(await ServerProcess.start(kind, bundle, profileDir));
    await new Promise((r) => setTimeout(r, 500));
    const rssIdle = servers.map((s) => s.rssMb());

    const mains = await Promise.all(servers.map((s) => Peer.open(s.port)));
    const bulks = await Promise.all(servers.map((s) => Peer.open(s.port, BULK_PATH)));
    for (const [i, peer] of [...mains, ...bulks].entries()) {
      if (servers[i % 3].kind !== 'echo') await peer.handshake();
    }
    for (const [i, peer] of mains.entries()) if (servers[i].kind !== 'echo') peer.notify('ide_connected', { pid: process.pid });

    console.log(`${ROUNDS} rounds (+1 warm-up), servers in rotating order; per round: ${HANDSHAKES} handshakes, ${SEQUENTIAL_CALLS} sequential calls, ` +
      `${PARALLEL_CALLS} calls ${IN_FLIGHT} in flight, ${NOTIFICATIONS} notifications, ${BULK_CALLS} ~1 MB results`);
    const rounds: Record<Kind, RoundFigures>[] = [];
    const totals = KINDS.map(() => ({ sequentialCpu: 0, sequentialCalls: 0, parallelCpu: 0, parallelCalls: 0 }));
    for (let round = -1; round < ROUNDS; round++) {
      const figures = {} as Record<Kind, RoundFigures>;
      const scratch = KINDS.map(() => ({ sequentialCpu: 0, sequentialCalls: 0, parallelCpu: 0, parallelCalls: 0 }));
      for (let k = 0; k < 3; k++) {
        const i = (k + Math.max(round, 0)) % 3;
        figures[servers[i].kind] = await measureRound(servers[i], mains[i], bulks[i], round < 0 ? scratch[i] : totals[i]);
      }
      if (round >= 0) rounds.push(figures);
      process.stdout.write(round < 0 ? 'warm-up done; rounds: ' : `${round + 1} `);
    }
    console.log('\n');
    const rssAfter = servers.map((s) => s.rssMb());
    const spacesAfter: HeapSpaces[] = [];
    for (const server of servers) spacesAfter.push((await server.control({ kind: 'spaces' })) as HeapSpaces);
    await Promise.all([...mains, ...bulks].map((p) => p.close()));
    const heapPerConnection: number[] = [];
    for (const server of servers) heapPerConnection.push(await heapPerIdleConnection(server));

    // Paired ratio per round (kind / echo of the same round), then the median over rounds.
    const ratio = (kind: Kind, key: keyof RoundFigures) => median(rounds.map((r) => r[kind][key] / r.echo[key]));
    const spread = (kind: Kind, key: keyof RoundFigures) => {
      const all = rounds.map((r) => r[kind][key] / r.echo[key]);
      return `${Math.min(...all).toFixed(2)}–${Math.max(...all).toFixed(2)}`;
    };
    const abs = (kind: Kind, key: keyof RoundFigures) => median(rounds.map((r) => r[kind][key]));
    const cpuPerCall = (i: number, which: 'sequential' | 'parallel') =>
      which === 'sequential' ? totals[i].sequentialCpu / totals[i].sequentialCalls : totals[i].parallelCpu / totals[i].parallelCalls;
    const x = (n: number) => `${n.toFixed(2)}×`;
    const rows: Row[] = [];
    const ratioRow = (measure: string, key: keyof RoundFigures, unit: string, fmt: (n: number) => string, target: string, ok: (r: number) => boolean) => {
      const real = ratio('real', key);
      rows.push({
        measure,
        unit,
        echo: `${fmt(abs('echo', key))} ${unit}`,
        floor: x(ratio('floor', key)),
        real: `${x(real)} (rounds ${spread('real', key)})`,
        target,
        pass: ok(real),
      });
    };
    for (const which of ['sequential', 'parallel'] as const) {
      const [echo, floor, real] = [0, 1, 2].map((i) => cpuPerCall(i, which));
      const limit = which === 'sequential' ? 1.4 : 1.5;
      rows.push({
        measure: which === 'sequential' ? 'server CPU per sequential tools/call' : `server CPU per call, ${IN_FLIGHT} in flight`,
        unit: 'µs',
        echo: `${echo.toFixed(0)} µs`,
        floor: `${floor.toFixed(0)} µs`,
        real: `${real.toFixed(0)} µs = ${(real / floor).toFixed(2)}× floor`,
        target: `≤ ${limit}× floor (issue: ≤ ${which === 'sequential' ? 70 : 17} µs)`,
        pass: real / floor <= limit,
      });
    }
    ratioRow(`calls/s, ${IN_FLIGHT} in flight`, 'callsPerSecond', '/s', (n) => n.toFixed(0), '≥ 0.7× echo', (r) => r >= 0.7);
    ratioRow('connect → initialize → tools/list p50', 'handshakeP50', 'ms', (n) => n.toFixed(2), '≤ 1.2× echo', (r) => r <= 1.2);
    ratioRow('tools/call round trip p50', 'callP50', 'ms', (n) => n.toFixed(3), '≤ 1.3× echo', (r) => r <= 1.3);
    ratioRow('notifications pushed/s', 'notificationsPerSecond', '/s', (n) => n.toFixed(0), '≥ 0.8× echo', (r) => r >= 0.8);
    ratioRow('~1 MB result p50', 'bulkP50', 'ms', (n) => n.toFixed(2), '≤ 1.9× echo', (r) => r <= 1.9);
    rows.push({
      measure: 'RSS idle / after the run',
      unit: 'MB',
      echo: `${rssIdle[0].toFixed(0)} / ${rssAfter[0].toFixed(0)} MB`,
      floor: `${rssIdle[1].toFixed(0)} / ${rssAfter[1].toFixed(0)} MB`,
      real: `${rssIdle[2].toFixed(0)} / ${rssAfter[2].toFixed(0)} MB`,
      target: '≤ 55 / ≤ 80 MB',
      pass: rssIdle[2] <= 55 && rssAfter[2] <= 80,
    });
    const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
    const spaces = (i: number) => `${mb(spacesAfter[i].newSpace)} + ${mb(spacesAfter[i].oldSpacesUsed)} MB`;
    rows.push({
      measure: 'of which V8 young gen + rest of heap',
      unit: 'MB',
      echo: spaces(0),
      floor: spaces(1),
      real: spaces(2),
      target: '(reported: young gen is sized by V8)',
    });
    rows.push({
      measure: 'heap per idle connection (after GC)',
      unit: 'KB',
      echo: `${heapPerConnection[0].toFixed(1)} KB`,
      floor: `${heapPerConnection[1].toFixed(1)} KB`,
      real: `${heapPerConnection[2].toFixed(1)} KB`,
      target: '(reported)',
    });

    const widths = [40, 16, 14, 30, 40];
    const line = (cells: string[]) => cells.map((c, i) => (i < widths.length ? c.padEnd(widths[i]) : c)).join(' ');
    console.log(line(['measure', 'echo (absolute)', 'floor / echo', 'this project / echo', 'target', 'result']));
    for (const row of rows) console.log(line([row.measure, row.echo, row.floor, row.real, row.target, row.pass === undefined ? '' : row.pass ? 'PASS' : 'MISS']));
    console.log(`\nratios: median over ${ROUNDS} rounds of (server / echo of the same round); CPU: total /proc ticks over all rounds / calls`);
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    for (const server of servers) await server.stop().catch(() => undefined);
    await fs.rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
