// What every connection shares is built once, and each message is classified once: spies on the SDK's
// own functions show the work is not repeated, while the answers stay the SDK's.
import * as ajvProvider from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import * as sdkMcp from '@modelcontextprotocol/sdk/server/mcp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as sdkTypes from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { createSessionFactory } from '../../src/server/mcpSession';
import { defineTool, textResult } from '../../src/tools/toolDefinition';
import type { ToolDefinition } from '../../src/tools/toolDefinition';
import { memoryLogger } from '../../src/util/logger';
import { TEST_TOKEN, connectClient, startTestServer } from '../support/serverFixture';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its input.',
  inputSchema: z.object({ text: z.string().describe('what to echo') }),
  handle: async ({ text }) => textResult(text),
});
/** A tool whose result breaks the MCP schema (content must be an array): a bug the SDK's result check reports. */
const broken = defineTool({
  name: 'broken',
  description: 'Returns a malformed result.',
  inputSchema: z.object({}),
  handle: async () => ({ content: 'not a list' }) as never,
});
const internal = defineTool({
  name: 'internalCall',
  description: 'Not listed.',
  internal: true,
  inputSchema: z.object({}),
  handle: async () => textResult('ok'),
});

describe('per-connection cost', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  beforeEach(async () => {
    fixture = await startTestServer({ tools: { ide: [echo, internal] } });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await fixture.server.stop();
  });

  test('tools/list is built once for all connections with the same tools, and answers each the same', async () => {
    // Each build of the list asks every tool whether it is internal: count the asking.
    let built = 0;
    const counted: ToolDefinition = Object.defineProperty({ ...echo }, 'internal', { get: () => (built++, false) });
    const own = await startTestServer({ tools: { ide: [counted] } });
    try {
      const lists = [];
      for (let i = 0; i < 3; i++) {
        const { client } = await connectClient(own.url);
        lists.push(await client.listTools());
        lists.push(await client.listTools());
        await client.close();
      }
      expect(lists[0].tools.map((t) => t.name)).toEqual(['echo']);
      expect(lists[0].tools[0].inputSchema).toMatchObject({
        type: 'object',
        properties: { text: { type: 'string', description: 'what to echo' } },
        required: ['text'],
      });
      for (const list of lists) expect(list).toEqual(lists[0]);
      expect(built).toBe(1);
    } finally {
      await own.server.stop();
    }
  });

  test('a connection does not build its own JSON Schema validator (Ajv)', async () => {
    const Original = ajvProvider.AjvJsonSchemaValidator;
    const construct = jest.spyOn(ajvProvider, 'AjvJsonSchemaValidator').mockImplementation((...args) => new Original(...args));
    for (let i = 0; i < 3; i++) {
      const { client } = await connectClient(fixture.url);
      await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      await client.close();
    }
    expect(construct).toHaveBeenCalledTimes(3); // one per SDK Client (the test's side); none per server session
  });

  test('each connection takes an McpServer built ahead, and its tools still see that connection', async () => {
    const whoAmI = defineTool({
      name: 'whoAmI',
      description: 'The connection id the tool is called for.',
      inputSchema: z.object({}),
      handle: async (_args, ctx) => textResult(String(ctx.connectionId)),
    });
    const own = await startTestServer({ tools: { ide: [whoAmI] } });
    const Original = sdkMcp.McpServer;
    // How many connections were live when each McpServer was built.
    const liveAtBuild: number[] = [];
    jest.spyOn(sdkMcp, 'McpServer').mockImplementation((...args) => {
      liveAtBuild.push(own.server.connections().length);
      return new Original(...args);
    });
    try {
      const clients = [];
      for (let i = 0; i < 3; i++) {
        clients.push((await connectClient(own.url)).client);
        await new Promise((r) => setImmediate(r));
      }
      // The first is built as the first connection arrives; each later one before its connection existed.
      expect(liveAtBuild).toEqual([1, 1, 2, 3]);
      const ids = own.server.connections().map((c) => String(c.id));
      const answers = await Promise.all(clients.map((c) => c.callTool({ name: 'whoAmI', arguments: {} })));
      expect(answers.map((a) => (a.content as Array<{ text: string }>)[0].text)).toEqual(ids);
    } finally {
      await own.server.stop();
    }
  });

  test('a session built ahead is not used once the route serves other tools', async () => {
    let tools: ToolDefinition[] = [echo];
    const own = await startTestServer({
      createSession: createSessionFactory({ toolsFor: () => tools, serverInfo: { name: 'native-claude', version: 'test' }, log: memoryLogger() }),
    });
    try {
      const first = (await connectClient(own.url)).client;
      await new Promise((r) => setImmediate(r)); // the spare for the next connection is built with [echo]
      tools = [internal];
      const second = (await connectClient(own.url)).client;
      await expect(second.callTool({ name: 'internalCall', arguments: {} })).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
      await expect(first.callTool({ name: 'echo', arguments: { text: 'hi' } })).resolves.toEqual({ content: [{ type: 'text', text: 'hi' }] });
    } finally {
      await own.server.stop();
    }
  });

  test('a request is classified once: the SDK does not re-parse it against the response schemas (sdkInternals.ts)', async () => {
    const { client } = await connectClient(fixture.url);
    const reparsed = [
      jest.spyOn(sdkTypes, 'isJSONRPCResultResponse'),
      jest.spyOn(sdkTypes, 'isJSONRPCErrorResponse'),
      jest.spyOn(sdkTypes, 'isJSONRPCRequest'),
    ];
    await expect(client.callTool({ name: 'echo', arguments: { text: 'hi' } })).resolves.toEqual({ content: [{ type: 'text', text: 'hi' }] });
    await expect(client.callTool({ name: 'internalCall', arguments: {} })).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
    await client.close();
    // The test's Client shares these functions (for the responses it receives); the server must not
    // have called them on the requests it received.
    for (const spy of reparsed) expect(spy.mock.calls.filter(([message]) => 'method' in (message as object))).toEqual([]);
  });

  test('the real SDK Client gets the SDK errors for malformed tools/call params and a malformed tool result', async () => {
    const own = await startTestServer({ tools: { ide: [echo, broken] } });
    const { client } = await connectClient(own.url);
    // The tools capability is the one McpServer declares.
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
    // Sent as the SDK Client sends any request, past callTool()'s own typing: params without a tool name.
    const malformed = client.request({ method: 'tools/call', params: { arguments: { text: 'hi' } } }, sdkTypes.CallToolResultSchema);
    await expect(malformed).rejects.toMatchObject({ code: sdkTypes.ErrorCode.InternalError, message: expect.stringMatching(/"name"[\s\S]*expected string/) });
    const wrongType = client.request({ method: 'tools/call', params: { name: 'echo', arguments: 'hi' } }, sdkTypes.CallToolResultSchema);
    await expect(wrongType).rejects.toMatchObject({ code: sdkTypes.ErrorCode.InternalError, message: expect.stringMatching(/"arguments"/) });
    await expect(client.callTool({ name: 'broken', arguments: {} })).rejects.toMatchObject({
      code: sdkTypes.ErrorCode.InvalidParams,
      message: expect.stringMatching(/Invalid tools\/call result: [\s\S]*"content"[\s\S]*expected array/),
    });
    // Unknown tools and arguments the tool's schema refuses stay McpServer's own answers.
    await expect(client.callTool({ name: 'nope', arguments: {} })).resolves.toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/Tool nope not found/) }],
    });
    await expect(client.callTool({ name: 'echo', arguments: { text: 5 } })).resolves.toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/Input validation error/) }],
    });
    await client.close();
    await own.server.stop();
  });

  test('a notification to the CLI goes straight to the socket, not through the SDK notification() bookkeeping', async () => {
    const { client } = await connectClient(fixture.url, { announce: true });
    const seen: unknown[] = [];
    client.fallbackNotificationHandler = async (n) => void seen.push(n);
    await new Promise((r) => setTimeout(r, 50)); // the server has handled ide_connected
    const viaSdk = jest.spyOn(Protocol.prototype, 'notification');
    await expect(fixture.server.notifySessions('selection_changed', { text: 'x' })).resolves.toBe(1);
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual([{ method: 'selection_changed', params: { text: 'x' }, jsonrpc: '2.0' }]);
    expect(viaSdk.mock.calls.filter(([n]) => n.method === 'selection_changed')).toEqual([]);
    await client.close();
  });

  test('the SDK still answers bad requests with its own error shapes', async () => {
    const ws = new WebSocket(fixture.url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
    const replies: unknown[] = [];
    ws.on('message', (data) => replies.push(JSON.parse(data.toString())));
    await new Promise((resolve) => ws.once('open', resolve));
    const send = (message: object) => ws.send(JSON.stringify(message));
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'no/such/method' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } });
    send({ jsonrpc: '2.0', id: 5, result: {} }); // a response nobody asked for: ignored
    send({ jsonrpc: '2.0', id: 6, method: 'ping' });
    while (replies.length < 5) await new Promise((r) => setTimeout(r, 10));
    ws.close();
    const byId = new Map(replies.map((r) => [(r as { id: number }).id, r]));
    expect(byId.get(2)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } });
    expect(byId.get(3)).toMatchObject({ id: 3, result: { isError: true, content: [{ type: 'text', text: expect.stringMatching(/Input validation error/) }] } });
    expect(byId.get(4)).toMatchObject({ id: 4, error: { code: -32603, message: expect.stringMatching(/name/) } }); // the SDK's own shape for a request its schema rejects
    expect(byId.get(6)).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
    expect(sdkTypes.JSONRPCMessageSchema.safeParse(byId.get(1)).success).toBe(true);
  });

  test('call timing is not even formatted when the log level does not show it', async () => {
    for (const trace of [false, true]) {
      const lines: string[] = [];
      let asked = 0;
      const traced = await startTestServer({
        createSession: createSessionFactory({
          toolsFor: () => [echo],
          serverInfo: { name: 'native-claude', version: 'test' },
          log: memoryLogger(lines),
          traceCalls: () => (asked++, trace),
        }),
      });
      const { client } = await connectClient(traced.url);
      await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      await client.close();
      await traced.server.stop();
      expect(asked).toBe(1);
      expect(lines.filter((l) => /echo answered in/.test(l))).toHaveLength(trace ? 1 : 0);
    }
  });
});
