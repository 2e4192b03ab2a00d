// The handshake's requests (initialize, tools/list) and ping are answered by the SDK's own handlers
// without the SDK's per-request scaffolding (src/server/directAnswers.ts). The answers must be the
// ones a plain SDK McpServer gives, to the byte, errors included; requests that carry `_meta` still
// go the SDK's whole way.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { serverInstructions } from '../../src/tools/instructions';
import { defineTool, textResult } from '../../src/tools/toolDefinition';
import { TEST_TOKEN, startTestServer, waitFor } from '../support/serverFixture';

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes its input.',
  inputSchema: z.object({ text: z.string().describe('what to echo'), times: z.number().int().min(1).optional() }),
  annotations: { readOnlyHint: true },
  handle: async ({ text }) => textResult(text),
});
const internal = defineTool({ name: 'internalCall', description: 'Not listed.', internal: true, inputSchema: z.object({}), handle: async () => textResult('ok') });

const initialize = (id: number, params: object) => ({ jsonrpc: '2.0', id, method: 'initialize', params });
const clientInfo = { name: 'claude-code', version: '2.1.3' };

/** What a plain SDK McpServer with the same listed tool and instructions answers, each answer as JSON text. */
async function plainSdkAnswers(messages: object[], answersExpected: number): Promise<string[]> {
  const mcp = new McpServer({ name: 'native-claude', version: 'test' }, { instructions: serverInstructions('ide') });
  mcp.registerTool(echo.name, { title: echo.title, description: echo.description, inputSchema: echo.inputSchema, annotations: echo.annotations }, async () => textResult(''));
  const [client, server] = InMemoryTransport.createLinkedPair();
  const answers: string[] = [];
  client.onmessage = (message) => void answers.push(JSON.stringify(message));
  await mcp.connect(server);
  await client.start();
  for (const message of messages) await client.send(message as JSONRPCMessage);
  await waitFor(() => answers.length >= answersExpected, 3000, 'the plain SDK server to answer');
  await mcp.close();
  return answers;
}

/** What this project's server sends back over its WebSocket for the same messages, frame by frame. */
async function ourAnswers(url: string, messages: object[], answersExpected: number): Promise<string[]> {
  const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
  const answers: string[] = [];
  ws.on('message', (data) => answers.push(data.toString()));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  for (const message of messages) ws.send(JSON.stringify(message));
  await waitFor(() => answers.length >= answersExpected, 3000, 'our server to answer');
  ws.close();
  return answers;
}

/** Answers in id order (a direct answer may overtake an SDK one; JSON-RPC allows any order). */
const byId = (answers: string[]) => [...answers].sort((a, b) => (JSON.parse(a) as { id: number }).id - (JSON.parse(b) as { id: number }).id);

describe('direct answers to the handshake', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  beforeEach(async () => {
    fixture = await startTestServer({ tools: { ide: [echo, internal] } });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await fixture.server.stop();
  });

  const cases: Array<[string, object[], number]> = [
    [
      'a handshake as the CLI makes it, tools/list twice, ping with and without params',
      [
        initialize(1, { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true } }, clientInfo }),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        { jsonrpc: '2.0', id: 4, method: 'ping' },
        { jsonrpc: '2.0', id: 5, method: 'ping', params: {} },
      ],
      5,
    ],
    ['a protocol version the SDK does not know (it answers with its latest)', [initialize(1, { protocolVersion: '1999-01-01', capabilities: {}, clientInfo })], 1],
    ['an initialize without clientInfo (the SDK refuses it)', [initialize(1, { protocolVersion: '2025-06-18', capabilities: {} })], 1],
    [
      'a tools/list whose cursor is not a string, and requests with _meta (those take the SDK path)',
      [
        initialize(1, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo }),
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 5 } },
        { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { progressToken: 'p' } } },
        { jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: {} } },
      ],
      4,
    ],
  ];

  test.each(cases)('%s: the same bytes as a plain SDK McpServer', async (_name, messages, answers) => {
    const sdkPath = jest.spyOn(Protocol.prototype as unknown as { _onrequest(): void }, '_onrequest');
    const ours = await ourAnswers(fixture.url, messages, answers);
    const viaSdkPath = sdkPath.mock.calls.length;
    sdkPath.mockRestore();
    expect(byId(ours)).toEqual(byId(await plainSdkAnswers(messages, answers)));
    // Only the requests with _meta went through the SDK's scaffolding.
    const withMeta = messages.filter((m) => 'id' in m && '_meta' in ((m as { params?: object }).params ?? {})).length;
    expect(viaSdkPath).toBe(withMeta);
  });

  test('the tools/list text is made once for every connection with the same tools', async () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const handshake = [initialize(1, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo }), list];
    const first = await ourAnswers(fixture.url, handshake, 2);
    // The list itself, or a message that carries it.
    const hasTools = (value: unknown): boolean => typeof value === 'object' && value !== null && ('tools' in value || hasTools((value as { result?: unknown }).result));
    const listings = () => stringify.mock.calls.filter(([value]) => hasTools(value)).length;
    const afterFirst = listings();
    const second = await ourAnswers(fixture.url, handshake, 2);
    expect(byId(second)).toEqual(byId(first));
    expect(afterFirst).toBeGreaterThanOrEqual(1);
    expect(listings()).toBe(afterFirst);
  });
});
