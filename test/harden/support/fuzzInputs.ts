import { OP, closePayload, encodeFrame } from '../../support/rawWebSocket';

// Reproducible malformed inputs from a seed. Two kinds:
//  - messages: text (or binary) WebSocket messages that are valid frames carrying bad JSON-RPC; the
//    connection must survive them, each request with a tracked id must get exactly one answer, and
//    nothing may answer a response, a notification or an id that was never a request's;
//  - frames: WebSocket protocol violations; the server must close with the right code.

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Fuzz {
  private readonly rand: () => number;
  private nextId = 1;

  constructor(seed: number) {
    this.rand = seededRandom(seed);
  }

  int(max: number): number {
    return Math.floor(this.rand() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  /** A fresh id no other input uses: the answer to it can be counted. */
  trackedId(): number | string {
    const n = this.nextId++;
    return this.chance(0.5) ? n : `t-${n}`;
  }

  /** An id never used for a request: nothing may ever be sent back with it. */
  untrackedId(): number | string {
    const n = this.nextId++;
    return this.chance(0.5) ? 1_000_000_000 + n : `u-${n}`;
  }

  text(maxLength: number): string {
    const alphabet = 'abcXYZ019 {}[]":,\\/\n\t\u00e9\u4e2d\ud83d\ude00';
    let out = '';
    const length = this.int(maxLength);
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** A random JSON value of bounded size. */
  value(depth = 3): unknown {
    const kind = this.int(depth > 0 ? 8 : 5);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER]);
      case 3:
        return this.text(20);
      case 4:
        return '';
      case 5:
      case 6:
        return Object.fromEntries(
          Array.from({ length: this.int(4) }, () => [
            this.pick(['a', 'ID', 'method', '__proto__', 'constructor', 'jsonrpc', 'result', this.text(6)]),
            this.value(depth - 1),
          ]),
        );
      default:
        return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
    }
  }

  nested(depth: number, leaf = '0'): string {
    const open = this.chance(0.5) ? '[' : '{"a":';
    const close = open === '[' ? ']' : '}';
    return open.repeat(depth) + leaf + close.repeat(depth);
  }

  /** One malformed (or occasionally valid) JSON-RPC message. */
  message(): FuzzMessage {
    const kind = this.pick(MESSAGE_KINDS);
    const tracked = (message: Record<string, unknown>) => {
      const id = this.trackedId();
      return { kind, text: JSON.stringify({ ...message, id }), answers: [id] };
    };
    switch (kind) {
      case 'valid-call':
        return tracked({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: this.text(50) } } });
      case 'valid-ping':
        return tracked({ jsonrpc: '2.0', method: 'ping' });
      case 'unknown-method':
        return tracked({
          jsonrpc: '2.0',
          method: this.pick(['', 'x', 'tools/cal', 'resources/list', 'sampling/createMessage', '\u0000', this.text(30)]),
          params: {},
        });
      case 'unknown-tool':
        return tracked({ jsonrpc: '2.0', method: 'tools/call', params: { name: this.pick(['nope', '', 'blob2', this.text(10)]), arguments: this.value(2) } });
      case 'wrong-arguments':
        return tracked({
          jsonrpc: '2.0',
          method: 'tools/call',
          params: { name: 'echo', arguments: this.pick([{ text: 5 }, { text: null }, {}, [], 'text', { text: 'x', extra: this.value(2) }]) },
        });
      case 'wrong-params':
        return tracked({ jsonrpc: '2.0', method: this.pick(['tools/call', 'tools/list', 'initialize']), params: this.pick(['x', 5, [1, 2], true, null]) });
      case 'wrong-version':
        return tracked({ jsonrpc: this.pick(['1.0', '2', 2, null, '']), method: 'ping' });
      case 'no-version':
        return tracked({ method: 'ping' });
      case 'huge-text':
        return tracked({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 'h'.repeat(50_000 + this.int(100_000)) } } });
      case 'deep-request': {
        const id = this.trackedId();
        return {
          kind,
          text: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"echo","arguments":{"text":${this.nested(65 + this.int(20_000))}}}}`,
          answers: [id],
        };
      }
      case 'deep-response': {
        const id = this.untrackedId();
        return { kind, text: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"x":${this.nested(1000 + this.int(20_000))}}}`, forbidden: [id] };
      }
      case 'deep-notification':
        return { kind, text: `{"jsonrpc":"2.0","method":"notifications/message","params":${this.nested(65 + this.int(5_000))}}` };
      case 'response-to-nothing': {
        const id = this.untrackedId();
        const body = this.chance(0.5) ? { result: this.value(3) } : { error: { code: this.int(100000) - 50000, message: this.text(20), data: this.value(2) } };
        return { kind, text: JSON.stringify({ jsonrpc: '2.0', id, ...body }), forbidden: [id] };
      }
      case 'notification':
        return {
          kind,
          text: JSON.stringify({
            jsonrpc: '2.0',
            method: this.pick([
              'notifications/initialized',
              'notifications/cancelled',
              'notifications/progress',
              'notifications/roots/list_changed',
              'ide_connected',
              'x',
            ]),
            // ide_connected with an invalid pid only: a valid one would supersede other fuzz connections (newest wins).
            params: this.pick([
              { pid: 1e308 },
              { pid: -1 },
              { pid: 'x' },
              { requestId: this.untrackedId() },
              { progressToken: 1, progress: 'x' },
              this.value(2),
            ]),
          }),
        };
      case 'batch': {
        const inner = Array.from({ length: 1 + this.int(4) }, () => ({ jsonrpc: '2.0', id: this.untrackedId(), method: 'ping' }));
        return { kind, text: JSON.stringify(inner), forbidden: inner.map((m) => m.id), nullAnswers: 1 };
      }
      case 'bad-id-type': {
        const id = this.pick([{}, [], true, 1.5, 1e308, -(2 ** 60), 'i'.repeat(300 + this.int(10_000))]);
        return { kind, text: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }), nullAnswers: 1 };
      }
      case 'method-not-string': {
        const id = this.untrackedId();
        return { kind, text: JSON.stringify({ jsonrpc: '2.0', id, method: this.pick([5, null, {}, [], true]) }), forbidden: [id], nullAnswers: 1 };
      }
      case 'random-json':
        return { kind, text: JSON.stringify(this.value(4)) ?? 'null', nullAnswers: 1 };
      case 'garbage':
        return { kind, text: this.pick(['', '{', '}', '{"jsonrpc":"2.0",', 'null', 'NaN', '{"a":1}{"b":2}', '\u0000', this.text(200)]), nullAnswers: 1 };
      case 'truncated': {
        const id = this.untrackedId();
        const full = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: this.text(40) } } });
        return { kind, text: full.slice(0, 1 + this.int(full.length - 2)), forbidden: [id], nullAnswers: 1 };
      }
      case 'binary-frame':
        return { ...tracked({ jsonrpc: '2.0', method: 'ping' }), binary: true };
      default:
        throw new Error(`unknown kind ${kind}`);
    }
  }

  /** One WebSocket protocol violation and the close code the server must answer it with. */
  frame(maxMessageBytes: number): FuzzFrame {
    const kind = this.pick(FRAME_KINDS);
    const text = (payload: Buffer | string, extra: Partial<Parameters<typeof encodeFrame>[0]> = {}) => encodeFrame({ opcode: OP.text, payload, ...extra });
    switch (kind) {
      case 'bad-utf8':
        return { kind, frames: [text(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"'), this.pick(BAD_UTF8), Buffer.from('"}')]))], close: 1007 };
      case 'bad-utf8-fragmented':
        return {
          kind,
          frames: [text(Buffer.from([0x61, 0xe2]), { fin: false }), encodeFrame({ opcode: OP.continuation, payload: Buffer.from([0x28, 0xa1]) })],
          close: 1007,
        };
      case 'close-bad-utf8-reason':
        return { kind, frames: [encodeFrame({ opcode: OP.close, payload: Buffer.concat([closePayload(1000), this.pick(BAD_UTF8)]) })], close: 1007 };
      case 'reserved-bits':
        return { kind, frames: [text('{}', { rsv: 1 + this.int(7) })], close: 1002 };
      case 'fragmented-control':
        return { kind, frames: [encodeFrame({ opcode: this.pick([OP.ping, OP.pong, OP.close]), payload: 'x', fin: false })], close: 1002 };
      case 'control-too-long':
        return { kind, frames: [encodeFrame({ opcode: this.pick([OP.ping, OP.pong]), payload: Buffer.alloc(126 + this.int(200)) })], close: 1002 };
      case 'unmasked':
        return { kind, frames: [text('{"jsonrpc":"2.0","id":1,"method":"ping"}', { mask: false })], close: 1002 };
      case 'unknown-opcode':
        return { kind, frames: [encodeFrame({ opcode: this.pick([3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf]), payload: 'x' })], close: 1002 };
      case 'continuation-first':
        return { kind, frames: [encodeFrame({ opcode: OP.continuation, payload: 'x' })], close: 1002 };
      case 'new-message-mid-fragment':
        return { kind, frames: [text('{"a":', { fin: false }), text('1}')], close: 1002 };
      case 'close-bad-code':
        return {
          kind,
          frames: [encodeFrame({ opcode: OP.close, payload: closePayload(this.pick([0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])) })],
          close: 1002,
        };
      case 'close-one-byte':
        return { kind, frames: [encodeFrame({ opcode: OP.close, payload: Buffer.from([3]) })], close: 1002 };
      case 'oversize-declared':
        // Only the header: the server must refuse on the declared length, without waiting for the bytes.
        return { kind, frames: [text(Buffer.alloc(0), { declaredLength: maxMessageBytes + 1 + this.int(2 ** 30) }).subarray(0, 14)], close: 1009 };
      case 'oversize-fragmented': {
        const half = Math.ceil(maxMessageBytes / 2) + 1;
        return {
          kind,
          frames: [text(Buffer.alloc(half, 0x20), { fin: false }), encodeFrame({ opcode: OP.continuation, payload: Buffer.alloc(half, 0x20) })],
          close: 1009,
        };
      }
      default:
        throw new Error(`unknown kind ${kind}`);
    }
  }
}

export interface FuzzMessage {
  kind: string;
  text: string;
  binary?: boolean;
  /** Ids that must be answered exactly once. */
  answers?: Array<number | string>;
  /** Ids nothing may ever be sent back with. */
  forbidden?: Array<number | string>;
  /** How many answers with id null this input may cause (a refusal that cannot name an id). */
  nullAnswers?: number;
}

export interface FuzzFrame {
  kind: string;
  frames: Buffer[];
  close: 1002 | 1007 | 1009;
}

const MESSAGE_KINDS = [
  'valid-call',
  'valid-call',
  'valid-ping',
  'unknown-method',
  'unknown-tool',
  'wrong-arguments',
  'wrong-params',
  'wrong-version',
  'no-version',
  'huge-text',
  'deep-request',
  'deep-response',
  'deep-notification',
  'response-to-nothing',
  'response-to-nothing',
  'notification',
  'batch',
  'bad-id-type',
  'method-not-string',
  'random-json',
  'garbage',
  'truncated',
  'binary-frame',
] as const;

const FRAME_KINDS = [
  'bad-utf8',
  'bad-utf8-fragmented',
  'close-bad-utf8-reason',
  'reserved-bits',
  'fragmented-control',
  'control-too-long',
  'unmasked',
  'unknown-opcode',
  'continuation-first',
  'new-message-mid-fragment',
  'close-bad-code',
  'close-one-byte',
  'oversize-declared',
  'oversize-fragmented',
] as const;

/** Invalid UTF-8: a lone continuation byte, a truncated sequence, an overlong form, a surrogate, beyond U+10FFFF. */
const BAD_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0x80]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xe2, 0x82]),
];
