import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's own message schemas: `JSONRPCMessageSchema` and the four strict objects it is the union
 * of. Passed in rather than imported: they bring zod and the SDK's types, which load with the first
 * connection, not at activation (webSocketTransport.ts loads them).
 */
export type MessageSchemas = Pick<
  typeof import('@modelcontextprotocol/sdk/types.js'),
  'JSONRPCMessageSchema' | 'JSONRPCRequestSchema' | 'JSONRPCNotificationSchema' | 'JSONRPCResultResponseSchema' | 'JSONRPCErrorResponseSchema'
>;

// What a peer's message must pass before the MCP SDK sees it. The SDK assumes well-formed,
// reasonable input: a 10,000-deep `result` in a response to nothing makes its error path call
// JSON.stringify until the stack overflows, outside any handler. So nesting is bounded here,
// responses to requests this server never sent are dropped here, and requests before `initialize`
// are refused here (docs/architecture.md, "What a peer's message must pass").

/** Deepest JSON nesting accepted. MCP messages from the CLI nest about 6 levels; tool arguments a few more. */
export const MAX_JSON_DEPTH = 64;

/** JSON-RPC 2.0 error codes used for refusals. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** Not in JSON-RPC or MCP; the code LSP uses for the same situation ("ServerNotInitialized"). */
export const NOT_INITIALIZED = -32002;

/** Methods a client may call before `initialize` (MCP allows ping at any time). */
const ALLOWED_BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

export type RequestId = string | number;

export type Screened =
  | { kind: 'accept'; message: JSONRPCMessage }
  /** Refuse; `answer` is the JSON-RPC error to send back, absent when the message must not be answered. */
  | { kind: 'refuse'; reason: string; answer?: { id: RequestId | null; code: number; message: string } };

/** True when `value` nests arrays/objects deeper than `max`. Recursion stops at `max`, so it cannot overflow. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  for (const child of children) if (nestedDeeperThan(child, max - 1)) return true;
  return false;
}

function validId(value: unknown): value is RequestId {
  return (typeof value === 'string' && value.length <= 256) || (typeof value === 'number' && Number.isSafeInteger(value));
}

/**
 * True for the shape nearly every request and notification has, which the SDK's strict
 * JSONRPCRequestSchema / JSONRPCNotificationSchema accept as it is: jsonrpc "2.0", a method name, a
 * usable id (requests) or none (notifications), params absent or an object without `_meta` (or
 * `__proto__`), no other key. Checking that takes a few comparisons where the zod parse took 5-15 µs in place (per message,
 * on top of the SDK's own parse against the method's schema, which checks the params). Everything
 * else (responses, `_meta`, odd values) still goes through the SDK's schema.
 */
function plainCall(raw: Record<string, unknown>, isRequest: boolean): boolean {
  if (raw.jsonrpc !== '2.0' || typeof raw.method !== 'string') return false;
  if (isRequest ? !validId(raw.id) : 'id' in raw) return false;
  for (const key in raw) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
  if (!('params' in raw)) return true;
  const params = raw.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return false;
  // zod copies params' own keys into a new object, where a "__proto__" key from JSON.parse would set
  // the copy's prototype instead: leave that rare case to zod, so the output is the same.
  return !Object.prototype.hasOwnProperty.call(params, '_meta') && !Object.prototype.hasOwnProperty.call(params, '__proto__');
}

/** Short, log-safe rendering of an id the peer chose. */
function describeId(id: unknown): string {
  const text = typeof id === 'string' ? JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id) : typeof id === 'number' ? String(id) : typeof id;
  return text;
}

/**
 * Per-connection screening state: which requests this server sent (so a response can be matched)
 * and whether the peer has called `initialize`.
 */
export class MessageScreen {
  constructor(private readonly schemas: MessageSchemas) {}

  private initialized = false;
  private readonly awaitingResponse = new Set<RequestId>();

