/**
 * The inner half of test/real/vscode-windows.test.ts: real `claude` CLIs typed into the integrated
 * terminals of several code-server windows, against the installed extension. It runs only with
 * $NC_WIN_SPEC (written by the outer test), and each window plays the role its folder has in the spec:
 *
 * - `a` and `b` (two windows of one code-server, run at the same time): each window has its own
 *   extension host and server; `claude` typed into A connects to A only, then the same for B; then
 *   B gets a second `claude` in another terminal, which wins ("newest session wins"): the first one
 *   is told it was switched away and does not reconnect.
 * - `restart`: claude connects, then the test restarts the extension host. VS Code runs this suite
 *   again in the new extension host (phase 2, told apart by the file phase 1 leaves in the sync dir),
 *   which checks that the same port and token came back and the CLI reconnected by itself.
 *
 * Every claude runs in its own private tmux server started FROM an integrated terminal (socket
 * `$NC_TMUX_SOCKET-<tag>`): one tmux server per terminal, because a tmux server gives new sessions the
 * environment it was started with, not the client's (CLAUDE_CODE_SSE_PORT would leak between windows).
 * Results go to `<spec.out>/<role>[-<phase>].json` (one file per writer); cross-window ordering goes
 * through marker files in `spec.sync`.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, afterEach, before, describe, it } from '../bdd';
import { installedExtension, readEnviron, sleep, terminalWithShellIntegration, waitFor } from '../util';
import { screenOf, tmux as tmuxOn, waitForScreenOf } from '../../support/tmuxScreen';

interface NativeClaudeApi {
  status(): { running: boolean; port?: number; lockFilePath?: string; sessionCount: number; connections: number };
}

interface Spec {
  /** realpath of a window's folder → its role. */
  roles: Record<string, 'a' | 'b' | 'restart'>;
  /** Directory for result files (one per role and phase). */
  out: string;
  /** Directory for the cross-window and cross-phase marker files. */
  sync: string;
  /** File the restart window selects lines in (relative to its folder). */
  selectionFile: string;
}

const SOCKET = process.env.NC_TMUX_SOCKET ?? '';
const SPEC_PATH = process.env.NC_WIN_SPEC;
const SWITCHED = 'switched to another Claude Code session';
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;

/** Each claude of this suite runs in its own tmux server, `<SOCKET>-<tag>`. */
function tmux(tag: string, ...args: string[]): Promise<string> {
  return tmuxOn(`${SOCKET}-${tag}`, ...args);
}

function screen(tag: string): Promise<string> {
  return screenOf(`${SOCKET}-${tag}`);
}

function waitForScreen(tag: string, pattern: RegExp | string, timeoutMs = 30_000): Promise<string> {
  return waitForScreenOf(`${SOCKET}-${tag}`, pattern, timeoutMs);
}

/** Opens a new integrated terminal and starts claude there, inside a private tmux server `<SOCKET>-<tag>`. */
async function startClaude(tag: string, cwd: string): Promise<vscode.Terminal> {
  const terminal = await terminalWithShellIntegration({ name: `claude-${tag}`, cwd, shellPath: '/bin/bash' }, 30_000);
  terminal.show();
  // The pinned CLI first on PATH: another `claude` on the machine must not stand in for it.
  const line =
    `export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${SOCKET}-${tag} -f /dev/null start-server \\; set-option -g remain-on-exit on \\; set-option -g history-limit 5000 \\; ` +
    `new-session -d -s main -x 200 -y 50 claude`;
  // Under load the typed line was lost once (cold CI: window b's tmux never started); type it again then.
  // A second line while the first is merely slow only makes tmux say "duplicate session".
  for (let attempt = 1; ; attempt++) {
    terminal.sendText(line);
    const started = await waitFor(
      `tmux ${tag}`,
      () =>
        tmux(tag, 'has-session', '-t', 'main').then(
          () => true,
          () => undefined,
        ),
      20_000,
      250,
    ).then(
      () => true,
      (e: Error) => (attempt < 2 ? false : Promise.reject(e)),
    );
    if (started) return terminal;
  }
}

/** The pid of the claude process in tmux server `tag` (the pane runs `claude` as its command). */
async function cliPid(tag: string): Promise<number> {
  return Number((await tmux(tag, 'display-message', '-p', '-t', 'main', '#{pane_pid}')).trim());
}

