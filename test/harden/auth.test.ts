import { AUTH_HEADER } from '../../src/server/auth';
import { rawRequest, upgradeRequest, type RawUpgradeOptions } from '../support/rawWebSocket';
import { TEST_TOKEN } from '../support/serverFixture';
import { HardenServer, figures, probe } from './support/hardenServer';

// Malformed upgrade requests: each is refused with an HTTP error before any WebSocket exists, so not
// one MCP byte is sent; neither a reply nor a log line ever contains the token.

interface Case {
  name: string;
  request: RawUpgradeOptions | string;
  status: number;
  /** Refused by Node or ws after our checks passed: they may cut the socket before the client reads the status. */
  byLibrary?: boolean;
}

const T = TEST_TOKEN;
const token = (value: string): RawUpgradeOptions => ({ noToken: true, headers: { [AUTH_HEADER]: value } });
const origin = (value: string): RawUpgradeOptions => ({ headers: { Origin: value } });

const refused: Case[] = [
  // token
  { name: 'no token', request: { noToken: true }, status: 401 },
  { name: 'empty token', request: token(''), status: 401 },
  { name: 'wrong token', request: token('wrong-token'), status: 401 },
  { name: 'token prefix', request: token(T.slice(0, -1)), status: 401 },
  { name: 'token first half', request: token(T.slice(0, T.length / 2)), status: 401 },
  { name: 'token plus a character', request: token(`${T}x`), status: 401 },
  { name: 'token upper case', request: token(T.toUpperCase()), status: 401 },
  { name: 'token as Bearer', request: token(`Bearer ${T}`), status: 401 },
  { name: 'token with a NUL-like escape', request: token(`${T}\\0`), status: 401 },
  { name: 'token twice (joined by Node)', request: { rawHeaderLines: [`${AUTH_HEADER}: ${T}`] }, status: 401 },
  { name: 'wrong token then right token', request: { noToken: true, rawHeaderLines: [`${AUTH_HEADER}: nope`, `${AUTH_HEADER}: ${T}`] }, status: 401 },
  { name: 'token in the Authorization header', request: { noToken: true, headers: { Authorization: `Bearer ${T}` } }, status: 401 },
  { name: 'token in the query string', request: { noToken: true, path: `/?token=${T}` }, status: 401 },
  { name: 'token under a similar header name', request: { noToken: true, headers: { 'x-claude-code-ide-authorisation': T } }, status: 401 },
  { name: 'token 100 KB long', request: token('a'.repeat(10_000)), status: 401 },
  // Origin (a browser page; right token or not)
  { name: 'Origin null', request: origin('null'), status: 403 },
  { name: 'Origin http://localhost', request: origin('http://localhost'), status: 403 },
  { name: 'Origin http://127.0.0.1', request: origin('http://127.0.0.1'), status: 403 },
  { name: 'Origin vscode-webview', request: origin('vscode-webview://abc'), status: 403 },
  { name: 'Origin file://', request: origin('file://'), status: 403 },
  { name: 'Origin empty', request: origin(''), status: 403 },
  { name: 'Origin evil, no token', request: { noToken: true, headers: { Origin: 'http://evil.example' } }, status: 403 },
  { name: 'two Origin headers', request: { rawHeaderLines: ['Origin: http://a.example', 'Origin: http://b.example'] }, status: 403 },
  // subprotocol
  { name: 'no subprotocol', request: { protocol: null }, status: 400 },
  { name: 'subprotocol chat', request: { protocol: 'chat' }, status: 400 },
  { name: 'subprotocol MCP (case)', request: { protocol: 'MCP' }, status: 400 },
  { name: 'subprotocol mcp2', request: { protocol: 'mcp2' }, status: 400 },
  { name: 'subprotocol mcp.v1, chat', request: { protocol: 'mcp.v1, chat' }, status: 400 },
  // path
  { name: 'unknown path', request: { path: '/nope' }, status: 404 },
  { name: 'path /tools/', request: { path: '/tools/' }, status: 404 },
  { name: 'path /TOOLS', request: { path: '/TOOLS' }, status: 404 },
  { name: 'path //', request: { path: '//' }, status: 404 },
  { name: 'path /%2e%2e/', request: { path: '/%2e%2e/' }, status: 404 },
  // handshake itself (token right: ws refuses)
  { name: 'POST upgrade', request: upgradeRequest(0).replace(/^GET/, 'POST'), status: 405, byLibrary: true },
  { name: 'no Sec-WebSocket-Key', request: upgradeRequest(0).replace(/Sec-WebSocket-Key: [^\r]*\r\n/, ''), status: 400, byLibrary: true },
  {
    name: 'Sec-WebSocket-Version 7',
    request: upgradeRequest(0).replace('Sec-WebSocket-Version: 13', 'Sec-WebSocket-Version: 7'),
    status: 400,
    byLibrary: true,
  },
  { name: 'Upgrade: h2c', request: upgradeRequest(0).replace('Upgrade: websocket', 'Upgrade: h2c'), status: 400, byLibrary: true },
  { name: 'headers over 16 KB', request: { headers: { 'X-Pad': 'p'.repeat(20_000) } }, status: 431, byLibrary: true },
];

