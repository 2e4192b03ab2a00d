/**
 * End to end, several windows and an extension-host restart: the real `claude` CLI (2.1.328) typed into
 * the integrated terminals of real VS Code (code-server 4.139.1) with the packaged extension installed.
 *
 * One code-server, three workbench windows on three folders:
 * - A and B at the same time (two browsers): each window has its own extension host, its own server and
 *   lock file; claude typed into A connects to A only, then B's to B only; then a second claude in
 *   another terminal of B takes over ("newest session wins", close 4001, with `nativeClaude.multipleSessions`
 *   set to `newest-wins`) and the first one stays away.
 * - R: claude connects, the test runs `workbench.action.restartExtensionHost`; VS Code re-runs the inner
 *   suite in the new extension host, which checks the same port/token and the CLI's own reconnect.
 *
 * The inner suite is test/vscode/suites/windows-claude.test.ts (it picks its role from its folder).
 * Needs test/setup/install-real-clients.sh. Run:
 *   npx jest --selectProjects real --runInBand -- test/real/vscode-windows.test.ts
 * NC_WIN_DEBUG=1 prints the inner results, the windows' logs and the restart timing; NC_WIN_ONLY=restart runs
 * only window R (the other tests then fail); NATIVE_CLAUDE_VSIX=<file> skips packaging.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { seedClaudeConfig } from './harness/claudeCli';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, findFiles, type SuiteResult } from './harness/codeServer';
import { startFakeModel } from './harness/fakeModel';
import { killTmuxServer, prepareIntegratedClaude } from './harness/integratedClaude';
import { ensureVsix } from './harness/vsix';
import { expectInnerPassed as expectInner, type InnerResult } from './harness/innerResults';

interface Status {
  running: boolean;
  port: number;
  sessionCount: number;
  connections: number;
}
/** What the inner tests record (each test fills in its own part). */
interface InnerData {
  extHostPid?: number;
  status: Status;
  lockFolders?: string[];
  port: number;
  cliPid: number;
  cliPorts?: number[];
  /** B's samples while only A's claude ran (connections include B's own start-up Check Setup probe of /tools). */
  whileOtherConnected?: Array<Pick<Status, 'sessionCount' | 'connections'> & { aClaudeHoldsOne: boolean }>;
  afterOtherConnected?: Status;
  firstScreen: string[];
  samples?: number;
  deviations?: unknown[];
  pids: { first: number; second: number };
  command?: string;
  serverRunningAfterMs?: number;
  reconnectedAfterMs: number;
  selectionShownAfterMs?: number;
}
type Results = Record<string, InnerResult<InnerData>>;

const SELECTION_FILE = 'sel.ts';
const TMUX_TAGS = ['a', 'b', 'b2', 'r'];