  /** Call for every message this server sends. */
  noteSent(message: JSONRPCMessage): void {
    const m = message as { id?: RequestId; method?: unknown };
    if (typeof m.method === 'string' && m.id !== undefined) this.awaitingResponse.add(m.id);
  }

  /**
   * The one member of the SDK's `JSONRPCMessageSchema` union that can accept this message. The four
   * members are strict objects told apart by their keys (a request has method and id, a notification
   * method without id, a result response result without method, an error response error without
   * method or result), so parsing with that member accepts and returns exactly what the union does;
   * the union itself would first try, and fail, the members before it (a notification costs a failed
   * request parse, a response two or three), building zod issues nobody reads.
   */
  private schemaFor(raw: Record<string, unknown>) {
    const s = this.schemas;
    if ('method' in raw) return 'id' in raw ? s.JSONRPCRequestSchema : s.JSONRPCNotificationSchema;
    if ('result' in raw) return s.JSONRPCResultResponseSchema;
    if ('error' in raw) return s.JSONRPCErrorResponseSchema;
    return s.JSONRPCMessageSchema;
  }

  /** Decides what to do with one text message from the peer. Never throws. */
  screen(text: string): Screened {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { kind: 'refuse', reason: 'not valid JSON', answer: { id: null, code: PARSE_ERROR, message: 'Parse error: the message is not valid JSON' } };
    }
    if (Array.isArray(parsed)) {
      return {
        kind: 'refuse',
        reason: 'a JSON-RPC batch',
        answer: { id: null, code: INVALID_REQUEST, message: 'Invalid Request: batches are not supported; send one message per WebSocket message' },
      };
    }
    if (parsed === null || typeof parsed !== 'object') {
      return {
        kind: 'refuse',
        reason: 'not a JSON object',
        answer: { id: null, code: INVALID_REQUEST, message: 'Invalid Request: a JSON-RPC message must be an object' },
      };
    }
    const raw = parsed as Record<string, unknown>;
    const isRequest = typeof raw.method === 'string' && 'id' in raw;
    const isResponse = !('method' in raw) && ('result' in raw || 'error' in raw);
    // A request is answered with its own id when it has a usable one; responses and notifications never are.
    const answerId = isRequest && validId(raw.id) ? raw.id : null;
    const answerable = !isResponse && !(typeof raw.method === 'string' && !('id' in raw));

    if (nestedDeeperThan(raw, MAX_JSON_DEPTH)) {
      const reason = `nested deeper than ${MAX_JSON_DEPTH} levels`;
      return { kind: 'refuse', reason, answer: answerable ? { id: answerId, code: INVALID_REQUEST, message: `Invalid Request: ${reason}` } : undefined };
    }
    const checked = plainCall(raw, isRequest) ? { success: true as const, data: raw as JSONRPCMessage } : this.schemaFor(raw).safeParse(raw);
    if (!checked.success || (isRequest && !validId(raw.id))) {
      const reason = 'not a valid JSON-RPC 2.0 message';
      return { kind: 'refuse', reason, answer: answerable ? { id: answerId, code: INVALID_REQUEST, message: `Invalid Request: ${reason}` } : undefined };
    }
    const message = checked.data;

    if (isResponse) {
      const id = (message as { id: RequestId }).id;
      if (!this.awaitingResponse.delete(id)) return { kind: 'refuse', reason: `a response to id ${describeId(id)}, which this server never sent` };
      return { kind: 'accept', message };
    }
    if (!this.initialized) {
      const method = raw.method as string;
      if (method === 'initialize') this.initialized = true;
      else if (!ALLOWED_BEFORE_INITIALIZE.has(method)) {
        const reason = `${JSON.stringify(method.slice(0, 60))} before initialize`;
        return isRequest
          ? { kind: 'refuse', reason, answer: { id: answerId, code: NOT_INITIALIZED, message: 'Server not initialized: send initialize first' } }
          : { kind: 'refuse', reason };
      }
    }
    return { kind: 'accept', message };
  }
}
