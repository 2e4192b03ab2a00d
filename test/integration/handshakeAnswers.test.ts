// What the CLI reads in a handshake (initialize, tools/list) and ping, errors included, is to the
// byte what a plain SDK McpServer with the same listed tools and instructions sends: the session's
// own tools/list (the internal tool left out, built and serialized once), the handshake answered from
// the SDK's handlers without its per-request scaffolding (src/server/sdkInternals.ts) and the
// transport change nothing the client can see.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { serverInstructions } from '../../src/tools/instructions';
import type { Route } from '../../src/server/auth';
import { ideTools, workspaceTools, type ToolHosts } from '../../src/tools/registry';
import { defineTool, textResult, type ToolDefinition } from '../../src/tools/toolDefinition';
import { RecentEdits } from '../../src/review/recentEdits';
import { KeyedLock } from '../../src/util/keyedLock';
import { DiskDocumentWriter, ScriptedLanguageFeatures, ScriptedReviewHost, StaticDiagnostics } from '../support/fakeHosts';
import { TEST_TOKEN, startTestServer, waitFor } from '../support/serverFixture';

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes its input.',
  inputSchema: z.object({ text: z.string().describe('what to echo'), times: z.number().int().min(1).optional() }),
  annotations: { readOnlyHint: true },
  handle: async ({ text }) => textResult(text),
});
const internal = defineTool({
  name: 'internalCall',
  description: 'Not listed.',
  internal: true,
  inputSchema: z.object({}),
  handle: async () => textResult('ok'),
});

const initialize = (id: number, params: object) => ({ jsonrpc: '2.0', id, method: 'initialize', params });
const clientInfo = { name: 'claude-code', version: '2.1.3' };

/** What a plain SDK McpServer with the given listed tools and the route's instructions answers, each answer as JSON text. */
async function plainSdkAnswers(messages: object[], answersExpected: number, listed: ToolDefinition[] = [echo], route: Route = 'ide'): Promise<string[]> {
  const mcp = new McpServer({ name: 'native-claude', version: 'test' }, { instructions: serverInstructions(route) });
  for (const tool of listed) {
    mcp.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations }, async () =>
      textResult(''),
    );
  }
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

/** Answers in id order (JSON-RPC allows any order). */
const byId = (answers: string[]) => [...answers].sort((a, b) => (JSON.parse(a) as { id: number }).id - (JSON.parse(b) as { id: number }).id);

describe('handshake answers', () => {
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
    [
      'a protocol version the SDK does not know (it answers with its latest)',
      [initialize(1, { protocolVersion: '1999-01-01', capabilities: {}, clientInfo })],
      1,
    ],
    ['an initialize without clientInfo (the SDK refuses it)', [initialize(1, { protocolVersion: '2025-06-18', capabilities: {} })], 1],
    [
      'a tools/list whose cursor is not a string, and requests with _meta',
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
    const ours = await ourAnswers(fixture.url, messages, answers);
    expect(byId(ours)).toEqual(byId(await plainSdkAnswers(messages, answers)));
  });

  test('the tools/list text is made once for every connection with the same tools', async () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const handshake = [initialize(1, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo }), list];
    const first = await ourAnswers(fixture.url, handshake, 2);
    // The list itself, or a message that carries it.
    const hasTools = (value: unknown): boolean =>
      typeof value === 'object' && value !== null && ('tools' in value || hasTools((value as { result?: unknown }).result));
    const listings = () => stringify.mock.calls.filter(([value]) => hasTools(value)).length;
    const afterFirst = listings();
    const second = await ourAnswers(fixture.url, handshake, 2);
    expect(byId(second)).toEqual(byId(first));
    expect(afterFirst).toBeGreaterThanOrEqual(1);
    expect(listings()).toBe(afterFirst);
  });
});

describe('the real tools of each route', () => {
  const hosts: ToolHosts = {
    review: new ScriptedReviewHost(),
    diagnostics: new StaticDiagnostics(),
    workspace: { folders: () => [process.cwd()], ripgrepPath: () => undefined },
    documents: new DiskDocumentWriter(),
    approvalMode: () => 'write-only',
    lock: new KeyedLock(),
    recentEdits: new RecentEdits(),
    terminal: { run: async (_command, { cwd }) => ({ exit_code: 0, output: '', cwd, output_captured: true }) },
    language: new ScriptedLanguageFeatures(),
  };
  const toolsByRoute = { ide: ideTools(hosts), tools: workspaceTools(hosts) };
  const handshake = [
    initialize(1, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo }),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ];

  test.each(['ide', 'tools'] as const)('%s route: the CLI gets the tools/list a plain McpServer sends for the listed tools, byte for byte', async (route) => {
    const fixture = await startTestServer({ tools: toolsByRoute });
    try {
      const listed = toolsByRoute[route].filter((tool) => !tool.internal);
      const ours = await ourAnswers(`${fixture.url}${route === 'tools' ? '/tools' : ''}`, handshake, 2);
      expect(byId(ours)).toEqual(byId(await plainSdkAnswers(handshake, 2, listed, route)));
      const names = (JSON.parse(byId(ours)[1]) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
      expect(names).toEqual(
        route === 'ide'
          ? ['getDiagnostics']
          : [
              'read_file',
              'list_files',
              'search_files',
              'get_diagnostics',
              'find_definitions',
              'find_references',
              'describe_symbol',
              'file_outline',
              'find_symbols',
              'call_hierarchy',
              'write_file',
              'apply_diff',
              'rename_symbol',
              'execute_command',
            ],
      );
    } finally {
      await fixture.server.stop();
    }
  });
});
