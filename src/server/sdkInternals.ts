import { ErrorCode, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * The one place that uses members of the MCP SDK that are not its public API, kept only because
 * doing without costs more than 10% on rows of `npm run bench` (figures in docs/architecture.md,
 * "Validated once" and "The handshake answered directly"). The SDK version they were read from is
 * below; test/unit/server/sdkInternals.test.ts fails when the installed SDK is another, so an upgrade
 * means checking these again (and measuring the SDK's own path with `npm run bench`) before moving
 * the version here.
 */
export const SDK_VERSION_READ = '1.32.2';

type RequestHandler = (request: JSONRPCRequest, extra: object) => Promise<unknown>;

/** What Protocol keeps: its handler for each kind of message, the request handlers it wraps, its error hook. */
interface ProtocolInternals {
  _onrequest?(message: JSONRPCMessage, extra?: unknown): void;
  _onnotification?(message: JSONRPCMessage): void;
  _onresponse?(message: JSONRPCMessage): void;
  _requestHandlers?: Map<string, RequestHandler>;
  _onerror?(error: Error): void;
}

/**
 * For each message, `Protocol.connect` tries up to four of the SDK's zod schemas to learn its kind,
 * and the first two fail on every request: about 10 µs and most of the garbage of a tools/call. The
 * transport has already checked each message against the SDK's `JSONRPCMessageSchema`
 * (messageGuard.ts), whose members are strict objects told apart by their keys, so this returns a
 * receiver that hands each one straight to the SDK's own handler for its kind, in the SDK's order
 * (responses, requests, notifications); the handshake's requests are answered as {@link answerDirectly}
 * says. Returns undefined when the SDK no longer has those handlers: its own dispatch then stays.
 */
export function dispatchByKind(server: object, send: (message: JSONRPCMessage) => Promise<void>): ((message: JSONRPCMessage) => void) | undefined {
  const protocol = server as ProtocolInternals;
  const { _onrequest, _onnotification, _onresponse } = protocol;
  if (typeof _onrequest !== 'function' || typeof _onnotification !== 'function' || typeof _onresponse !== 'function') return undefined;
  return (message) => {
    if ('result' in message || 'error' in message) _onresponse.call(protocol, message);
    else if ('id' in message) {
      if (!answerDirectly(protocol, send, message)) _onrequest.call(protocol, message);
    } else _onnotification.call(protocol, message);
  };
}

/**
 * The requests of a handshake and `ping`. For every request the SDK's Protocol builds an
 * AbortController, checks the params for a task with a zod parse, builds an `extra` with two closures
 * and runs the handler four promise steps later; these handlers never look at any of it.
 */
const DIRECT_METHODS = new Set(['initialize', 'tools/list', 'ping']);

/** What the handlers are given as `extra`: they do not read it, but a signal that never aborts is the honest value. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Answers `request` from the handler the SDK registered for it (which parses the request against
 * the method's schema, as the SDK's path does) when it is one of {@link DIRECT_METHODS} without
 * `_meta` or `task`, in the shape the SDK sends answers and errors; returns false (nothing done)
 * otherwise, and the SDK handles it.
 */
function answerDirectly(protocol: ProtocolInternals, send: (message: JSONRPCMessage) => Promise<void>, request: JSONRPCRequest): boolean {
  if (!DIRECT_METHODS.has(request.method)) return false;
  const params = request.params;
  if (params !== undefined && ('_meta' in params || 'task' in params)) return false;
  const handler = protocol._requestHandlers?.get(request.method);
  if (typeof handler !== 'function') return false;
  const { id } = request;
  let answered: Promise<unknown>;
  try {
    answered = handler(request, { signal: NEVER_ABORTED, requestId: id });
  } catch (error) {
    answered = Promise.reject(error);
  }
  answered
    .then(
      // The SDK's answer object: { result, jsonrpc, id }, the same keys in the same order.
      (result) => send({ result, jsonrpc: '2.0', id } as JSONRPCMessage),
      (error: { code?: unknown; message?: unknown; data?: unknown }) =>
        send({
          jsonrpc: '2.0',
          id,
          error: {
            code: Number.isSafeInteger(error?.code) ? (error.code as number) : ErrorCode.InternalError,
            message: (error?.message as string | undefined) ?? 'Internal error',
            ...(error?.data !== undefined && { data: error.data }),
          },
        }),
    )
    .catch((error: unknown) => protocol._onerror?.(new Error(`Failed to send response: ${String(error)}`)));
  return true;
}