/** Controls: what must still be accepted, so the refusals above are not an accident. */
const accepted: Case[] = [
  { name: 'right token', request: {}, status: 101 },
  { name: 'header name in capitals', request: { noToken: true, rawHeaderLines: [`X-CLAUDE-CODE-IDE-AUTHORIZATION: ${T}`] }, status: 101 },
  { name: 'tools route', request: { path: '/tools' }, status: 101 },
  { name: 'query string ignored', request: { path: '/tools?x=1' }, status: 101 },
  { name: 'mcp among other subprotocols', request: { protocol: 'chat, mcp' }, status: 101 },
];

describe('auth: malformed upgrade requests', () => {
  let server: HardenServer;
  beforeAll(async () => {
    server = await HardenServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  jest.setTimeout(60_000);

  test(`${refused.length} malformed upgrades are refused before any MCP byte, and nothing echoes the token`, async () => {
    expect(refused.length).toBeGreaterThanOrEqual(30);
    const wrong: string[] = [];
    for (const c of refused) {
      const request =
        typeof c.request === 'string' ? c.request.replace('Host: 127.0.0.1:0', `Host: 127.0.0.1:${server.port}`) : upgradeRequest(server.port, c.request);
      const answer = await rawRequest(server.port, request);
      const reply = answer.head + answer.rest.toString('latin1');
      if (answer.status === 101) answer.socket.destroy();
      await new Promise<void>((resolve) => (answer.socket.destroyed ? resolve() : answer.socket.once('close', () => resolve())));
      const statusOk = answer.status === c.status || (c.byLibrary && answer.status === 0);
      if (!statusOk) wrong.push(`${c.name}: HTTP ${answer.status}, expected ${c.status}`);
      if (reply.includes(T) || reply.toLowerCase().includes(T.toLowerCase())) wrong.push(`${c.name}: the reply contains the token`);
      if (reply.includes('jsonrpc')) wrong.push(`${c.name}: the reply contains an MCP message`);
    }
    const stats = await server.stats();
    const log = await server.log();
    const tokenLines = log.filter((line) => line.includes(T) || line.toLowerCase().includes(T.toLowerCase()));
    figures('auth', {
      refusedRequests: refused.length,
      wrongAnswers: wrong.length,
      connectionsOpened: stats.connections,
      logLinesWithToken: tokenLines.length,
      crashed: server.alive ? 0 : 1,
    });
    expect(wrong).toEqual([]);
    expect(tokenLines).toEqual([]);
    expect(log.filter((line) => /Connection #\d+ opened/.test(line))).toEqual([]);
    expect(server.alive).toBe(true);
  });

  test('the controls are accepted with the mcp subprotocol, and the server still answers', async () => {
    for (const c of accepted) {
      const answer = await rawRequest(server.port, upgradeRequest(server.port, c.request as RawUpgradeOptions));
      answer.socket.destroy();
      expect(`${c.name}: ${answer.status}`).toBe(`${c.name}: 101`);
      expect(answer.head).toMatch(/\r\nSec-WebSocket-Protocol: mcp(\r|$)/i);
    }
    expect(await probe(server.url)).toBe(true);
    const log = await server.log();
    expect(log.filter((line) => line.includes(T))).toEqual([]);
  });
});
