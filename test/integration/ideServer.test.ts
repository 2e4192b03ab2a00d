import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { SUPERSEDED_CLOSE_CODE, SUPERSEDED_CLOSE_REASON } from '../../src/server/ideServer';
import { defineTool, textResult } from '../../src/tools/toolDefinition';
import { closed, upgradeStatus } from '../support/wsClientTransport';
import { TEST_TOKEN, connectClient, startTestServer, waitFor } from '../support/serverFixture';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its input.',
  inputSchema: z.object({ text: z.string() }),
  handle: async ({ text }) => textResult(text),
});
const boom = defineTool({
  name: 'boom',
  description: 'Always throws.',
  inputSchema: z.object({}),
  handle: async () => {
    throw new Error('kaboom');
  },
});

describe('IdeServer over real sockets', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  beforeEach(async () => {
    fixture = await startTestServer({ tools: { ide: [echo, boom], tools: [echo] }, maxMessageBytes: 64 * 1024 });
  });
  afterEach(async () => {
    await fixture.server.stop();
  });

  test('listens on 127.0.0.1 only', () => {
    const address = (fixture.server as unknown as { http: import('node:http').Server }).http.address();
    expect(address).toMatchObject({ address: '127.0.0.1', port: fixture.port });
  });

  test('refuses a missing token with 401 before the upgrade, and logs why without the token', async () => {
    await expect(upgradeStatus(fixture.url, {})).resolves.toEqual({ status: 401 });
    expect(fixture.log.join('\n')).toMatch(/missing auth token \(HTTP 401\)/);
    expect(fixture.server.connections()).toHaveLength(0);
  });

  test('refuses a wrong token with 401, never logging either token', async () => {
    await expect(upgradeStatus(fixture.url, { [AUTH_HEADER]: 'wrong-token' })).resolves.toEqual({ status: 401 });
    const log = fixture.log.join('\n');
    expect(log).toMatch(/wrong auth token/);
    expect(log).not.toContain('wrong-token');
    expect(log).not.toContain(TEST_TOKEN);
  });

  test('refuses a browser Origin even with the right token', async () => {
    await expect(upgradeStatus(fixture.url, { [AUTH_HEADER]: TEST_TOKEN, Origin: 'http://evil.example' })).resolves.toEqual({ status: 403 });
  });

  test('refuses unknown paths with 404', async () => {
    await expect(upgradeStatus(`${fixture.url}/nope`, { [AUTH_HEADER]: TEST_TOKEN })).resolves.toEqual({ status: 404 });
  });

  test('echoes the mcp subprotocol', async () => {
    await expect(upgradeStatus(fixture.url, { [AUTH_HEADER]: TEST_TOKEN })).resolves.toEqual({ status: 101, protocol: 'mcp' });
  });

  test('answers initialize with the protocol version the CLI asks for, and serves tools', async () => {
    const { client } = await connectClient(fixture.url);
    expect(client.getServerVersion()).toMatchObject({ name: 'native-claude' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['boom', 'echo']);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'hi' } })).resolves.toEqual({ content: [{ type: 'text', text: 'hi' }] });
    await client.close();
  });

  test('a throwing tool becomes an isError result and the session survives', async () => {
    const { client } = await connectClient(fixture.url);
    const result = await client.callTool({ name: 'boom', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('kaboom');
    await expect(client.callTool({ name: 'echo', arguments: { text: 'still here' } })).resolves.toMatchObject({ content: [{ text: 'still here' }] });
    await client.close();
  });

  test('the tools route serves only its own tools', async () => {
    const { client } = await connectClient(`${fixture.url}/tools`);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    await client.close();
  });

  test('malformed JSON gets a parse error, JSON that is not JSON-RPC an Invalid Request, and the connection lives', async () => {
    const { client, transport } = await connectClient(fixture.url);
    const replies: string[] = [];
    transport.socket!.on('message', (data) => replies.push(data.toString()));
    transport.socket!.send('{not json');
    transport.socket!.send(JSON.stringify({ hello: 'not json-rpc' }));
    await waitFor(() => replies.length >= 2, 2000, 'parse errors');
    expect(replies.map((r) => JSON.parse(r).error?.code)).toEqual([-32700, -32600]);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'ok' } })).resolves.toMatchObject({ content: [{ text: 'ok' }] });
    await client.close();
  });

  test('an oversize message closes the connection with 1009 and the server keeps serving others', async () => {
    const { transport } = await connectClient(fixture.url);
    const done = closed(transport.socket!);
    transport.socket!.send('x'.repeat(65 * 1024));
    await expect(done).resolves.toMatchObject({ code: 1009 });
    const { client } = await connectClient(fixture.url);
    await expect(client.listTools()).resolves.toBeDefined();
    await client.close();
  });

  test('a client closing cleanly removes its connection and ends its session', async () => {
    const { client } = await connectClient(fixture.url);
    await waitFor(() => fixture.server.connections().length === 1);
    const id = fixture.server.connections()[0].id;
    await client.close();
    await waitFor(() => fixture.server.connections().length === 0, 2000, 'connection removal');
    await waitFor(() => fixture.closedSessions.includes(id), 2000, 'session close');
  });

  test('stopping the server closes clients with 1001', async () => {
    const { transport } = await connectClient(fixture.url);
    const done = closed(transport.socket!);
    await fixture.server.stop();
    await expect(done).resolves.toMatchObject({ code: 1001 });
  });

  test('newest-wins: a new ide_connected supersedes the previous IDE session with 4001 and the exact reason', async () => {
    await fixture.server.stop();
    fixture = await startTestServer({ sessionPolicy: () => 'newest-wins' });
    const first = await connectClient(fixture.url, { announce: true, pid: 111 });
    await waitFor(() => fixture.server.sessionConnections().length === 1, 2000, 'first session');
    const plain = await connectClient(fixture.url); // never announces: not an IDE session
    const tools = await connectClient(`${fixture.url}/tools`);
    const firstClosed = closed(first.transport.socket!);
    const second = await connectClient(fixture.url, { announce: true, pid: 222 });
    await expect(firstClosed).resolves.toEqual({ code: SUPERSEDED_CLOSE_CODE, reason: SUPERSEDED_CLOSE_REASON });
    await waitFor(() => fixture.server.sessionConnections().length === 1, 2000, 'one session left');
    expect(fixture.server.sessionConnections()[0].cliPid).toBe(222);
    expect(plain.transport.socket!.readyState).toBe(WebSocket.OPEN);
    expect(tools.transport.socket!.readyState).toBe(WebSocket.OPEN);
    await Promise.all([second.client.close(), plain.client.close(), tools.client.close()]);
  });

  test('all (the default): every ide_connected is kept, each session gets its own notifications', async () => {
    const first = await connectClient(fixture.url, { announce: true, pid: 111 });
    const second = await connectClient(fixture.url, { announce: true, pid: 222 });
    await waitFor(() => fixture.server.sessionConnections().length === 2, 2000, 'two sessions');
    await first.client.ping(); // answered after the server handled the second's ide_connected: not closed by it
    expect(first.transport.socket!.readyState).toBe(WebSocket.OPEN);
    expect(fixture.server.sessionConnections().map((c) => c.cliPid)).toEqual([111, 222]);
    expect(fixture.log.join('\n')).not.toMatch(/superseded/);
    const seen: unknown[] = [];
    first.client.fallbackNotificationHandler = async (n) => void seen.push(['first', n.method]);
    second.client.fallbackNotificationHandler = async (n) => void seen.push(['second', n.method]);
    await fixture.server.sessionConnections()[1].session!.notify('at_mentioned', { filePath: '/x' });
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([['second', 'at_mentioned']]);
    await Promise.all([first.client.close(), second.client.close()]);
  });

  test('ide_connected on the tools route does not make it an IDE session', async () => {
    const { client } = await connectClient(`${fixture.url}/tools`, { announce: true });
    await client.ping(); // answered after the server handled the ide_connected sent before it
    expect(fixture.server.sessionConnections()).toHaveLength(0);
  });

  test('notifications reach every IDE session and only them', async () => {
    const ide = await connectClient(fixture.url, { announce: true });
    const tools = await connectClient(`${fixture.url}/tools`);
    const seen: { ide: unknown[]; tools: unknown[] } = { ide: [], tools: [] };
    ide.client.fallbackNotificationHandler = async (n) => void seen.ide.push(n);
    tools.client.fallbackNotificationHandler = async (n) => void seen.tools.push(n);
    await waitFor(() => fixture.server.sessionConnections().length === 1);
    await expect(fixture.server.notifySessions('selection_changed', { text: 'x' })).resolves.toBe(1);
    await waitFor(() => seen.ide.length === 1);
    expect(seen.ide[0]).toMatchObject({ method: 'selection_changed', params: { text: 'x' } });
    expect(seen.tools).toHaveLength(0);
  });

  test('drops a peer that stops answering pings', async () => {
    await fixture.server.stop();
    fixture = await startTestServer({ heartbeatMs: 100 });
    const silent = new WebSocket(fixture.url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN }, autoPong: false });
    await new Promise((r) => silent.once('open', r));
    const done = closed(silent);
    await expect(done).resolves.toMatchObject({ code: 1006 });
    expect(fixture.log.join('\n')).toMatch(/stopped answering pings/);
  });

  test('a peer that answers pings is kept', async () => {
    await fixture.server.stop();
    fixture = await startTestServer({ heartbeatMs: 50 });
    const { client, transport } = await connectClient(fixture.url);
    // Each ping after the first comes after a check that the previous one was answered.
    let pings = 0;
    transport.socket!.on('ping', () => pings++);
    await waitFor(() => pings >= 4, 3000, 'four pings');
    expect(fixture.server.connections()).toHaveLength(1);
    expect(transport.socket!.readyState).toBe(WebSocket.OPEN);
    await client.close();
  });
});
