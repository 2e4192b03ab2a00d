import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header the claude CLI sends with the lock file's `authToken` (docs/protocol.md#upgrade-and-auth). */
export const AUTH_HEADER = 'x-claude-code-ide-authorization';

/** Which MCP surface a connection asked for, decided by the request path before the upgrade. */
export type Route = 'ide' | 'tools';

/** Paths the server answers. The CLI's IDE connection always requests `/` (docs/protocol.md#upgrade-and-auth). */
const ROUTE_PATHS: Readonly<Record<string, Route>> = { '/': 'ide', '/tools': 'tools' };

/** 256 random bits, URL-safe so it can travel in a header or an environment variable. */
export function createAuthToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant-time comparison. Both sides are hashed first so that neither the length of the
 * expected token nor the position of the first differing byte leaks through timing.
 */
function tokensMatch(expected: string, provided: string | undefined): boolean {
  if (typeof provided !== 'string' || provided.length === 0) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(provided).digest();
  return timingSafeEqual(a, b);
}

export type UpgradeVerdict = { ok: true; route: Route } | { ok: false; status: 400 | 401 | 403 | 404; reason: string };

/** The WebSocket subprotocol every Claude Code client offers (docs/protocol.md#upgrade-and-auth). */
const MCP_SUBPROTOCOL = 'mcp';

/**
 * Decides, from the HTTP request alone, whether a WebSocket upgrade may proceed. Runs before the
 * upgrade so a refused peer never gets a socket. The reason is for the log and never contains the token.
 */
export function checkUpgradeRequest(req: Pick<IncomingMessage, 'headers' | 'url'>, token: string): UpgradeVerdict {
  // Browsers always send Origin on WebSocket requests; the CLI and the SDK's Node client never do.
  // Refusing it keeps any web page (including DNS-rebinding tricks) away from this server.
  if (req.headers.origin !== undefined) {
    return { ok: false, status: 403, reason: `browser origin ${JSON.stringify(String(req.headers.origin).slice(0, 100))} refused` };
  }
  const header = req.headers[AUTH_HEADER];
  const provided = Array.isArray(header) ? header[0] : header;
  if (provided === undefined) return { ok: false, status: 401, reason: 'missing auth token' };
  if (!tokensMatch(token, provided)) return { ok: false, status: 401, reason: 'wrong auth token' };
  const path = (req.url ?? '/').split('?')[0];
  const route = ROUTE_PATHS[path];
  if (route === undefined) return { ok: false, status: 404, reason: `unknown path ${JSON.stringify(path.slice(0, 100))}` };
  // The CLI (both routes) and the SDK's client always offer `mcp`; a client that does not is not one of them.
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  if (!offered.includes(MCP_SUBPROTOCOL)) return { ok: false, status: 400, reason: 'upgrade request without the mcp subprotocol' };
  return { ok: true, route };
}
