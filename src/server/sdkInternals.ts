import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The one place that uses members of the MCP SDK that are not its public API, kept only because
 * doing without costs more than 10% on rows of `npm run bench` (figures in docs/architecture.md,
 * "Validated once"). The SDK version they were read from is below; test/unit/server/sdkInternals.test.ts
 * fails when the installed SDK is another, so an upgrade means checking these again (and measuring
 * the SDK's own path with `npm run bench`) before moving the version here.
 */
export const SDK_VERSION_READ = '1.32.2';

/** Protocol's handler for each kind of message, which its connect() calls after classifying the message itself. */
interface ProtocolDispatch {
  _onrequest?(message: JSONRPCMessage, extra?: unknown): void;
  _onnotification?(message: JSONRPCMessage): void;
  _onresponse?(message: JSONRPCMessage): void;
}

/**
 * For each message, `Protocol.connect` tries up to four of the SDK's zod schemas to learn its kind,
 * and the first two fail on every request: about 10 µs and most of the garbage of a tools/call. The
 * transport has already checked each message against the SDK's `JSONRPCMessageSchema`
 * (messageGuard.ts), whose members are strict objects told apart by their keys, so this returns a
 * receiver that hands each one straight to the SDK's own handler for its kind, in the SDK's order
 * (responses, requests, notifications). Returns undefined when the SDK no longer has those handlers:
 * the SDK's own dispatch then stays in place.
 */
export function dispatchByKind(server: object): ((message: JSONRPCMessage) => void) | undefined {
  const protocol = server as ProtocolDispatch;
  const { _onrequest, _onnotification, _onresponse } = protocol;
  if (typeof _onrequest !== 'function' || typeof _onnotification !== 'function' || typeof _onresponse !== 'function') return undefined;
  return (message) => {
    if ('result' in message || 'error' in message) _onresponse.call(protocol, message);
    else if ('id' in message) _onrequest.call(protocol, message);
    else _onnotification.call(protocol, message);
  };
}
