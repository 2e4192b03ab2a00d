/**
 * The language bench's callers of the /tools route (test/vscode/suites/language-bench.test.ts): JSON-RPC
 * over a socket of their own (initialize, initialized, tools/list first, as claude does), each answer
 * JSON.parse'd and nothing more.
 *
 * `leanCaller` runs in the calling process. `outOfProcessCaller` runs it in a child process, as claude is
 * one: the client's framing and parsing then run on another thread than the extension host's (where the
 * server runs), and the call is timed there, from the request sent to the answer parsed. The child is
 * driven over Node's IPC channel, which is not timed. Run as a script, this file is that child.
 */
import { fork, type ChildProcess } from 'child_process';
import { performance } from 'perf_hooks';
import WebSocket from 'ws';
import { AUTH_HEADER } from '../../src/server/auth';

export type ToolAnswer = { isError: boolean; text: string };
export type ToolCaller = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

export async function leanCaller(port: number, authToken: string): Promise<ToolCaller & { close(): void }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/tools`, ['mcp'], { headers: { [AUTH_HEADER]: authToken }, perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (!waiter) return; // a notification
    pending.delete(message.id!);
    waiter(message);
  });
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'native-claude-language-bench', version: '0.0.0' } });
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  await request('tools/list', {});
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    const result = (await request('tools/call', { name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text?: string }> };
    return { isError: result.isError === true, text: result.content.map((c) => c.text ?? `[${c.type}]`).join('\n') };
  };
  return Object.assign(call, { close: () => ws.close() });
}

type Ask = { id: number; name: string; args: Record<string, unknown> };
type Told = { id: number; ms: number; answer?: ToolAnswer; error?: string } | { ready: true } | { failed: string };

/** A caller in a child process: each call answers with the time the child measured. */
export async function outOfProcessCaller(
  port: number,
  authToken: string,
): Promise<{ call(name: string, args: Record<string, unknown>): Promise<{ ms: number; answer: ToolAnswer }>; close(): void }> {
  // execArgv cleared: the extension host's own flags (an inspector port) are not the child's.
  const child: ChildProcess = fork(__filename, [], { execArgv: [], env: { ...process.env, NC_BENCH_PORT: String(port), NC_BENCH_TOKEN: authToken } });
  const waiting = new Map<number, (told: Told) => void>();
  let ready!: () => void;
  let failed!: (error: Error) => void;
  const started = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
  child.on('message', (told: Told) => {
    if ('ready' in told) return ready();
    if ('failed' in told) return failed(new Error(`the bench's child client: ${told.failed}`));
    waiting.get(told.id)?.(told);
    waiting.delete(told.id);
  });
  child.once('exit', (code) => {
    failed(new Error(`the bench's child client exited (${code})`));
    for (const w of waiting.values()) w({ id: -1, ms: 0, error: `the bench's child client exited (${code})` });
  });
  await started;
  let nextId = 1;
  return {
    call: (name, args) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, (told) => {
          if (!('id' in told) || told.error !== undefined || !told.answer) return reject(new Error(('error' in told && told.error) || 'no answer'));
          resolve({ ms: told.ms, answer: told.answer });
        });
        child.send({ id, name, args } satisfies Ask);
      }),
    close: () => child.kill(),
  };
}

if (require.main === module) {
  const tell = (told: Told) => process.send!(told);
  leanCaller(Number(process.env.NC_BENCH_PORT), process.env.NC_BENCH_TOKEN ?? '').then(
    (call) => {
      process.on('message', (ask: Ask) => {
        const at = performance.now();
        call(ask.name, ask.args).then(
          (answer) => tell({ id: ask.id, ms: performance.now() - at, answer }),
          (error: Error) => tell({ id: ask.id, ms: performance.now() - at, error: error.message }),
        );
      });
      // The parent gone: nothing left to answer.
      process.on('disconnect', () => (call.close(), process.exit(0)));
      tell({ ready: true });
    },
    (error: Error) => (tell({ failed: error.message }), process.exit(1)),
  );
}
