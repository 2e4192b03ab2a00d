import { ErrorCode, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * The requests of a handshake (`initialize`, `tools/list`) and `ping`, answered by the SDK's own
 * handlers without the SDK's per-request scaffolding. For every request the SDK's Protocol builds
 * an AbortController, checks the params for a task with a zod parse, builds an `extra` with two
 * closures and runs the handler four promise steps later: about half of the server's own time in a
 * handshake, for handlers that never look at any of it (they answer at once, from the request alone).
 * The handler called here is the one the SDK registered (it parses the request against the method's
 * schema, as before), and its answer or error is sent in the shape the SDK sends it. Requests that
 * carry what that scaffolding is for (`_meta`: progress tokens, related tasks; `task`) still go
 * through the SDK.
 */
const DIRECT_METHODS = new Set(['initialize', 'tools/list', 'ping']);

/** What the handlers are given as `extra`: they do not read it, but a signal that never aborts is the honest value. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Results that are the same object for every request (the tools/list answer of a tool set), with
 * their JSON text: serialized once rather than on every handshake.
 */
const serializedResults = new WeakMap<object, string>();

/** Marks `result` as answered unchanged from now on, so its JSON text is made once. */
export function serializeOnce<T extends object>(result: T): T {
  serializedResults.set(result, JSON.stringify(result));
  return result;
}

type RequestHandler = (request: JSONRPCRequest, extra: object) => Promise<unknown>;

/** The part of the SDK's Protocol this uses (`_requestHandlers` is where Protocol keeps the handlers it wraps). */
export interface ProtocolHandlers {
  _requestHandlers?: Map<string, RequestHandler>;
  _onerror?(error: Error): void;
}

/** Where answers go: the connection's transport. */
export interface AnswerSink {
  send(message: JSONRPCMessage): Promise<void>;
  sendSerializedResult(id: JSONRPCRequest['id'], resultJson: string): Promise<void>;
}

/**
 * Answers `request` from the SDK's own handler when it is one of {@link DIRECT_METHODS} without
 * `_meta` or `task`; returns false (nothing done) otherwise, and the SDK handles it as before.
 */
export function answerDirectly(protocol: ProtocolHandlers, sink: AnswerSink, request: JSONRPCRequest): boolean {
  if (!DIRECT_METHODS.has(request.method)) return false;
  const params = request.params as Record<string, unknown> | undefined;
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
      (result) => {
        const json = typeof result === 'object' && result !== null ? serializedResults.get(result) : undefined;
        // The SDK's response object is { result, jsonrpc, id }: the same keys in the same order.
        return json !== undefined ? sink.sendSerializedResult(id, json) : sink.send({ result, jsonrpc: '2.0', id } as JSONRPCMessage);
      },
      (error: { code?: unknown; message?: unknown; data?: unknown }) =>
        sink.send({
          jsonrpc: '2.0',
          id,
          error: {
            code: Number.isSafeInteger(error?.code) ? (error.code as number) : ErrorCode.InternalError,
            message: (error?.message as string | undefined) ?? 'Internal error',
            ...(error?.data !== undefined && { data: error.data }),
          },
        } as JSONRPCMessage),
    )
    .catch((error: unknown) => protocol._onerror?.(new Error(`Failed to send response: ${String(error)}`)));
  return true;
}