/** `pid` and its descendants (read from /proc). */
function withDescendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const found = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, pp] of parents) {
      if (!found.has(p) && found.has(pp)) {
        found.add(p);
        grew = true;
      }
    }
  }
  return [...found];
}

/**
 * Remote ports on 127.0.0.1 of the ESTABLISHED TCP connections that process `pid` (or a child of it)
 * holds: which IDE server(s) a claude process is connected to right now, seen from the kernel.
 */
function establishedPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const p of withDescendants(pid)) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${p}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = fs.readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
      if (f.length < 10 || f[3] !== '01' || !inodes.has(f[9])) continue;
      ports.add(parseInt(f[2].split(':')[1], 16));
    }
  }
  return [...ports].sort((x, y) => x - y);
}

const lockOf = (p: string) =>
  JSON.parse(fs.readFileSync(p, 'utf8')) as { pid: number; workspaceFolders: string[]; authToken: string; transport: string; ideName: string };
const marker = (name: string) => path.join(spec!.sync, `${name}.json`);
const writeMarker = (name: string, value: unknown) => {
  fs.writeFileSync(`${marker(name)}.tmp`, JSON.stringify(value));
  fs.renameSync(`${marker(name)}.tmp`, marker(name));
};
const readMarker = <T>(name: string): T | undefined => (fs.existsSync(marker(name)) ? (JSON.parse(fs.readFileSync(marker(name), 'utf8')) as T) : undefined);
const waitMarker = <T>(name: string, timeoutMs: number) => waitFor(`marker ${name}`, () => readMarker<T>(name), timeoutMs, 100);

const workspaceFolder = () => fs.realpathSync(vscode.workspace.workspaceFolders![0].uri.fsPath);
const role = spec && vscode.workspace.workspaceFolders?.length ? spec.roles[workspaceFolder()] : undefined;

/** Results of one writer (role + phase); each `it` records its state, error and data. */
function recorder(file: string) {
  const results: Record<string, { state?: string; error?: string; ms?: number; data?: Record<string, unknown> }> = {};
  const data: Record<string, Record<string, unknown>> = {};
  let started = Date.now();
  const write = () => fs.writeFileSync(path.join(spec!.out, file), JSON.stringify(results, null, 2));
  return {
    data: (key: string) => (data[key] ??= {}),
    begin: () => (started = Date.now()),
    record(test: { title: string; state?: string; err?: Error } | undefined) {
      if (!test) return;
      const key = /^\[([\w-]+)\]/.exec(test.title)?.[1] ?? test.title;
      results[key] = { state: test.state, error: test.err ? String(test.err.stack ?? test.err) : undefined, ms: Date.now() - started, data: data[key] };
      write();
    },
    /** For a test that does not end in this extension host. */
    recordNow(key: string, state: string) {
      results[key] = { state, ms: Date.now() - started, data: data[key] };
      write();
    },
    final(value: Record<string, unknown>) {
      results._final = { data: value };
      write();
    },
  };
}
type Ctx = { currentTest?: { title: string; state?: string; err?: Error } };

// -------------------------------------------------------------------------------------------------
// Two windows, then newest-wins in window B

