import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import WebSocket from 'ws';
import { AUTH_HEADER } from '../../../src/server/auth';
import { TEST_TOKEN } from '../../support/serverFixture';

export interface ServerStats {
  rss: number;
  heapUsed: number;
  connections: number;
  fds: number;
  logLines: number;
  longestLogLine: number;
}

/** Whether the suite runs its fast subset (the normal test command) or the full attack (`npm run harden`). */
export const FAST = process.env.HARDEN_FAST === '1';

export const MiB = 2 ** 20;

/** The server in its own process (serverProcess.ts), so a crash shows as an exit and memory is its own. */
export class HardenServer {
  port = 0;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  stderr = '';
  private nextId = 1;
  private readonly waiting = new Map<number, (body: unknown) => void>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id?: number; body?: unknown }) => {
      if (message.id !== undefined) {
        this.waiting.get(message.id)?.(message.body);
        this.waiting.delete(message.id);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-20_000)));
    child.on('exit', (code, signal) => (this.exit = { code, signal }));
  }

  static async start(env: Record<string, string> = {}): Promise<HardenServer> {
    const root = path.resolve(__dirname, '../../..');
    const child = fork(path.join(__dirname, 'serverProcess.ts'), [], {
      cwd: root,
      execArgv: ['-r', 'ts-node/register/transpile-only', '--expose-gc'],
      env: { ...process.env, HARDEN_TOKEN: TEST_TOKEN, ...env },
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const server = new HardenServer(child);
    server.port = await new Promise<number>((resolve, reject) => {
      child.on('message', (m: { type?: string; port?: number }) => m.type === 'ready' && resolve(m.port!));
      child.once('exit', (code) => reject(new Error(`server process exited (${code}) before listening: ${server.stderr}`)));
    });
    return server;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** True while the server process is alive: the "no crash" check. */
  get alive(): boolean {
    return this.exit === undefined;
  }

  private request<T>(type: string): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`the server process is gone (${JSON.stringify(this.exit)}): ${this.stderr}`));
    const id = this.nextId++;
    return new Promise<T>((resolve) => {
      this.waiting.set(id, resolve as (body: unknown) => void);
      this.child.send({ id, type });
    });
  }

  stats(): Promise<ServerStats> {
    return this.request('stats');
  }

  log(): Promise<string[]> {
    return this.request('log');
  }

  /** Waits until the server reports `count` connections (or fewer), returning the last count seen. */
  async connectionsSettle(count = 0, timeoutMs = 3000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { connections } = await this.stats();
      if (connections <= count || Date.now() > deadline) return connections;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async stop(): Promise<{ took: number } | undefined> {
    if (!this.alive) return undefined;
    const result = await this.request<{ took: number }>('stop');
    this.child.kill();
    await new Promise((r) => (this.exit ? r(undefined) : this.child.once('exit', r)));
    return result;
  }
}

/** Prints one figures line, so `npm run harden` output can go in a report as is. */
export function figures(title: string, values: Record<string, string | number>): void {
  console.log(
    `${title}: ${Object.entries(values)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}`,
  );
}

/**
 * Liveness: a fresh client connects, initializes and pings; true when the ping is answered within
 * `timeoutMs` (1 s: the suite's only timer, and a generous one for a loopback round trip).
 */
export async function probe(url: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      ws.removeAllListeners('message');
      ws.on('error', () => undefined);
      if (ws.readyState === WebSocket.OPEN) ws.close();
      else ws.terminate();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    ws.on('error', () => done(false));
    ws.on('open', () => {
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'probe-init',
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
        }),
      );
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'probe-ping', method: 'ping' }));
    });
    ws.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { id?: unknown }).id === 'probe-ping') done(true);
    });
  });
}
