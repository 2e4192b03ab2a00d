import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { MessageScreen, type MessageSchemas } from './messageGuard';

/**
 * The SDK's own message schemas, loaded with the first connection rather than at activation: they
 * bring zod and the SDK's types (most of the bundle), which the server does not need to listen.
 */
let messageSchemaLoading: Promise<MessageSchemas> | undefined;
function loadMessageSchema(): Promise<MessageSchemas> {
  return (messageSchemaLoading ??= import(/* webpackChunkName: "session" */ '@modelcontextprotocol/sdk/types.js'));
}

/** Results answered unchanged to every request (a route's tools/list), with their JSON text. */
const resultTexts = new WeakMap<object, string>();

/** Marks `result` as answered unchanged from now on, so its JSON text is made once, here. */
export function serializeOnce<T extends object>(result: T): T {
  resultTexts.set(result, JSON.stringify(result));
  return result;
}

/**
 * The text of an answer whose result was serialized once, with the keys in the order the SDK builds
 * an answer (`{ result, jsonrpc, id }`), so the bytes are what JSON.stringify would give; otherwise undefined.
 */
function serializedAnswer(message: JSONRPCMessage): string | undefined {
  if (!('result' in message) || typeof message.result !== 'object' || message.result === null) return undefined;
  const json = resultTexts.get(message.result);
  if (json === undefined) return undefined;
  const keys = Object.keys(message);
  if (keys.length !== 3 || keys[0] !== 'result' || keys[1] !== 'jsonrpc' || keys[2] !== 'id') return undefined;
  return `{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`;
}

/** Default bound on bytes queued for one peer; past it the peer is not reading and is closed. */
const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Close code and reason for a peer that stopped reading (1008: policy violation). */
export const NOT_READING_CLOSE_CODE = 1008;
const NOT_READING_CLOSE_REASON = 'Client is not reading: too much data waiting to be sent';
/** How long a closed non-reading peer gets to take the close frame before its socket is destroyed. */
const NOT_READING_GRACE_MS = 1000;

/** What the transport needs of the TCP socket under the WebSocket: Node's public `net.Socket` calls. */
export type UpgradedSocket = Pick<Socket, 'cork' | 'uncork' | 'destroyed'>;

export interface WebSocketServerTransportOptions {
  /** Bytes that may wait unsent for this peer before it is closed (default 8 MiB). */
  maxBufferedBytes?: number;
  /**
   * The socket the server upgraded to this WebSocket (the one it handed to `handleUpgrade`): with it,
   * the frames of one burst of answers leave in one TCP write. Without it, each frame is its own write.
   */
  upgradedSocket?: UpgradedSocket;
}

/**
 * The SDK's `Transport` over one server-side `ws` socket: one text frame carries one JSON-RPC
 * message (docs/protocol.md#upgrade-and-auth). Every message is screened first (messageGuard.ts: nesting depth,
 * shape, responses to nothing, requests before initialize) and its envelope validated there, once,
 * as the SDK's own schema would; a refused one is answered with a JSON-RPC error when it is a request and reported
 * through `onerror`. Nothing a peer sends can throw out of here into the socket's event loop: any
 * error is contained to that one message.
 */
