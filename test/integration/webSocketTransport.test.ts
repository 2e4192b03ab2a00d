// WebSocketServerTransport's end of life, over a real `ws` server/client pair: what the SDK relies on
// when a session ends. A send after the peer is gone must fail (the SDK then stops waiting on it), and
// close() must report the end at once and only once, even to a peer that never answers the close frame.
import * as net from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { WebSocketServerTransport } from '../../src/server/webSocketTransport';

const PING = { jsonrpc: '2.0' as const, id: 1, method: 'ping' };

/** A `ws` server and client, with the client's TCP socket (made by ws's public createConnection option). */
async function connectedPair(): Promise<{ wss: WebSocketServer; server: WebSocket; client: WebSocket; clientSocket: net.Socket }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const accepted = new Promise<WebSocket>((r) => wss.once('connection', r));
  let clientSocket: net.Socket | undefined;
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as net.AddressInfo).port}`, {
    createConnection: ((options: net.NetConnectOpts) => (clientSocket = net.createConnection(options))) as typeof net.createConnection,
  });
  const [server] = await Promise.all([accepted, new Promise((r) => client.once('open', r))]);
  return { wss, server, client, clientSocket: clientSocket! };
}

describe('WebSocketServerTransport at the end of a connection', () => {
  let pair: Awaited<ReturnType<typeof connectedPair>>;
  beforeEach(async () => {
    pair = await connectedPair();
  });
  afterEach(async () => {
    pair.client.terminate();
    pair.server.terminate();
    await new Promise((r) => pair.wss.close(r));
  });

  test('send() rejects with "Not connected" once the peer has closed', async () => {
    const transport = new WebSocketServerTransport(pair.server);
    const closed = new Promise<void>((r) => (transport.onclose = r));
    await transport.start();
    await transport.send(PING); // open: it goes out
    pair.client.close();
    await closed;
    expect(pair.server.readyState).toBe(WebSocket.CLOSED);
    await expect(transport.send(PING)).rejects.toThrow('Not connected: the WebSocket is closed');
  });

  test('close() to a peer that never answers the close frame fires onclose at once, and a second close() does not fire it again', async () => {
    const transport = new WebSocketServerTransport(pair.server);
    let onclose = 0;
    transport.onclose = () => onclose++;
    await transport.start();
    // The peer stops reading: it never sees the close frame, so never answers it (ws would wait 30 s).
    pair.clientSocket.pause();

    await transport.close();
    expect(onclose).toBe(1);
    expect(pair.server.readyState).toBe(WebSocket.CLOSING); // the handshake really is still unanswered

    await transport.close();
    expect(onclose).toBe(1);
    // When the socket finally goes (here: torn down rather than waiting out ws's timeout), no second report.
    const socketClosed = new Promise((r) => pair.server.once('close', r));
    pair.server.terminate();
    await socketClosed;
    expect(onclose).toBe(1);
  });
});