describe('two windows: each window its own server; the newest claude wins', function () {
  this.timeout(120_000);
  let api: NativeClaudeApi;
  let folder: string;
  let rec: ReturnType<typeof recorder>;
  const me = role === 'a' || role === 'b' ? role : undefined;
  const other = me === 'a' ? 'b' : 'a';

  before(async function () {
    if (!me) this.skip();
    rec = recorder(`${me}.json`);
    folder = workspaceFolder();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 30_000);
    const status = api.status();
    writeMarker(`${me}-ready`, { pid: process.pid, status, lock: lockOf(status.lockFilePath!), folder });
    await waitMarker(`${other}-ready`, 90_000);
  });

  afterEach(function () {
    if (me) rec.record((this as unknown as Ctx).currentTest);
  });

  after(async () => {
    if (!me) return;
    const screens: Record<string, string> = {};
    for (const tag of me === 'a' ? ['a'] : ['b', 'b2']) screens[tag] = await screen(tag).catch((e: Error) => e.message);
    rec.final({ status: api?.status(), screens });
    writeMarker(`${me}-finished`, {});
  });

  it('[window] the window has its own extension host and server, and a lock file for its own folder', () => {
    rec.begin();
    const d = rec.data('window');
    const status = api.status();
    const mine = readMarker<{ pid: number; status: NativeClaudeApi['status'] }>(`${me}-ready`)!;
    const theirs = readMarker<{ pid: number; status: ReturnType<NativeClaudeApi['status']>; lock: ReturnType<typeof lockOf>; folder: string }>(
      `${other}-ready`,
    )!;
    const lock = lockOf(status.lockFilePath!);
    Object.assign(d, {
      extHostPid: process.pid,
      otherExtHostPid: theirs.pid,
      status,
      otherStatus: theirs.status,
      lockFolders: lock.workspaceFolders,
      lockPid: lock.pid,
    });
    assert.notStrictEqual(theirs.pid, process.pid, 'the other window runs in another extension host');
    assert.strictEqual(mine.pid, process.pid);
    assert.ok(status.port && theirs.status.port && status.port !== theirs.status.port, `two ports: ${status.port} and ${theirs.status.port}`);
    assert.strictEqual(status.lockFilePath, path.join(process.env.CLAUDE_CONFIG_DIR!, 'ide', `${status.port}.lock`));
    assert.deepStrictEqual(lock.workspaceFolders, [folder]);
    assert.deepStrictEqual(theirs.lock.workspaceFolders, [theirs.folder]);
    assert.notStrictEqual(theirs.folder, folder);
    assert.notStrictEqual(lock.authToken, theirs.lock.authToken, 'each window has its own token');
    assert.strictEqual(lock.pid, process.ppid, 'the lock file names the server process (an ancestor of the terminals)');
  });

  it("[connect] claude typed into this window's terminal connects to this window only", async () => {
    rec.begin();
    const d = rec.data('connect');
    const port = api.status().port!;
    const otherPort = readMarker<{ status: { port: number } }>(`${other}-ready`)!.status.port;
    if (me === 'b') {
      // A's claude is up and connected to A: nothing of it may reach this window. (B's own start-up
      // Check Setup opens one short connection to its /tools route, 4 s after activation: a connection
      // of this window's, not of A's claude, so connections are judged by who holds them.)
      const a = await waitMarker<{ cliPid: number }>('a-connected', 100_000);
      const seen: Array<{ sessionCount: number; connections: number; aClaudeHoldsOne: boolean }> = [];
      for (let i = 0; i < 10; i++, await sleep(200)) {
        seen.push({
          sessionCount: api.status().sessionCount,
          connections: api.status().connections,
          aClaudeHoldsOne: establishedPorts(a.cliPid).includes(port),
        });
      }
      d.whileOtherConnected = seen;
      assert.deepStrictEqual(
        seen.filter((s) => s.sessionCount !== 0 || s.aClaudeHoldsOne),
        [],
        "B has no session, and A's claude no connection to B, while only A's claude runs",
      );
    }
    const startedAt = Date.now();
    await startClaude(me!, folder);
    await waitFor(`claude to connect to window ${me}`, () => api.status().sessionCount === 1, 60_000, 100);
    d.connectMs = Date.now() - startedAt;
    await waitForScreen(me!, /❯/, 30_000);
    const pid = await cliPid(me!);
    const env = readEnviron(pid);
    const ports = establishedPorts(pid);
    Object.assign(d, { port, otherPort, cliPid: pid, cliSsePort: env.CLAUDE_CODE_SSE_PORT, cliPorts: ports, status: api.status() });
    assert.strictEqual(env.CLAUDE_CODE_SSE_PORT, String(port), "the terminal's CLAUDE_CODE_SSE_PORT is this window's port");
    assert.ok(ports.includes(port), `claude ${pid} is connected to this window's port ${port} (ports: ${ports.join(', ')})`);
    assert.ok(!ports.includes(otherPort), `claude ${pid} is not connected to the other window's port ${otherPort}`);
    assert.deepStrictEqual({ sessionCount: api.status().sessionCount, connections: api.status().connections }, { sessionCount: 1, connections: 1 });
    writeMarker(`${me}-connected`, { cliPid: pid, port });
    if (me === 'a') {
      // B checks it saw nothing of A's claude, then starts its own: A keeps exactly its own session.
      const b = await waitMarker<{ cliPid: number }>('b-connected', 100_000);
      d.afterOtherConnected = api.status();
      assert.strictEqual(api.status().sessionCount, 1, "B's claude did not connect to A");
      assert.ok(!establishedPorts(b.cliPid).includes(port), "B's claude holds no connection to A");
    }
  });

  it('[newest] a second claude in another terminal of the window wins; the first is told and does not reconnect', async function () {
    if (me !== 'b') this.skip();
    rec.begin();
    const d = rec.data('newest');
    const port = api.status().port!;
    const first = await cliPid('b');
    await startClaude('b2', folder);
    const firstScreen = await waitForScreen('b', SWITCHED, 60_000);
    d.firstScreen = firstScreen.split('\n').filter((l) => l.includes(SWITCHED));
    await waitForScreen('b2', /❯/, 30_000);
    const second = await cliPid('b2');
    d.pids = { first, second };
    await waitFor('the first claude to let go of the port', () => !establishedPorts(first).includes(port), 10_000, 100);
    assert.ok(establishedPorts(second).includes(port), 'the second claude is connected');
    // Long enough for the CLI's reconnect attempts (immediately, ~0.8 s, ~2 s, ~4 s) to have shown up.
    const seen: Array<{ sessionCount: number; connections: number; firstPorts: number[]; secondPorts: number[] }> = [];
    for (let i = 0; i < 16; i++, await sleep(500)) {
      const s = api.status();
      seen.push({
        sessionCount: s.sessionCount,
        connections: s.connections,
        firstPorts: establishedPorts(first).filter((p) => p === port),
        secondPorts: establishedPorts(second).filter((p) => p === port),
      });
    }
    d.samples = seen.length;
    d.deviations = seen.filter((s) => s.sessionCount !== 1 || s.connections !== 1 || s.firstPorts.length > 0 || s.secondPorts.length !== 1);
    assert.deepStrictEqual(
      seen.filter((s) => s.sessionCount !== 1 || s.connections !== 1 || s.firstPorts.length > 0 || s.secondPorts.length !== 1),
      [],
      'for 8 s: one session, held by the second claude; the first does not come back',
    );
    // The live session is the second claude's: a selection shows there.
    const file = path.join(folder, spec!.selectionFile);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), { preview: false });
    editor.selection = new vscode.Selection(0, 0, 1, editor.document.lineAt(1).text.length);
    await waitForScreen('b2', '2 lines selected', 10_000);
    const firstNow = await screen('b');
    d.firstShowsSelection = firstNow.includes('2 lines selected');
    assert.ok(!firstNow.includes('2 lines selected'), 'the superseded claude gets no selection');
    assert.ok(!(await screen('b2')).includes(SWITCHED));
  });

  it('[isolated] the other window still has exactly its own claude', async function () {
    if (me !== 'a') this.skip();
    rec.begin();
    // Wait until B is done with its newest-session scenario; A is untouched by it.
    await waitMarker('b-finished', 100_000);
    const d = rec.data('isolated');
    const a = readMarker<{ cliPid: number; port: number }>('a-connected')!;
    d.status = api.status();
    d.ports = establishedPorts(a.cliPid);
    assert.deepStrictEqual({ sessionCount: api.status().sessionCount, connections: api.status().connections }, { sessionCount: 1, connections: 1 });
    assert.ok(establishedPorts(a.cliPid).includes(a.port));
    assert.ok(!(await screen('a')).includes(SWITCHED));
  });
});