export class WebSocketServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /**
   * Sees each accepted message just before `onmessage`. The SDK's connect() owns `onmessage`, so
   * whoever else needs to read what arrives (the session reads `initialize`) sets this instead.
   */
  onreceive?: (message: JSONRPCMessage) => void;
  /**
   * When set, takes each accepted message instead of `onmessage` (which the SDK's connect() sets to
   * classify it again): the session puts the SDK's own per-kind handlers here (sdkInternals.ts).
   */
  dispatch?: (message: JSONRPCMessage) => void;

  private starting = false;
  private started = false;
  private closed = false;
  private droppedAsNotReading = false;
  private screen: MessageScreen | undefined;
  private readonly maxBufferedBytes: number;
  private readonly upgradedSocket: UpgradedSocket | undefined;
  private corked = false;
  /** Messages (raw text) that arrived before `start()`: the SDK connects asynchronously. */
  private readonly early: Array<{ text: string; isBinary: boolean }> = [];

  constructor(
    private readonly socket: WebSocket,
    options: WebSocketServerTransportOptions = {},
  ) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.upgradedSocket = options.upgradedSocket;
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', () => this.fireClose());
    socket.on('error', (error) => this.report(error));
    void loadMessageSchema().catch((error: Error) => this.report(error));
  }

  async start(): Promise<void> {
    if (this.starting) throw new Error('WebSocketServerTransport already started');
    this.starting = true;
    this.screen = new MessageScreen(await loadMessageSchema());
    this.started = true;
    for (const { text, isBinary } of this.early.splice(0)) this.handle(text, isBinary);
    if (this.socket.readyState === WebSocket.CLOSED) this.fireClose();
  }

  /**
   * Resolves once the frame is queued on the socket, as the SDK's own WebSocket transport does: a
   * write that fails later surfaces as the socket's 'error'/'close', which end the session anyway.
   */
  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    this.checkWritable();
    this.screen?.noteSent(message);
    this.write(serializedAnswer(message) ?? JSON.stringify(message));
  }

  private checkWritable(): void {
    if (this.socket.readyState !== WebSocket.OPEN) throw new Error('Not connected: the WebSocket is closed');
    // Backpressure: a peer that does not read would otherwise grow this process's memory without bound.
    if (this.socket.bufferedAmount > this.maxBufferedBytes) {
      this.dropNotReadingPeer();
      throw new Error(`Not sent: the client is not reading (${this.socket.bufferedAmount} bytes waiting)`);
    }
  }

  private write(text: string): void {
    this.batchWrites();
    this.socket.send(text);
  }

  /**
   * Holds the TCP writes of everything sent until the current burst of promise jobs has run, then
   * writes them together: 16 answers to 16 requests that came in one read, or a run of pushed
   * notifications, leave in one system call instead of one each. A lone answer leaves as soon as its
   * own promise chain ends (no timer). `ws` writes its frames to the socket the server upgraded, so
   * corking that socket (Node's API) holds them.
   */
  private batchWrites(): void {
    const tcp = this.upgradedSocket;
    if (this.corked || !tcp || tcp.destroyed) return;
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
    try {
      const text = rawToString(data);
      if (!this.started) this.early.push({ text, isBinary });
      else this.handle(text, isBinary);
    } catch (error) {
      this.report(new Error(`A message could not be handled: ${(error as Error)?.message ?? String(error)}`));
    }
  }

  /** Screens one message and hands it to the SDK; whatever either throws stays with this message. */
  private handle(text: string, isBinary: boolean): void {
    try {
      const verdict = this.screen!.screen(text);
      if (verdict.kind === 'refuse') {
        this.report(new Error(`Ignored a ${isBinary ? 'binary' : 'text'} message: ${verdict.reason}`));
        const answer = verdict.answer;
        if (answer) {
          void this.send({ jsonrpc: '2.0', id: answer.id, error: { code: answer.code, message: answer.message } } as unknown as JSONRPCMessage).catch(
            () => undefined,
          );
        }
        return;
      }
      this.onreceive?.(verdict.message);
      if (this.dispatch) this.dispatch(verdict.message);
      else this.onmessage?.(verdict.message);
    } catch (error) {
      this.report(new Error(`A message could not be handled: ${(error as Error)?.message ?? String(error)}`));
    }
  }

  private dropNotReadingPeer(): void {
    if (this.droppedAsNotReading) return;
    this.droppedAsNotReading = true;
    this.report(new Error(`Closing: the client is not reading (${this.socket.bufferedAmount} bytes waiting, limit ${this.maxBufferedBytes})`));
    this.socket.close(NOT_READING_CLOSE_CODE, NOT_READING_CLOSE_REASON);
    // The close frame waits behind the unread data; free it all if the peer still does not read.
    setTimeout(() => this.socket.terminate(), NOT_READING_GRACE_MS).unref();
  }

  private report(error: Error): void {
    try {
      this.onerror?.(error);
    } catch {
      // A failing error handler must not turn one bad message into a dead connection.
    }
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.onclose?.();
    } catch (error) {
      this.report(error as Error);
    }
  }
}

function rawToString(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
