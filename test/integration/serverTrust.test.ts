import * as net from 'node:net';
import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { MAX_JSON_DEPTH, NOT_INITIALIZED } from '../../src/server/messageGuard';
import { NOT_READING_CLOSE_CODE } from '../../src/server/webSocketTransport';
import { defineTool, textResult } from '../../src/tools/toolDefinition';
import { INITIALIZE, OP, closePayload, encodeFrame, rawConnect, rawRequest, textFrame, upgradeRequest } from '../support/rawWebSocket';
import { TEST_TOKEN, connectClient, startTestServer, waitFor } from '../support/serverFixture';

// Hostile peers against the real server on a real socket (issue 9 items 3, 5, 6, 7).

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its input.',
  inputSchema: z.object({ text: z.string() }),
  handle: async ({ text }) => textResult(text),
});
const BLOB_BYTES = 256 * 1024;
const blob = defineTool({
  name: 'blob',
  description: 'Returns 256 KiB of text.',
  inputSchema: z.object({ n: z.number() }),
  handle: async ({ n }) => textResult(String(n).padEnd(BLOB_BYTES, 'x')),
});

function deepArray(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** A plain ws client with the token, collecting every text message as parsed JSON. */
async function peer(url: string) {
  const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
  const received: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => received.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const answerTo = (id: unknown) =>
    waitFor(() => received.some((m) => m.id === id), 2000, `an answer to id ${String(id)}`).then(() => received.find((m) => m.id === id)!);
  return { ws, received, answerTo };
}

describe('hostile peers', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  beforeEach(async () => {
    fixture = await startTestServer({ tools: { ide: [echo, blob], tools: [echo] } });
  });
  afterEach(async () => {
    await fixture.server.stop();
  });

  test('a response to nothing with a 10,000-deep result does not take the server down', async () => {
    const { ws, received, answerTo } = await peer(fixture.url);
    ws.send(JSON.stringify(INITIALIZE));
    await answerTo(0);
    ws.send(`{"jsonrpc":"2.0","id":987654,"result":{"x":${deepArray(10_000)}}}`);
    // Same connection still served, and nothing was answered to the response.
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await expect(answerTo(1)).resolves.toMatchObject({ result: {} });
    expect(received.filter((m) => m.id === 987654)).toHaveLength(0);
    expect(fixture.server.connections()).toHaveLength(1);
    const log = fixture.log.join('\n');
    expect(log).toMatch(/nested deeper than/);
    expect(Math.max(...fixture.log.map((l) => l.length))).toBeLessThan(2000);
  });

  test('a deeply nested request is answered with Invalid Request and its own id', async () => {
    const { ws, answerTo } = await peer(fixture.url);
    ws.send(JSON.stringify(INITIALIZE));
    await answerTo(0);
    ws.send(`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"text":${deepArray(10_000)}}}}`);
    await expect(answerTo('deep')).resolves.toMatchObject({ error: { code: -32600, message: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH}`) } });
    // Nesting within the bound is served normally.
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'ok' } } }));
    await expect(answerTo(2)).resolves.toMatchObject({ result: { content: [{ text: 'ok' }] } });
  });

  test('a response to an id the server never used is dropped without an answer', async () => {
    const { ws, received, answerTo } = await peer(fixture.url);
    ws.send(JSON.stringify(INITIALIZE));
    await answerTo(0);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 55, result: { big: 'y'.repeat(100_000) } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    await answerTo(3);
    expect(received.filter((m) => m.id === 55)).toHaveLength(0);
    expect(fixture.log.join('\n')).toMatch(/a response to id 55, which this server never sent/);
    expect(Math.max(...fixture.log.map((l) => l.length))).toBeLessThan(2000);
  });

  test('requests before initialize are refused (ping allowed, notifications ignored)', async () => {
    const { ws, received, answerTo } = await peer(fixture.url);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'early' } } }));
    await expect(answerTo(1)).resolves.toMatchObject({ error: { code: NOT_INITIALIZED, message: expect.stringMatching(/send initialize first/) } });
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid: 4242 } }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    await expect(answerTo(2)).resolves.toMatchObject({ result: {} });
    expect(fixture.server.sessionConnections()).toHaveLength(0);
    ws.send(JSON.stringify(INITIALIZE));
    await answerTo(0);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'late' } } }));
    await expect(answerTo(3)).resolves.toMatchObject({ result: { content: [{ text: 'late' }] } });
    expect(received.filter((m) => m.id === 1)).toHaveLength(1);
  });

  test('a batch and non-objects get one Invalid Request each', async () => {
    const { ws, received } = await peer(fixture.url);
    ws.send(JSON.stringify([INITIALIZE, { jsonrpc: '2.0', id: 9, method: 'ping' }]));
    ws.send('42');
    ws.send('{not json');
    await waitFor(() => received.length >= 3, 2000, 'three answers');
    expect(received.map((m) => (m.error as { code: number }).code)).toEqual([-32600, -32600, -32700]);
    expect(received.every((m) => m.id === null)).toBe(true);
  });

  test('ide_connected with a pid that is not a positive safe integer does not make an IDE session', async () => {
    for (const pid of [1e308, -5, 0, 3.5, '123']) {
      const { client } = await connectClient(fixture.url);
      await client.notification({ method: 'ide_connected', params: { pid } });
      await client.close();
    }
    await waitFor(() => fixture.log.filter((l) => /ide_connected with an invalid pid/.test(l)).length === 5, 2000, 'five warnings');
    expect(fixture.log.filter((l) => /is a Claude Code session/.test(l))).toHaveLength(0);
    const good = await connectClient(fixture.url, { announce: true, pid: 4242 });
    await waitFor(() => fixture.server.sessionConnections().length === 1, 2000, 'a valid session');
    expect(fixture.server.sessionConnections()[0].cliPid).toBe(4242);
    await good.client.close();
  });

  test('a connection whose socket is destroyed mid-message leaves the live set', async () => {
    const { socket } = await rawConnect(fixture.port);
    socket.write(textFrame(INITIALIZE));
    await waitFor(() => fixture.server.connections().length === 1, 2000, 'the connection');
    // Half a frame, then the TCP connection is reset.
    socket.write(encodeFrame({ opcode: OP.text, payload: 'x'.repeat(1000) }).subarray(0, 500));
    socket.resetAndDestroy();
    await waitFor(() => fixture.server.connections().length === 0, 2000, 'connection removal');
  });

  test('a client that never reads is closed once too much waits for it, and memory stays bounded', async () => {
    const { socket } = await rawConnect(fixture.port);
    socket.write(textFrame(INITIALIZE));
    await waitFor(() => fixture.server.connections().length === 1, 2000, 'the connection');
    socket.pause(); // never read again
    const calls = 200; // 200 × 256 KiB = 50 MiB of answers
    const rssBefore = process.memoryUsage().rss;
    // No variable keeps the frames: they can be collected before RSS is read.
    socket.write(
      Buffer.concat(
        Array.from({ length: calls }, (_, i) =>
          textFrame({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'blob', arguments: { n: i + 1 } } }),
        ),
      ),
    );
    await waitFor(() => fixture.log.some((l) => /not reading/.test(l)), 10_000, 'the not-reading close');
    await waitFor(() => fixture.server.connections().length === 0, 5000, 'the connection to be dropped');
    const grownMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;

    console.log(`non-reading client: ${calls} calls × 256 KiB requested, server closed it (code ${NOT_READING_CLOSE_CODE}); RSS +${grownMiB.toFixed(1)} MiB`);
    expect(grownMiB).toBeLessThan(40);
    socket.destroy();
  }, 20_000);

  test('the not-reading close reaches a client that reads late, with code 1008', async () => {
    const { socket, reader } = await rawConnect(fixture.port);
    socket.write(textFrame(INITIALIZE));
    await waitFor(() => reader.texts().length === 1, 2000, 'initialize answer');
    socket.pause();
    const frames: Buffer[] = [];
    for (let i = 1; i <= 100; i++) frames.push(textFrame({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'blob', arguments: { n: i } } }));
    socket.write(Buffer.concat(frames));
    await waitFor(() => fixture.log.some((l) => /not reading/.test(l)), 10_000, 'the not-reading close');
    socket.resume();
    await waitFor(() => reader.ended, 5000, 'the socket to end');
    // Either the close frame arrived (code 1008) or the grace ran out first and the socket was destroyed.
    if (reader.closeCode !== undefined) expect(reader.closeCode).toBe(NOT_READING_CLOSE_CODE);
    expect(reader.texts().length).toBeLessThan(100);
  }, 20_000);
});

describe('stop() whatever the peers do', () => {
  test('returns within 2 s with a peer that never answers the close frame', async () => {
    const fixture = await startTestServer({ tools: { ide: [echo] } });
    const { socket } = await rawConnect(fixture.port);
    socket.write(textFrame(INITIALIZE));
    await waitFor(() => fixture.server.connections().length === 1, 2000, 'the connection');
    socket.pause(); // never reads, so never answers the close frame
    const started = Date.now();
    await fixture.server.stop();
    const took = Date.now() - started;
    expect(took).toBeLessThan(2000);
    expect(fixture.server.connections()).toHaveLength(0);
    socket.destroy();
  });

  test('returns within 2 s with a peer that sent half an HTTP request', async () => {
    const fixture = await startTestServer();
    const socket = net.connect(fixture.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.on('error', () => undefined);
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n');
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await fixture.server.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    await waitFor(() => socket.destroyed || socket.readyState === 'closed', 2000, 'the half request to be dropped');
  });

  test('returns within 2 s with many peers in every state, and a peer that answers is closed with 1001', async () => {
    const fixture = await startTestServer({ tools: { ide: [echo] } });
    const polite = await connectClient(fixture.url);
    const politeClosed = new Promise<number>((r) => polite.transport.socket!.once('close', (code) => r(code)));
    const rude = await Promise.all([1, 2, 3].map(() => rawConnect(fixture.port)));
    rude.forEach(({ socket }) => socket.pause());
    const halves = [1, 2].map(() => {
      const s = net.connect(fixture.port, '127.0.0.1');
      s.on('error', () => undefined);
      s.write(upgradeRequest(fixture.port).slice(0, 40));
      return s;
    });
    await waitFor(() => fixture.server.connections().length === 4, 2000, 'four connections');
    const started = Date.now();
    await fixture.server.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(politeClosed).resolves.toBe(1001);
    rude.forEach(({ socket }) => socket.destroy());
    halves.forEach((s) => s.destroy());
  });
});

describe('upgrade requests', () => {
  test('a request without the mcp subprotocol is refused before the upgrade', async () => {
    const fixture = await startTestServer();
    try {
      for (const protocol of [null, 'chat', 'mcp2', 'MCP ']) {
        const answer = await rawRequest(fixture.port, upgradeRequest(fixture.port, { protocol }));
        answer.socket.destroy();
        expect(answer.status).toBe(400);
      }
      expect(fixture.server.connections()).toHaveLength(0);
      expect(fixture.log.join('\n')).toMatch(/without the mcp subprotocol/);
    } finally {
      await fixture.server.stop();
    }
  });

  test('a close frame from the client is answered and the connection removed', async () => {
    const fixture = await startTestServer();
    try {
      const { socket, reader } = await rawConnect(fixture.port);
      await waitFor(() => fixture.server.connections().length === 1, 2000, 'the connection');
      socket.write(encodeFrame({ opcode: OP.close, payload: closePayload(1000, 'bye') }));
      await waitFor(() => reader.closeCode === 1000, 2000, 'the close answer');
      await waitFor(() => fixture.server.connections().length === 0, 2000, 'connection removal');
      socket.destroy();
    } finally {
      await fixture.server.stop();
    }
  });
});

describe('WebSocketServerTransport containment', () => {
  test('an error thrown while handling one message stays with that message', async () => {
    const { WebSocketServer } = await import('ws');
    const { WebSocketServerTransport } = await import('../../src/server/webSocketTransport');
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const accepted = new Promise<WebSocket>((r) => wss.once('connection', r));
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as import('node:net').AddressInfo).port}`);
    const transport = new WebSocketServerTransport(await accepted);
    const handled: unknown[] = [];
    const errors: string[] = [];
    transport.onerror = (error) => errors.push(error.message);
    transport.onmessage = (message) => {
      if ((message as { method?: string }).method === 'explode') throw new RangeError('Maximum call stack size exceeded');
      handled.push(message);
    };
    await transport.start();
    await new Promise((r) => client.once('open', r));
    client.send(JSON.stringify(INITIALIZE));
    client.send(JSON.stringify({ jsonrpc: '2.0', method: 'explode' }));
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }));
    await waitFor(() => handled.length === 2, 2000, 'the message after the failing one');
    expect(errors).toEqual(['A message could not be handled: Maximum call stack size exceeded']);
    client.close();
    await new Promise((r) => wss.close(r));
  });
});
