import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import WebSocket from 'ws';
import { AUTH_HEADER } from '../../src/server/auth';
import { CompatibilityNotices } from '../../src/server/clientVersion';
import type { Connection } from '../../src/server/ideServer';
import { HeaderWebSocketClientTransport } from '../support/wsClientTransport';
import { TEST_TOKEN, startTestServer, waitFor } from '../support/serverFixture';

/** Sends the frames a 1.0.128 CLI sends (measured), over a raw socket, and resolves with the initialize answer. */
async function rawInitialize(url: string, userAgent: string, params: Record<string, unknown>): Promise<{ socket: WebSocket; answer: Record<string, unknown> }> {
  const socket = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN, 'User-Agent': userAgent } });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const answer = new Promise<Record<string, unknown>>((resolve) => socket.once('message', (d) => resolve(JSON.parse(d.toString()))));
  socket.send(JSON.stringify({ method: 'initialize', params, jsonrpc: '2.0', id: 0 }));
  return { socket, answer: await answer };
}

describe('the server reads who the client is (both routes)', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  let unsupported: Array<[Connection, string]>;
  const notices = new CompatibilityNotices();
  beforeEach(async () => {
    fixture = await startTestServer({ compatibilityNotices: notices });
    unsupported = [];
    fixture.server.on('unsupportedClient', (c, m) => unsupported.push([c, m]));
  });
  afterEach(async () => {
    await fixture.server.stop();
  });

  test('IDE route: a 1.0.128 initialize (protocol 2025-06-18) is recorded with its version and logged; no warning', async () => {
    const { socket, answer } = await rawInitialize(fixture.url, 'claude-code/1.0.128', {
      protocolVersion: '2025-06-18',
      capabilities: { roots: {} },
      clientInfo: { name: 'claude-code', version: '1.0.128' },
    });
    expect(answer).toMatchObject({ id: 0, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'native-claude' } } });
    const [connection] = fixture.server.connections();
    expect(connection.route).toBe('ide');
    expect(connection.client).toEqual({ name: 'claude-code', version: '1.0.128', protocolVersion: '2025-06-18' });
    expect(fixture.log.join('\n')).toContain('is claude-code 1.0.128 (MCP 2025-06-18)');
    expect(unsupported).toEqual([]);
    socket.close();
  });

  test('tools route: the SDK client with a 2.1-style clientInfo is recorded; the User-Agent is known before initialize', async () => {
    const transport = new HeaderWebSocketClientTransport(`${fixture.url}/tools`, { [AUTH_HEADER]: TEST_TOKEN, 'User-Agent': 'claude-code/2.1.330 (cli)' });
    await transport.start();
    await waitFor(() => fixture.server.connections().length === 1, 3000, 'connection');
    // Before initialize only the upgrade's User-Agent is known.
    expect(fixture.server.connections()[0].client).toEqual({ name: 'claude-code', version: '2.1.330' });
    await transport.close();

    const client = new Client({ name: 'claude-code', title: 'Claude Code', version: '2.1.330' });
    await client.connect(new HeaderWebSocketClientTransport(`${fixture.url}/tools`, { [AUTH_HEADER]: TEST_TOKEN }));
    const connection = fixture.server.connections().find((c) => c.client?.title === 'Claude Code');
    expect(connection?.route).toBe('tools');
    expect(connection?.client).toEqual({ name: 'claude-code', title: 'Claude Code', version: '2.1.330', protocolVersion: '2025-11-25' });
    await client.close();
  });

  test('a CLI outside the range: one plain-words warning in the log and one event, even when it reconnects', async () => {
    for (let i = 0; i < 2; i++) {
      const { socket } = await rawInitialize(fixture.url, 'claude-code/1.0.27', {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'claude-code', version: '1.0.27' },
      });
      socket.close();
    }
    await waitFor(() => fixture.log.filter((l) => l.includes('is claude-code 1.0.27')).length === 2, 3000, 'both connections logged');
    const warnings = fixture.log.filter((l) => l.includes('older than the oldest version Native Claude supports (1.0.128)'));
    expect(warnings).toHaveLength(1);
    expect(unsupported).toHaveLength(1);
    expect(unsupported[0][1]).toMatch(/claude update/);
  });
});
