// Answers produced in one burst leave in one TCP write: a client that pipelines 16 calls gets the
// 16 answers with one system call, not 16, and a run of pushed notifications leaves the same way (the
// transport corks the socket the server upgraded until the burst ends).
import * as net from 'node:net';
import WebSocket from 'ws';
import { z } from 'zod';
import { AUTH_HEADER } from '../../src/server/auth';
import { defineTool, textResult } from '../../src/tools/toolDefinition';
import { TEST_TOKEN, startTestServer, waitFor } from '../support/serverFixture';

const echo = defineTool({ name: 'echo', description: 'Echoes.', inputSchema: z.object({ text: z.string() }), handle: async ({ text }) => textResult(text) });

test('16 pipelined calls are answered in one TCP write, each answer intact', async () => {
  const fixture = await startTestServer({ tools: { ide: [echo] } });
  let clientSocket: net.Socket | undefined;
  const ws = new WebSocket(fixture.url, ['mcp'], {
    headers: { [AUTH_HEADER]: TEST_TOKEN },
    createConnection: ((options: net.NetConnectOpts) => (clientSocket = net.createConnection(options))) as typeof net.createConnection,
  });
  const replies: Array<{ id: number; result?: { content: Array<{ text: string }> } }> = [];
  ws.on('message', (data) => replies.push(JSON.parse(data.toString())));
  await new Promise((r) => ws.once('open', r));
  ws.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  );
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  while (replies.length < 1) await new Promise((r) => setTimeout(r, 5));

  // Count the server side's socket writes (one frame written on its own is one _writev of header + payload).
  const serverWrites: number[] = [];
  const original = net.Socket.prototype._writev!;
  const spy = jest.spyOn(net.Socket.prototype, '_writev').mockImplementation(function (this: net.Socket, chunks, cb) {
    if (this.localPort === fixture.port) serverWrites.push(chunks.length);
    return original.call(this, chunks, cb);
  });
  const burst = Array.from({ length: 16 }, (_, i) =>
    JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'echo', arguments: { text: `t${i + 1}` } } }),
  );
  clientSocket!.cork(); // the 16 requests reach the server in one read
  for (const request of burst) ws.send(request);
  clientSocket!.uncork();
  while (replies.length < 17) await new Promise((r) => setTimeout(r, 5));
  spy.mockRestore();

  expect(replies.slice(1).map((r) => [r.id, r.result?.content[0].text])).toEqual(Array.from({ length: 16 }, (_, i) => [i + 1, `t${i + 1}`]));
  expect(serverWrites).toEqual([32]); // 16 frames × (header + payload), one system call
  ws.close();
  await fixture.server.stop();
});

test('16 notifications pushed together leave in one TCP write, each intact', async () => {
  const fixture = await startTestServer({ tools: { ide: [echo] } });
  const ws = new WebSocket(fixture.url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
  const received: Array<{ id?: number; method?: string; params?: { text: string } }> = [];
  ws.on('message', (data) => received.push(JSON.parse(data.toString())));
  await new Promise((r) => ws.once('open', r));
  ws.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  );
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid: process.pid } }));
  await waitFor(() => received.length === 1 && fixture.server.sessionConnections().length === 1, 3000, 'the IDE session');

  const serverWrites: number[] = [];
  const original = net.Socket.prototype._writev!;
  const spy = jest.spyOn(net.Socket.prototype, '_writev').mockImplementation(function (this: net.Socket, chunks, cb) {
    if (this.localPort === fixture.port) serverWrites.push(chunks.length);
    return original.call(this, chunks, cb);
  });
  const pushed = Array.from({ length: 16 }, (_, i) => fixture.server.notifySessions('selection_changed', { text: `s${i + 1}` }));
  await expect(Promise.all(pushed)).resolves.toEqual(pushed.map(() => 1));
  await waitFor(() => received.length === 17, 3000, 'the 16 notifications');
  spy.mockRestore();

  expect(received.slice(1).map((n) => [n.method, n.params?.text])).toEqual(Array.from({ length: 16 }, (_, i) => ['selection_changed', `s${i + 1}`]));
  expect(serverWrites).toEqual([32]);
  ws.close();
  await fixture.server.stop();
});
