import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';

/**
 * A client-side Transport over `ws` that can send headers: the SDK's own WebSocketClientTransport
 * cannot, and the server requires the auth header. Used to drive the server with the real SDK Client.
 */
export class HeaderWebSocketClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  socket?: WebSocket;
  closeCode?: number;
  closeReason?: string;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, ['mcp'], { headers: this.headers });
      this.socket = socket;
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      socket.once('error', reject);
      socket.on('message', (data) => {
        try {
          this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(data.toString())));
        } catch (error) {
          this.onerror?.(error as Error);
        }
      });
      socket.on('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        this.onclose?.();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return reject(new Error('Not connected'));
      this.socket.send(JSON.stringify(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.socket?.close();
  }
}

/** Resolves with the close code and reason of a socket. */
export function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

/** Attempts a raw upgrade and reports the HTTP status the server answered with (101 on success). */
export function upgradeStatus(url: string, headers: Record<string, string>, protocols: string[] = ['mcp']): Promise<{ status: number; protocol?: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers });
    socket.once('open', () => {
      resolve({ status: 101, protocol: socket.protocol });
      socket.close();
    });
    socket.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
    });
    socket.once('error', (error) => {
      if (!(error.message || '').includes('Unexpected server response')) reject(error);
    });
  });
}
