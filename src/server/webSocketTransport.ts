import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';

/** JSON-RPC "Parse error"; sent back when a peer's message is not valid JSON-RPC. */
const PARSE_ERROR = -32700;

/**
 * The SDK's `Transport` over one server-side `ws` socket: one text frame carries one JSON-RPC
 * message (ide-protocol.md §2.2). A malformed message is answered with a parse error and reported
 * through `onerror`; it never throws into the socket's event loop, so a bad peer cannot take the
 * extension host down.
 */
export class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private started = false;
  private closed = false;
  /** Messages that arrived between the upgrade and `start()`; the SDK calls start asynchronously. */
  private readonly early: JSONRPCMessage[] = [];

  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', () => this.fireClose());
    socket.on('error', (error) => this.onerror?.(error));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('WebSocketServerTransport already started');
    this.started = true;
    for (const message of this.early.splice(0)) this.onmessage?.(message);
    if (this.socket.readyState === WebSocket.CLOSED) this.fireClose();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== WebSocket.OPEN) {
        reject(new Error('Not connected: the WebSocket is closed'));
        return;
      }
      this.socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close(1000, 'closing');
    }
    // Fire now: `close()` must call onclose even if the peer never completes the closing handshake.
    this.fireClose();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    const text = rawToString(data);
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (error) {
      const detail = error instanceof SyntaxError ? 'not valid JSON' : 'not a JSON-RPC 2.0 message';
      this.onerror?.(new Error(`Ignored a ${isBinary ? 'binary' : 'text'} message that is ${detail}`));
      void this.send({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: `Parse error: message is ${detail}` } } as unknown as JSONRPCMessage).catch(() => undefined);
      return;
    }
    if (!this.started) this.early.push(message);
    else this.onmessage?.(message);
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

function rawToString(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
