// A connection that closes hands its McpServer to the next one (src/server/mcpSession.ts). Nothing
// of the old connection may reach the new one: not its unfinished calls' answers, not its identity.
import * as sdkMcp from '@modelcontextprotocol/sdk/server/mcp.js';
import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { createSessionFactory } from '../../src/server/mcpSession';
import { defineTool, textResult, type ToolDefinition } from '../../src/tools/toolDefinition';
import { memoryLogger } from '../../src/util/logger';
import { TEST_TOKEN, connectClient, startTestServer, waitFor } from '../support/serverFixture';

const whoAmI = defineTool({
  name: 'whoAmI',
  description: 'The connection id the tool is called for.',
  inputSchema: z.object({}),
  handle: async (_args, ctx) => textResult(String(ctx.connectionId)),
});

/** Counts the McpServers built from here on. */
function countBuilds(): { count: () => number } {
  const Original = sdkMcp.McpServer;
  let built = 0;
  jest.spyOn(sdkMcp, 'McpServer').mockImplementation((...args) => {
    built++;
    return new Original(...args);
  });
  return { count: () => built };
}

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0].text;

describe('McpServer reuse across connections', () => {
  afterEach(() => jest.restoreAllMocks());

  test('connections one after another share two McpServers: the one built ahead and the one handed back', async () => {
    const fixture = await startTestServer({ tools: { ide: [whoAmI] } });
    const builds = countBuilds();
    try {
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { client } = await connectClient(fixture.url);
        await new Promise((r) => setImmediate(r)); // the one for the next connection is built by now, if it is built
        seen.push(text(await client.callTool({ name: 'whoAmI', arguments: {} })));
        await client.close();
        await waitFor(() => fixture.closedSessions.length === i + 1, 3000, 'the server to see the close');
      }
      expect(builds.count()).toBe(2);
      // Each call saw its own connection, and each closed session was reported once with its own id.
      expect(seen).toEqual(fixture.closedSessions.map(String));
      expect(new Set(seen).size).toBe(6);
    } finally {
      await fixture.server.stop();
    }
  });

  test("an unfinished call of a closed connection answers nobody, and the next connection's calls and identity are its own", async () => {
    let release!: () => void;
    const calls: Array<{ connectionId: number; aborted: () => boolean }> = [];
    const slow = defineTool({
      name: 'slow',
      description: 'Answers when the test says so.',
      inputSchema: z.object({}),
      handle: async (_args, ctx) => {
        calls.push({ connectionId: ctx.connectionId, aborted: () => ctx.signal?.aborted ?? false });
        await new Promise<void>((resolve) => (release = resolve));
        return textResult(`slow answer for #${ctx.connectionId}`);
      },
    });
    const fixture = await startTestServer({ tools: { ide: [slow, whoAmI] } });
    const connects = jest.spyOn(sdkMcp.McpServer.prototype, 'connect');
    try {
      // The first connection starts a call, then goes away before the answer.
      const first = new WebSocket(fixture.url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
      await new Promise((resolve) => first.once('open', resolve));
      const send = (ws: WebSocket, message: object) => ws.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
      send(first, {
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'first-client', version: '1.0.0' } },
      });
      send(first, { method: 'notifications/initialized' });
      send(first, { id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
      await waitFor(() => calls.length === 1, 3000, 'the slow call to start');
      const firstId = fixture.server.connections()[0].id;
      first.close();
      await waitFor(() => fixture.closedSessions.includes(firstId), 3000, 'the first session to close');
      expect(calls[0].aborted()).toBe(true);
      const builds = countBuilds();

      // The second connection gets the first one's McpServer back.
      const frames: unknown[] = [];
      const second = new WebSocket(fixture.url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
      second.on('message', (data) => frames.push(JSON.parse(data.toString())));
      await new Promise((resolve) => second.once('open', resolve));
      send(second, {
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'second-client', version: '2.0.0' } },
      });
      send(second, { method: 'notifications/initialized' });
      send(second, { method: 'ide_connected', params: { pid: 4242 } });
      send(second, { id: 2, method: 'tools/call', params: { name: 'whoAmI', arguments: {} } });
      await waitFor(() => frames.length === 2, 3000, 'two answers');
      const secondConnection = fixture.server.connections()[0];

      // The first connection's call finishes now, with the same request id the second one used.
      release();
      // A later call on the second socket: its answer comes after anything the late answer sent there.
      send(second, { id: 3, method: 'tools/call', params: { name: 'whoAmI', arguments: {} } });
      await waitFor(() => frames.length >= 3, 3000, 'the third answer');
      expect(builds.count()).toBe(0);
      expect(connects.mock.contexts).toHaveLength(2);
      expect(connects.mock.contexts[1]).toBe(connects.mock.contexts[0]);
      expect(frames).toEqual([
        expect.objectContaining({ id: 1, result: expect.objectContaining({ serverInfo: { name: 'native-claude', version: 'test' } }) }),
        { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: String(secondConnection.id) }] } },
        { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: String(secondConnection.id) }] } },
      ]);
      expect(secondConnection.client).toMatchObject({ name: 'second-client', version: '2.0.0' });
      expect(secondConnection.cliPid).toBe(4242);
      expect(fixture.server.sessionConnections().map((c) => c.id)).toEqual([secondConnection.id]);
      second.close();
    } finally {
      await fixture.server.stop();
    }
  });

  test('a session handed back is not reused once the route serves other tools', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes.',
      inputSchema: z.object({ text: z.string() }),
      handle: async ({ text: t }) => textResult(t),
    });
    let tools: ToolDefinition[] = [echo];
    const closed: number[] = [];
    const fixture = await startTestServer({
      createSession: createSessionFactory({
        toolsFor: () => tools,
        serverInfo: { name: 'native-claude', version: 'test' },
        log: memoryLogger(),
        onSessionClosed: (id) => closed.push(id),
      }),
    });
    try {
      // Two at once, so the one built ahead is taken too; both are handed back on close.
      const a = (await connectClient(fixture.url)).client;
      await new Promise((r) => setImmediate(r));
      const b = (await connectClient(fixture.url)).client;
      await a.close();
      await b.close();
      await waitFor(() => closed.length === 2, 3000, 'both sessions to close');
      tools = [whoAmI];
      const c = (await connectClient(fixture.url)).client;
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['whoAmI']);
      await c.close();
    } finally {
      await fixture.server.stop();
    }
  });
});