describe('vscode-windows', () => {
  let root = '';
  const folders = { a: '', b: '', restart: '' };
  let out = '';
  const runs: Record<string, { suite?: SuiteResult; error?: Error }> = {};
  const results: Record<string, Results> = {};

  let logs: Array<{ file: string; text: string }> = [];
  /** The extension logs of the extension host(s) that served `port`, oldest first. */
  const logsOfPort = (port: number) =>
    logs.filter((l) => new RegExp(`listening on 127\\.0\\.0\\.1:${port}(?!\\d)`).test(l.text)).sort((x, y) => x.file.localeCompare(y.file));
  /** The CLI pids the extension saw announce themselves (`ide_connected`) in one log. */
  const announcedPids = (text: string) => [...text.matchAll(/is a Claude Code session \(CLI pid (\d+)\)/g)].map((m) => Number(m[1]));

  const readResults = (name: string): Results => {
    const f = path.join(out, `${name}.json`);
    return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as Results) : {};
  };

  /** The inner test's outcome; on failure the message carries its error and the end of the window's log. */
  const expectInnerPassed = (file: string, key: string, run: string) =>
    expectInner(`${file}: ${key}`, results[file]?.[key], () => ({
      runError: runs[run]?.error?.message.slice(0, 3000),
      logTail: runs[run]?.suite?.log.slice(-40),
      final: results[file]?._final,
    }));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-win-')));
    for (const k of Object.keys(folders) as Array<keyof typeof folders>) {
      folders[k] = path.join(root, `ws-${k}`);
      fs.mkdirSync(folders[k]);
      fs.writeFileSync(path.join(folders[k], SELECTION_FILE), 'const one = 1;\nconst two = 2;\nconst three = 3;\nconst four = 4;\n');
    }
    out = path.join(root, 'out');
    const sync = path.join(root, 'sync');
    fs.mkdirSync(out);
    fs.mkdirSync(sync);
    const specPath = path.join(root, 'spec.json');
    fs.writeFileSync(
      specPath,
      JSON.stringify({ roles: { [folders.a]: 'a', [folders.b]: 'b', [folders.restart]: 'restart' }, out, sync, selectionFile: SELECTION_FILE }),
    );
    const ic = prepareIntegratedClaude({ workspace: folders.a, modelUrl: model.url, env: { NC_WIN_SPEC: specPath } });
    // Trust all three folders, not only A.
    seedClaudeConfig(ic.configDir, { cwd: Object.values(folders), apiKey: ic.env.ANTHROPIC_API_KEY });

    const { suiteError } = await runClaudeInnerSuite({
      ic,
      model,
      server: {
        workspace: folders.a,
        vsixPaths: [vsix],
        // Window B's scenario is the "newest wins" policy (several sessions per window is the default).
        userSettings: { 'git.enabled': false, 'files.autoSave': 'off', 'nativeClaude.multipleSessions': 'newest-wins' },
      },
      // Three windows of one server, each with its own results file in `out`.
      after: async (srv, _results, runWindow) => {
        const run = (name: string, folder: string, grep: string) =>
          runWindow({
            folder,
            files: ['windows-claude'],
            grep,
            timeout: 120_000,
            timeoutMs: 240_000,
            probeDir: ic.probeDir,
            name: `vscode-windows-${name}`,
            onLog: process.env.NC_WIN_DEBUG ? (l) => console.log(`[${name}] ${l}`) : undefined,
          }).then(
            (suite) => void (runs[name] = { suite }),
            (error: Error) => void (runs[name] = { error }),
          );
        // A and B at the same time (their inner suites wait for each other), then R.
        if (process.env.NC_WIN_ONLY !== 'restart') await Promise.all([run('a', folders.a, 'two windows'), run('b', folders.b, 'two windows')]);
        await run('restart', folders.restart, 'extension-host restart');
        for (const f of ['a', 'b', 'restart-1', 'restart-2']) results[f] = readResults(f);
        // The extension's own log of every extension host (one file per window and extension host).
        logs = findFiles(path.join(srv.userDataDir, 'logs'), /^Native Claude\.log$/).map((f) => ({
          file: path.relative(srv.userDataDir, f),
          text: fs.readFileSync(f, 'utf8'),
        }));
      },
      beforeStop: async () => {
        for (const tag of TMUX_TAGS) await killTmuxServer(`${ic.tmuxSocket}-${tag}`);
      },
    });
    if (suiteError) throw suiteError;
    if (process.env.NC_WIN_DEBUG) {
      console.log(
        JSON.stringify(
          {
            runs: Object.fromEntries(
              Object.entries(runs).map(([k, v]) => [k, { exitCode: v.suite?.exitCode, error: v.error?.message.slice(0, 2000), ms: v.suite?.durationMs }]),
            ),
            results,
          },
          null,
          2,
        ),
      );
    }
  }, 600_000);

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('two windows: each has its own extension host, port, token and lock file for its own folder', () => {
    const a = expectInnerPassed('a', 'window', 'a');
    const b = expectInnerPassed('b', 'window', 'b');
    expect(a.extHostPid).not.toBe(b.extHostPid);
    expect(a.status.port).not.toBe(b.status.port);
    expect(a.lockFolders).toEqual([folders.a]);
    expect(b.lockFolders).toEqual([folders.b]);
  });

  it("two windows: claude typed into a window's terminal connects to that window only", () => {
    const a = expectInnerPassed('a', 'connect', 'a');
    const b = expectInnerPassed('b', 'connect', 'b');
    expect(a.cliPorts).toContain(a.port);
    expect(a.cliPorts).not.toContain(b.port);
    expect(b.cliPorts).toContain(b.port);
    expect(b.cliPorts).not.toContain(a.port);
    // B saw nothing of A's claude while only A's claude ran; A kept its one session after B's claude connected.
    expect(b.whileOtherConnected).toHaveLength(10);
    expect(b.whileOtherConnected!.filter((s) => s.sessionCount !== 0 || s.aClaudeHoldsOne)).toEqual([]);
    expect(a.afterOtherConnected).toMatchObject({ sessionCount: 1, connections: 1 });
  });

  it('newest session wins: the first claude shows "switched to another Claude Code session" and stays away', () => {
    const d = expectInnerPassed('b', 'newest', 'b');
    expect(d.firstScreen.join('\n')).toMatch(/switched to another Claude Code session/);
    expect({ samples: d.samples, deviations: d.deviations }).toEqual({ samples: 16, deviations: [] });
    // B's extension saw exactly two ide_connected (the first claude's, then the second's) and closed the first one.
    const port = results.b.connect.data!.port;
    const [log, ...more] = logsOfPort(port);
    expect({ logs: 1 + more.length, announced: announcedPids(log?.text ?? '') }).toEqual({ logs: 1, announced: [d.pids.first, d.pids.second] });
    expect(log.text).toMatch(/Closing connection #\d+: superseded by #\d+/);
    expectInnerPassed('a', 'isolated', 'a');
  });

  it('extension-host restart: same port and token, claude reconnects by itself within 15 s, selections still arrive', () => {
    const one = expectInnerPassed('restart-1', 'restart-1', 'restart');
    const two = expectInnerPassed('restart-2', 'restart-2', 'restart');
    expect(two.status.port).toBe(one.status.port);
    expect(two.extHostPid).not.toBe(one.extHostPid);
    expect(two.reconnectedAfterMs).toBeLessThan(15_000);
    // Two extension hosts served the port, and each saw the same claude announce itself (a new ide_connected).
    const served = logsOfPort(one.status.port);
    expect(served.map((l) => announcedPids(l.text))).toEqual([[one.cliPid], [one.cliPid]]);
    if (process.env.NC_WIN_DEBUG)
      console.log(
        `restart timing: server up ${two.serverRunningAfterMs} ms, claude back ${two.reconnectedAfterMs} ms, selection ${two.selectionShownAfterMs} ms after the restart command`,
      );
  });
});
