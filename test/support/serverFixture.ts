import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { IdeServer, type Connection, type IdeServerOptions } from '../../src/server/ideServer';
import { createSessionFactory } from '../../src/server/mcpSession';
import { AUTH_HEADER } from '../../src/server/auth';
import type { ToolDefinition } from '../../src/tools/toolDefinition';
import { memoryLogger } from '../../src/util/logger';
import { serverInstructions } from '../../src/tools/instructions';
import { HeaderWebSocketClientTransport } from './wsClientTransport';

export const TEST_TOKEN = 'test-token-0123456789abcdef0123456789abcdef';

/** A real server on a real loopback port, with the given tools and a log the test can read. */
export async function startTestServer(opts: { tools?: { ide?: ToolDefinition[]; tools?: ToolDefinition[] } } & Partial<IdeServerOptions> = {}) {
  const log: string[] = [];
  const closedSessions: number[] = [];
  const server = new IdeServer({
    token: TEST_TOKEN,
    log: memoryLogger(log),
    createSession: createSessionFactory({
      toolsFor: (route) => (route === 'ide' ? opts.tools?.ide : opts.tools?.tools) ?? [],
      serverInfo: { name: 'native-claude', version: 'test' },
      instructionsFor: serverInstructions,
      log: memoryLogger(log),
      onSessionClosed: (id) => closedSessions.push(id),
    }),
    ...opts,
  });
  const port = await server.start();
  return { server, port, log, closedSessions, url: `ws://127.0.0.1:${port}` };
}

/** Connects the SDK's real Client; `announce` sends `ide_connected` as the claude CLI does. */
export async function connectClient(url: string, opts: { token?: string; announce?: boolean; pid?: number } = {}) {
  const transport = new HeaderWebSocketClientTransport(url, { [AUTH_HEADER]: opts.token ?? TEST_TOKEN });
  const client = new Client({ name: 'claude-code', version: 'test' });
  await client.connect(transport);
  if (opts.announce) await client.notification({ method: 'ide_connected', params: { pid: opts.pid ?? process.pid } });
  return { client, transport };
}

export async function waitFor(predicate: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until the server has `count` connections on `route`; answers the newest. */
export async function newestConnection(server: IdeServer, route: 'ide' | 'tools', count: number): Promise<Connection> {
  await waitFor(() => server.connections().filter((c) => c.route === route).length === count, 10_000, `${count} ${route} connection(s)`);
  return server
    .connections()
    .filter((c) => c.route === route)
    .at(-1)!;
}
