import * as net from 'node:net';
import { randomBytes } from 'node:crypto';
import { AUTH_HEADER } from '../../src/server/auth';
import { TEST_TOKEN } from './serverFixture';

// A WebSocket client written by hand over net.Socket, so a test can send what no well-behaved client
// would: reserved bits, fragmented control frames, bad UTF-8, half requests, and never read or answer.

export const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

export interface FrameSpec {
  opcode: number;
  payload?: Buffer | string;
  fin?: boolean;
  /** RSV1-3 bits, 0-7. */
  rsv?: number;
  /** Clients must mask; false sends an unmasked frame (a protocol error). */
  mask?: boolean;
  /** Claim this payload length in the header instead of the real one. */
  declaredLength?: number;
}

/** Encodes one client frame (RFC 6455 §5.2). */
export function encodeFrame(spec: FrameSpec): Buffer {
  const payload = typeof spec.payload === 'string' ? Buffer.from(spec.payload) : (spec.payload ?? Buffer.alloc(0));
  const length = spec.declaredLength ?? payload.length;
  const mask = spec.mask ?? true;
  const header: number[] = [((spec.fin ?? true) ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | spec.opcode];
  const maskBit = mask ? 0x80 : 0;
  let extended = Buffer.alloc(0);
  if (length < 126) header.push(maskBit | length);
  else if (length < 65536) {
    header.push(maskBit | 126);
    extended = Buffer.alloc(2);
    extended.writeUInt16BE(length);
  } else {
    header.push(maskBit | 127);
    extended = Buffer.alloc(8);
    extended.writeBigUInt64BE(BigInt(length));
  }
  if (!mask) return Buffer.concat([Buffer.from(header), extended, payload]);
  const key = randomBytes(4);
  const masked = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) masked[i] = payload[i] ^ key[i & 3];
  return Buffer.concat([Buffer.from(header), extended, key, masked]);
}

export function closePayload(code: number, reason = ''): Buffer {
  const buffer = Buffer.alloc(2 + Buffer.byteLength(reason));
  buffer.writeUInt16BE(code);
  buffer.write(reason, 2);
  return buffer;
}

export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

/** Collects the (unmasked) frames the server sends on a raw socket. */
export class FrameReader {
  readonly frames: ServerFrame[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  closeCode?: number;
  closeReason?: string;
  ended = false;

  constructor(socket: net.Socket, initial: Buffer = Buffer.alloc(0)) {
    socket.on('data', (chunk) => this.push(chunk));
    socket.on('close', () => (this.ended = true));
    socket.on('error', () => undefined);
    if (initial.length) this.push(initial);
  }

  texts(): string[] {
    return this.frames.filter((f) => f.opcode === OP.text).map((f) => f.payload.toString('utf8'));
  }

  private push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (this.buffer.length < 2) return;
      let length = this.buffer[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const frame = { opcode: this.buffer[0] & 0x0f, payload: this.buffer.subarray(offset, offset + length) };
      this.buffer = this.buffer.subarray(offset + length);
      this.frames.push(frame);
      if (frame.opcode === OP.close && frame.payload.length >= 2) {
        this.closeCode = frame.payload.readUInt16BE(0);
        this.closeReason = frame.payload.subarray(2).toString('utf8');
      }
    }
  }
}

export interface RawUpgradeOptions {
  path?: string;
  headers?: Record<string, string>;
  /** Extra raw header lines, sent verbatim (duplicates, odd casing). */
  rawHeaderLines?: string[];
  /** Send no token header at all. */
  noToken?: boolean;
  protocol?: string | null;
}

/** The HTTP upgrade request a raw client sends. */
export function upgradeRequest(port: number, options: RawUpgradeOptions = {}): string {
  const lines = [
    `GET ${options.path ?? '/'} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
  ];
  if (options.protocol !== null) lines.push(`Sec-WebSocket-Protocol: ${options.protocol ?? 'mcp'}`);
  if (!options.noToken) lines.push(`${AUTH_HEADER}: ${TEST_TOKEN}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`);
  lines.push(...(options.rawHeaderLines ?? []));
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export interface RawAnswer {
  /** HTTP status of the answer, 0 when the server closed without one. */
  status: number;
  head: string;
  /** Bytes after the head (frames, or an HTTP body). */
  rest: Buffer;
  socket: net.Socket;
}

/** Sends a raw request and resolves with the server's HTTP answer (the socket stays open after a 101). */
export function rawRequest(port: number, request: string | Buffer, timeoutMs = 3000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received: Buffer = Buffer.alloc(0);
    const finish = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      const end = received.indexOf('\r\n\r\n');
      const head = end >= 0 ? received.subarray(0, end).toString('latin1') : received.toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, head, rest: end >= 0 ? received.subarray(end + 4) : Buffer.alloc(0), socket });
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0 && /^HTTP\/1\.1 101/.test(received.toString('latin1'))) finish();
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', onData);
    socket.once('close', finish);
    socket.once('error', () => undefined);
    socket.write(request);
  });
}

/** Upgrades a raw socket with the right token; rejects unless the server answers 101. */
export async function rawConnect(port: number, options: RawUpgradeOptions = {}): Promise<{ socket: net.Socket; reader: FrameReader }> {
  const answer = await rawRequest(port, upgradeRequest(port, options));
  if (answer.status !== 101) throw new Error(`upgrade refused: ${answer.head.split('\r\n')[0]}`);
  answer.socket.removeAllListeners('close');
  return { socket: answer.socket, reader: new FrameReader(answer.socket, answer.rest) };
}

/** A text frame carrying one JSON-RPC message. */
export function textFrame(message: unknown): Buffer {
  return encodeFrame({ opcode: OP.text, payload: typeof message === 'string' ? message : JSON.stringify(message) });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } },
};
