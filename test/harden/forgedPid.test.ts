import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { AUTH_HEADER } from '../../src/server/auth';
import { bridgeSessionSource, type SessionBridge } from '../../src/server/sessionSource';
import { SelectionNotifier } from '../../src/selection/selectionNotifier';
import { procParentPid } from '../../src/terminal/processAncestry';
import { SessionTerminals, type TerminalDirectory } from '../../src/terminal/sessionTerminals';
import { memoryLogger } from '../../src/util/logger';
import { spawnAnnouncer, type Announcer } from '../support/announcer';
import { INITIALIZE } from '../support/rawWebSocket';
import { TEST_TOKEN, startTestServer, waitFor } from '../support/serverFixture';

// Issue 22, finding 5: any holder of the token (a script in a terminal that has NATIVE_CLAUDE_TOKEN)
// announced another claude's pid in ide_connected and took over its routing: the selection meant for
// that claude (a .env.local one in the reproduction) went to the forger, and the forger's reviews were
// labelled with that claude's terminal. Real server, real sockets, a real second process as "claude".

const describeLinux = process.platform === 'linux' ? describe : describe.skip;

/** A raw token holder: initialize, then ide_connected with whatever pid it likes. */
async function forger(url: string, pid: number) {
  const ws = new WebSocket(url, ['mcp'], { headers: { [AUTH_HEADER]: TEST_TOKEN } });
  const received: Array<{ method?: string; params?: { filePath?: string } }> = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  ws.send(JSON.stringify(INITIALIZE));
  await waitFor(() => received.some((m) => (m as { id?: number }).id === 0), 2000, 'initialize answered');
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid } }));
  return {
    ws,
    saw: (method: string) => received.some((m) => m.method === method),
    selections: () => received.filter((m) => m.method === 'selection_changed').map((m) => m.params?.filePath),
  };
}

describeLinux('a forged ide_connected pid takes over no routing', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  let claude: Announcer | undefined;
  afterEach(async () => {
    claude?.stop();
    await fixture.server.stop();
  });

  test("the forger gets neither the selection meant for that claude nor its terminal's name", async () => {
    fixture = await startTestServer();
    const bridge = Object.assign(new EventEmitter(), { ideServer: fixture.server }) as unknown as SessionBridge;
    const base = bridgeSessionSource(bridge);
    // The real claude runs in terminal "claude-A", whose shell is the claude process itself here.
    claude = await spawnAnnouncer(fixture.url);
    const terminals = [
      { terminal: 'A', name: 'claude-A', pid: claude.pid },
      { terminal: 'B', name: 'bash', pid: 1 },
    ];
    const directory: TerminalDirectory<string> = {
      candidates: async () => terminals,
      active: () => 'A',
      onDidChangeActive: () => ({ dispose: () => undefined }),
      onDidOpenOrClose: () => ({ dispose: () => undefined }),
    };
    const routed = new SessionTerminals(base, directory, procParentPid);
    const checked = () => fixture.server.sessionConnections().every((c) => c.pidCheck !== 'pending');
    await waitFor(() => fixture.server.sessionConnections().length === 1 && checked(), 3000, 'claude verified');

    const attacker = await forger(fixture.url, claude.pid);
    await waitFor(() => fixture.server.sessionConnections().length === 2 && checked(), 3000, 'the forged pid checked');
    await waitFor(() => routed.sessionPlaces().filter((p) => p.terminal === 'A').length >= 1, 3000, 'claude placed');
    await routed.settled();

    const [real, forged] = routed.sessionPlaces();
    expect(real.terminalName).toBe('claude-A');
    expect(forged.terminalName).toBeUndefined();
    expect(forged.session).toMatchObject({ claimedPid: claude.pid, pidCheck: 'unverified', cliPid: undefined });
    expect(routed.targets().map((s) => s.id)).toEqual([real.session.id]);

    // The user selects in .env.local while claude's terminal is in front: only that claude gets it.
    const notifier = new SelectionNotifier({ sessions: routed, log: memoryLogger([]), debounceMs: 0, welcomeResendMs: [] });
    notifier.update({ filePath: '/work/project/.env.local', selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 7 } }, text: 'SECRET=' });
    notifier.flush();
    await waitFor(() => claude!.received.some((r) => r.includes('.env.local')), 3000, 'claude to get the selection');
    // A notification to every session after it: on the forger's socket it comes after any selection sent there.
    await fixture.server.notifySessions('test/marker', {});
    await waitFor(() => attacker.saw('test/marker'), 3000, 'the forger to get the marker');
    expect(attacker.selections()).not.toContain('/work/project/.env.local');

    notifier.dispose();
    routed.dispose();
    base.dispose();
    attacker.ws.close();
  });
});
