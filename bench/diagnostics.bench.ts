// getDiagnostics with 10,000 diagnostics: the round trip the CLI makes over the real socket
// (WebSocket → McpServer → tool → JSON → back) against the FLOOR measured in the same run: a bare
// `ws` server that builds the same list and sends the same JSON-RPC answer, to the same bare client
// (which parses the envelope and the list in both cases). The ratio is what this project's server adds.
// The CLI's budgets are 500 ms (with a uri) and 2,000 ms (without), docs/protocol.md#getdiagnostics.
// Run: npx ts-node --transpile-only bench/diagnostics.bench.ts

import { WebSocket, WebSocketServer } from 'ws';
import type { DiagnosticItem, DiagnosticsSource, FileDiagnostics } from '../src/host/diagnostics';
import { ideGetDiagnosticsTool } from '../src/tools/ideGetDiagnostics';
import { AUTH_HEADER } from '../src/server/auth';
import { TEST_TOKEN, startTestServer } from '../test/support/serverFixture';

const FILES = 500;
const PER_FILE = 20; // 500 × 20 = 10,000 diagnostics
const RUNS = 21;
/**
 * The server's own work on top of the floor: the SDK's request handling, the tool's wrapper and the
 * result check. Medians of 0.97–1.02× in three runs when this target was set (2026-11-25). It was an
 * absolute 25 ms before, measured with the SDK's Client, whose own validation of the answer was most
 * of the time and moved with the machine's load, not with this code.
 */
const TARGET_RATIO = 1.3;

/** A Problems panel of 10,000 entries, shaped like VS Code's (built fresh on every call, as the adapter does). */
function panel(): DiagnosticsSource {
  const raw = Array.from({ length: FILES }, (_, f) => ({
    path: `/work/project/src/module${f}/file${f}.ts`,
    items: Array.from({ length: PER_FILE }, (_, i) => ({ line: i * 3, message: `Property 'x${i}' does not exist on type 'T${f}'.` })),
  }));
  const convert = (items: { line: number; message: string }[]): DiagnosticItem[] =>
    items.map((d) => ({
      message: d.message,
      severity: 'Error',
      range: { start: { line: d.line, character: 4 }, end: { line: d.line, character: 9 } },
      source: 'ts',
      code: '2339',
    }));
  return {
    all: (): FileDiagnostics[] => raw.map((f) => ({ uri: `file://${f.path}`, diagnostics: convert(f.items) })),
    forFile: (p) => convert(raw.find((f) => f.path === p)?.items ?? []),
    onDidChange: () => ({ dispose: () => undefined }),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The lightest client: raw JSON-RPC over `ws`, parsing the answer and the list it carries, as the CLI must. */
class BareClient {
  private nextId = 1;
  private readonly pending = new Map<number, (message: { result?: { content: Array<{ text: string }> } }) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; result?: { content: Array<{ text: string }> } };
      const settle = message.id !== undefined ? this.pending.get(message.id) : undefined;
      if (settle) {
        this.pending.delete(message.id!);
        settle(message);
      }
    });
  }
  static open(url: string): Promise<BareClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN }, perMessageDeflate: false });
      ws.once('open', () => resolve(new BareClient(ws)));
      ws.once('error', reject);
    });
  }
  request(method: string, params: object): Promise<{ result?: { content: Array<{ text: string }> } }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }
  async handshake(): Promise<void> {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: 'bench' } });
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid: process.pid } }));
  }
  /** One getDiagnostics call; returns the list's length in diagnostics (parsed, as the CLI does). */
  async getDiagnostics(args: object): Promise<{ count: number; textLength: number }> {
    const answer = await this.request('tools/call', { name: 'getDiagnostics', arguments: args });
    const text = answer.result?.content[0]?.text ?? '';
    const list = JSON.parse(text) as FileDiagnostics[];
    return { count: list.reduce((n, f) => n + f.diagnostics.length, 0), textLength: text.length };
  }
  close(): void {
    this.ws.close();
  }
}

/** The floor: a bare `ws` server that answers tools/call with the same list in the same envelope. */
function startFloorServer(source: DiagnosticsSource): Promise<{ url: string; close(): void }> {
  return new Promise((resolve) => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false }, () => {
      const { port } = wss.address() as { port: number };
      resolve({ url: `ws://127.0.0.1:${port}`, close: () => wss.close() });
    });
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const request = JSON.parse(data.toString()) as { id?: number; method: string };
        if (request.id === undefined) return;
        const result = request.method === 'tools/call' ? { content: [{ type: 'text', text: JSON.stringify(source.all()) }] } : {};
        ws.send(JSON.stringify({ result, jsonrpc: '2.0', id: request.id }));
      });
    });
  });
}

async function main(): Promise<void> {
  const source = panel();
  const fixture = await startTestServer({ tools: { ide: [ideGetDiagnosticsTool(source)] } });
  const floorServer = await startFloorServer(source);
  const project = await BareClient.open(fixture.url);
  await project.handshake();
  const floor = await BareClient.open(floorServer.url);
  await floor.handshake();

  const projectMs: number[] = [];
  const floorMs: number[] = [];
  const ratios: number[] = [];
  const oneFile: number[] = [];
  let count = 0;
  // One warm-up round, then paired rounds in alternating order so both see the same load.
  for (let run = -1; run < RUNS; run++) {
    const timed = async (client: BareClient) => {
      const t = performance.now();
      const answer = await client.getDiagnostics({});
      return { ms: performance.now() - t, ...answer };
    };
    const [first, second] = run % 2 === 0 ? [project, floor] : [floor, project];
    const a = await timed(first);
    const b = await timed(second);
    const [p, f] = first === project ? [a, b] : [b, a];
    if (p.textLength !== f.textLength) throw new Error('the project answered a different list than the floor');
    count = p.count;
    const t = performance.now();
    await project.getDiagnostics({ uri: 'file:///work/project/src/module250/file250.ts' });
    if (run < 0) continue;
    oneFile.push(performance.now() - t);
    projectMs.push(p.ms);
    floorMs.push(f.ms);
    ratios.push(p.ms / f.ms);
  }
  project.close();
  floor.close();
  floorServer.close();
  await fixture.server.stop();
  const ratio = median(ratios);
  console.log(`getDiagnostics, ${count} diagnostics in ${FILES} files, median of ${RUNS} paired runs`);
  console.log(`  floor (bare ws server, same list):  ${median(floorMs).toFixed(1)} ms`);
  console.log(`  this project's server:              ${median(projectMs).toFixed(1)} ms   (CLI budget 2000 ms)`);
  console.log(
    `  ratio to the floor:                 ${ratio.toFixed(2)}x (runs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})   target ≤ ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? 'PASS' : 'MISS'}`,
  );
  console.log(`  one file (uri) round trip:          ${median(oneFile).toFixed(1)} ms   (CLI budget 500 ms)`);
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
