// Hardening — Claude's changes and the tools route: a tools-route connection names no process, and its
// writes were put on the only connected claude. A token holder (a script in a terminal has
// NATIVE_CLAUDE_TOKEN) connecting to /tools itself therefore had its writes listed as that claude's,
// with certainty. Now a tools-route write goes to the claude whose verified pid holds the connection's
// socket, and to none when no claude holds it. Real server, real sockets, real separate processes (one
// as the claude holding its IDE and tools connections, one as the intruder); Claude's changes' real
// session lookup and tracker, against a stand-in of the `vscode` module (src/vscode cannot run in Node).

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { ClaudeChanges } from '../../src/vscode/changes/claudeChanges';
import type { Connection } from '../../src/server/ideServer';
import type { IdeBridge } from '../../src/server/ideBridge';
import type { WindowSessions } from '../../src/vscode/lifecycle/windowSessions';
import { memoryLogger } from '../../src/util/logger';
import { bridgeSessionSource } from '../../src/server/sessionSource';
import { claudeLikes } from '../support/claudeLikeProcess';
import { newestConnection, startTestServer, waitFor } from '../support/serverFixture';

jest.setTimeout(30_000);

const describeLinux = process.platform === 'linux' ? describe : describe.skip;

describeLinux('hardening: tools-route writes are put only on the claude that holds the connection', () => {
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  let root: string;
  let changes: ClaudeChanges;
  const claudes = claudeLikes(() => fixture.url);

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-tools-owner-')));
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: root } }];
    fixture = await startTestServer();
    // The bridge as Claude's changes sees it: the real server (no watcher: sessionCount 0).
    const bridge = { on: () => undefined, off: () => undefined, status: () => ({ sessionCount: 0 }), ideServer: fixture.server } as unknown as IdeBridge;
    // Which claude a connection is: the product's one answer (sessionSource.ts) on the real server.
    const sessions = bridgeSessionSource(bridge);
    const windowSessions = {
      labels: () => [],
      claudeOf: (id: number) => sessions.claudeOf(id),
      sessionTerminals: { onDidChangeTargets: () => ({ dispose: () => undefined }) },
    } as unknown as WindowSessions;
    changes = new ClaudeChanges(path.join(root, 'storage'), bridge, windowSessions, () => false, memoryLogger([]));
  });
  afterEach(async () => {
    changes.dispose();
    claudes.stopAll();
    await fixture.server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  const start = claudes.start;
  const newest = (route: 'ide' | 'tools', count: number) => newestConnection(fixture.server, route, count);
  /** Gives the server time to look for owners (on code that does not, this just waits). */
  const settle = (connections: Connection[]) =>
    waitFor(() => connections.every((c) => c.owner !== undefined && c.owner.check !== 'pending'), 1500, 'the owners').catch(() => undefined);

  /** A write through the tools route on `connection`, as proposeChange reports it, then saved by the editor. */
  async function toolsRouteWrite(connection: Connection, name: string) {
    const file = path.join(root, name);
    await fs.writeFile(file, 'before\n');
    await changes.tracker.beforeWrite(connection.id, file, 'tools-route', { bytes: Buffer.from('before\n') });
    await fs.writeFile(file, 'after\n');
    return changes.tracker.fileChanged(file, { byEditor: true });
  }
  const listed = () => changes.sessions().map((s) => ({ id: s.id, files: s.files.map((f) => `${path.basename(f.path)} ${f.attribution} ${f.source}`) }));

  test("an intruder's own /tools connection: its write is not put on the single connected claude", async () => {
    const claude = await start();
    await claude.openIde();
    const ide = await newest('ide', 1);
    await waitFor(() => ide.pidCheck === 'verified', 10_000, 'claude verified');
    await claude.openTools();
    const own = await newest('tools', 1);
    const intruder = await start();
    await intruder.openTools();
    const foreign = await newest('tools', 2);
    await settle([own, foreign]);

    expect(await toolsRouteWrite(foreign, 'intruder.txt')).toBeUndefined();
    expect(listed()).toEqual([]);
    // The claude's own tools route still is its.
    expect(await toolsRouteWrite(own, 'claude.txt')).toMatchObject({ attribution: 'certain', source: 'tools-route' });
    expect(listed()).toEqual([{ id: `claude-pid-${claude.pid}`, files: ['claude.txt certain tools-route'] }]);
  });

  test('two claudes: each tools-route write in its own session', async () => {
    const [a, b] = [await start(), await start()];
    for (const p of [a, b]) await p.openIde();
    await waitFor(() => fixture.server.sessionConnections().filter((c) => c.pidCheck === 'verified').length === 2, 10_000, 'both verified');
    await b.openTools();
    const toolsB = await newest('tools', 1);
    await a.openTools();
    const toolsA = await newest('tools', 2);
    await settle([toolsA, toolsB]);

    await toolsRouteWrite(toolsA, 'a.txt');
    await toolsRouteWrite(toolsB, 'b.txt');
    expect(listed().sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      [
        { id: `claude-pid-${a.pid}`, files: ['a.txt certain tools-route'] },
        { id: `claude-pid-${b.pid}`, files: ['b.txt certain tools-route'] },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
  });
});
