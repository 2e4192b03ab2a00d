import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';

type MessageSchema = (typeof import('@modelcontextprotocol/sdk/types.js'))['JSONRPCMessageSchema'];
/**
 * The SDK's own message schema, loaded with the first connection rather than at activation: it
 * brings zod and the SDK's types (most of the bundle), which the server does not need to listen.
 */
let messageSchema: MessageSchema | undefined;
let messageSchemaLoading: Promise<MessageSchema> | undefined;
function loadMessageSchema(): Promise<MessageSchema> {
  return (messageSchemaLoading ??= import(/* webpackChunkName: "session" */ '@modelcontextprotocol/sdk/types.js').then((types) => (messageSchema = types.JSONRPCMessageSchema)));
}

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

  private starting = false;
  private started = false;
  private closed = false;
  private corked = false;
  /** Messages (parsed JSON) that arrived before `start()`: the SDK connects asynchronously. */
  private readonly early: Array<{ value: unknown; isBinary: boolean }> = [];

  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', () => this.fireClose());
    socket.on('error', (error) => this.onerror?.(error));
    void loadMessageSchema().catch((error: Error) => this.onerror?.(error));
  }

  async start(): Promise<void> {
    if (this.starting) throw new Error('WebSocketServerTransport already started');
    this.starting = true;
    await loadMessageSchema();
    this.started = true;
    for (const { value, isBinary } of this.early.splice(0)) this.deliver(value, isBinary);
    if (this.socket.readyState === WebSocket.CLOSED) this.fireClose();
  }

  /**
   * Resolves once the frame is queued on the socket, as the SDK's own WebSocket transport does: a
   * write that fails later surfaces as the socket's 'error'/'close', which end the session anyway.
   */
  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.socket.readyState !== WebSocket.OPEN) throw new Error('Not connected: the WebSocket is closed');
    this.batchWrites();
    this.socket.send(JSON.stringify(message));
  }

  /**
   * Holds the TCP writes of everything sent until the current burst of promise jobs has run, then
   * writes them together: 16 answers to 16 requests that came in one read leave in one system call
   * instead of sixteen. A lone answer leaves as soon as its own promise chain ends (no timer).
   */
  private batchWrites(): void {
    if (this.corked) return;
    const tcp = (this.socket as unknown as { _socket?: { cork(): void; uncork(): void; destroyed: boolean } })._socket;
    if (!tcp || tcp.destroyed) return;
    this.corked = true;
    tcp.cork();
    process.nextTick(() => {
      this.corked = false;
      tcp.uncork();
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.refuse('not valid JSON', isBinary);
      return;
    }
    if (!this.started) this.early.push({ value, isBinary });
    else this.deliver(value, isBinary);
  }

  /** Validates once, with the SDK's own schema; the session hands the message on without re-checking it. */
  private deliver(value: unknown, isBinary: boolean): void {
    const parsed = messageSchema!.safeParse(value);
    if (!parsed.success) {
      this.refuse('not a JSON-RPC 2.0 message', isBinary);
      return;
    }
    this.onmessage?.(parsed.data as JSONRPCMessage);
  }

  private refuse(detail: string, isBinary: boolean): void {
    this.onerror?.(new Error(`Ignored a ${isBinary ? 'binary' : 'text'} message that is ${detail}`));
    void this.send({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: `Parse error: message is ${detail}` } } as unknown as JSONRPCMessage).catch(() => undefined);
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