// -------------------------------------------------------------------------------------------------
// Extension-host restart

interface Phase1 {
  port: number;
  token: string;
  lock: string;
  cliPid: number;
  extHostPid: number;
  /** The command that restarted the extension host. */
  command: string;
  restartAt: number;
}

describe('extension-host restart: same port and token, the CLI reconnects by itself', function () {
  this.timeout(120_000);
  let api: NativeClaudeApi;
  let folder: string;
  const phase1 = role === 'restart' ? readMarker<Phase1>('restart-phase1') : undefined;
  let rec: ReturnType<typeof recorder>;

  before(async function () {
    if (role !== 'restart') this.skip();
    rec = recorder(phase1 ? 'restart-2.json' : 'restart-1.json');
    folder = workspaceFolder();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 30_000);
  });

  afterEach(function () {
    if (role === 'restart') rec.record((this as unknown as Ctx).currentTest);
  });

  it('[restart-1] claude connects; then the extension host restarts', async function () {
    if (phase1) this.skip();
    rec.begin();
    const d = rec.data('restart-1');
    await startClaude('r', folder);
    await waitFor('claude to connect', () => api.status().sessionCount === 1, 60_000, 100);
    await waitForScreen('r', /❯/, 30_000);
    // Past the CLI's start-up (its selection handlers are registered); an idle, connected session.
    await sleep(1500);
    const status = api.status();
    const lock = fs.readFileSync(status.lockFilePath!, 'utf8');
    const p1: Phase1 = {
      port: status.port!,
      token: lockOf(status.lockFilePath!).authToken,
      lock,
      cliPid: await cliPid('r'),
      extHostPid: process.pid,
      command: '',
      restartAt: 0,
    };
    Object.assign(d, { status, cliPid: p1.cliPid, extHostPid: process.pid });
    // "Developer: Restart Extension Host" exists only in desktop VS Code; code-server's web workbench has
    // "Developer: Reload Window", which also ends this extension host and starts a new one for the window.
    const commands = await vscode.commands.getCommands(true);
    p1.command = commands.includes('workbench.action.restartExtensionHost') ? 'workbench.action.restartExtensionHost' : 'workbench.action.reloadWindow';
    d.command = p1.command;
    // This extension host (and this test run) ends here, so the outcome is recorded now; VS Code starts
    // the suite again in the new extension host (phase 2).
    rec.recordNow('restart-1', 'passed');
    p1.restartAt = Date.now();
    writeMarker('restart-phase1', p1);
    // The command's promise is cancelled when this extension host goes away.
    await vscode.commands.executeCommand(p1.command).then(undefined, (e: Error) => console.log(`${p1.command}: ${e.message}`));
    await sleep(60_000);
    throw new Error('the extension host was not restarted within 60 s');
  });

  it('[restart-2] the new extension host serves the same port with the same token, and claude is back by itself', async function () {
    if (!phase1) this.skip();
    rec.begin();
    const d = rec.data('restart-2');
    const activeAt = Date.now();
    d.extHostPid = process.pid;
    d.command = phase1.command;
    d.serverRunningAfterMs = activeAt - phase1.restartAt;
    assert.notStrictEqual(process.pid, phase1.extHostPid, 'a new extension host');
    const status = api.status();
    d.status = status;
    assert.strictEqual(status.port, phase1.port, 'the same port');
    const lock = fs.readFileSync(status.lockFilePath!, 'utf8');
    assert.strictEqual(lockOf(status.lockFilePath!).authToken, phase1.token, 'the same token');
    assert.deepStrictEqual(JSON.parse(lock), JSON.parse(phase1.lock), 'the same lock file content');
    await waitFor(
      'claude to reconnect (sessionCount === 1)',
      () => api.status().sessionCount === 1,
      Math.max(1000, 15_000 - (Date.now() - phase1.restartAt)),
      100,
    );
    d.reconnectedAfterMs = Date.now() - phase1.restartAt;
    const pid = await cliPid('r');
    d.cliPid = pid;
    assert.strictEqual(pid, phase1.cliPid, 'the same claude process');
    assert.ok(establishedPorts(pid).includes(phase1.port), 'claude holds a connection to the port');
    const shown = await screen('r');
    d.screen = shown;
    assert.ok(
      !/\/ide/.test(
        shown
          .split('\n')
          .filter((l) => l.startsWith('❯'))
          .join('\n'),
      ),
      'nothing typed',
    );

    // Selections reach the reconnected CLI.
    const file = path.join(folder, spec!.selectionFile);
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), { preview: false });
    editor.selection = new vscode.Selection(0, 0, 2, editor.document.lineAt(2).text.length);
    await waitForScreen('r', '3 lines selected', 10_000);
    d.selectionShownAfterMs = Date.now() - phase1.restartAt;
  });

  after(async () => {
    if (role !== 'restart') return;
    rec?.final({ status: api?.status(), screen: await screen('r').catch((e: Error) => e.message), phase: phase1 ? 2 : 1 });
  });
});
