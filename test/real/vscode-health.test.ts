/**
 * End to end in real VS Code (code-server 4.139.1) with the packaged extension and the real `claude` CLI
 * (2.1.328) typed into integrated terminals:
 * - Check Setup finds a terminal opened while the server was off (no CLAUDE_CODE_SSE_PORT) and another
 *   window's lock file for the same folder; claude in that terminal does not connect; the page's relaunch fix
 *   gives a terminal whose claude connects;
 * - the selection toggle and the exclude patterns, judged by what the CLI shows ("N lines selected");
 * - next to Anthropic's own extension 1.0.109 (vendor/claude-code.vsix of @anthropic-ai/claude-code@1.0.109,
 *   fetched once with `npm pack` into $TMPDIR/nc-anthropic-1.0.109): undecided, chosen "this", chosen "theirs".
 * The inner suite is test/vscode/suites/health-sharing.test.ts. Run (under the machine's real-test lock):
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-health.test.ts
 * NC_HEALTH_DEBUG=1 prints the inner results and logs; NATIVE_CLAUDE_VSIX=<file> skips packaging.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { codeServerAvailable, compileInnerSuites, saveScreenshot, type SuiteResult } from './harness/codeServer';
import { startFakeModel, type FakeModel } from './harness/fakeModel';
import { killTmuxServer, prepareIntegratedClaude, statusBarEntries } from './harness/integratedClaude';
import { anthropicVsix, ANTHROPIC_VERSION } from './harness/anthropicExtension';
import { runInnerSuite } from './harness/innerSuite';
import { ensureVsix } from './harness/vsix';
import { notificationTexts } from './harness/workbenchUi';

const SELECTION_FILE = 'sel.ts';
const SECRET_FILE = '.env';
const NOTEBOOK_FILE = 'nb.ipynb';
const NOTEBOOK = {
  cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: ['x = 1\n', 'y = 2\n', 'print(x + y)\n'] }],
  metadata: { language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each probe's data has its own shape, read by its test
type Results = Record<string, { state?: string; error?: string; data?: Record<string, any> }>;

const probes = {
  screenshot: async (page: Page, name: unknown) => saveScreenshot(page, String(name)),
  /** Waits until the Check Setup webview shows its findings (webviews load late on a busy machine), then a screenshot and its text. */
  healthPage: async (page: Page, name: unknown) => {
    const body = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame').locator('body');
    await body.locator('li.finding').first().waitFor({ timeout: 30_000 });
    return { shot: await saveScreenshot(page, String(name)), text: await body.innerText() };
  },
  clickNotificationButton: async (page: Page, label: unknown) => {
    const button = page.locator('.notifications-center .monaco-button', { hasText: new RegExp(`^${String(label)}$`) }).first();
    await button.waitFor({ timeout: 10_000 });
    await button.click();
    return true;
  },
  statusBarTexts: async (page: Page) => (await statusBarEntries(page)).map((e) => e.text).filter((t) => /claude/i.test(t)),
  notificationTexts: (page: Page) => notificationTexts(page),
};

describe('vscode-health', () => {
  let model: FakeModel | undefined;
  let root = '';
  const runs: Record<string, { suite?: SuiteResult; error?: Error; results: Results }> = {};

  type Role = 'health' | 'coexist';
  /** One code-server on one folder, one window running the role's inner tests; the claudes it starts end with it. */
  const run = async (role: Role, vsixPaths: string[]) => {
    const folder = path.join(root, `ws-${role}`);
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, SELECTION_FILE), 'const one = 1;\nconst two = 2;\nconst three = 3;\nconst four = 4;\n');
    fs.writeFileSync(path.join(folder, SECRET_FILE), 'API_KEY=do-not-share\nDB_PASSWORD=hunter2\n');
    fs.writeFileSync(path.join(folder, NOTEBOOK_FILE), JSON.stringify(NOTEBOOK, null, 1));
    const specPath = path.join(root, `${role}-spec.json`);
    const ic = prepareIntegratedClaude({ workspace: folder, modelUrl: model!.url, env: { NC_HEALTH_SPEC: specPath } });
    const out = path.join(root, `${role}.json`);
    fs.writeFileSync(specPath, JSON.stringify({ role, out, selectionFile: SELECTION_FILE, secretFile: SECRET_FILE, notebookFile: NOTEBOOK_FILE }));
    // The extension host's PATH is not the one code-server was started with (it does not hold the bin dir),
    // so the health check is pointed at the pinned CLI the way a user would: nativeClaude.claudeCommand.
    const userSettings = { 'git.enabled': false, 'files.autoSave': 'off', 'nativeClaude.claudeCommand': path.join(ic.binDir, 'claude') };
    const inner = await runInnerSuite<Results>({
      server: { workspace: folder, vsixPaths, env: ic.env, userSettings },
      run: {
        files: ['health-sharing'],
        timeout: 150_000,
        timeoutMs: 420_000,
        probeDir: ic.probeDir,
        probes,
        screenshotOnProbeError: true,
        name: `vscode-health-${role}`,
        onLog: process.env.NC_HEALTH_DEBUG ? (l) => console.log(`[${role}] ${l}`) : undefined,
      },
      resultsPath: out,
      beforeStop: async () => {
        for (const tag of ['old', 'main', 'this']) await killTmuxServer(`${ic.tmuxSocket}-${tag}`);
      },
      afterStop: () => ic.cleanup(),
    });
    runs[role] = { suite: inner.suite, error: inner.suiteError, results: inner.results ?? {} };
    if (process.env.NC_HEALTH_DEBUG)
      console.log(
        JSON.stringify({ role, exit: runs[role].suite?.exitCode, error: runs[role].error?.message.slice(0, 3000), results: runs[role].results }, null, 2),
      );
  };

  const passed = (role: string, key: string) => {
    const r = runs[role]?.results[key];
    const context = r?.state === 'passed' ? {} : { runError: runs[role]?.error?.message.slice(0, 2000), logTail: runs[role]?.suite?.log.slice(-30) };
    expect({ key, state: r?.state, error: r?.error, ...context }).toEqual({ key, state: 'passed', error: undefined });
    return r.data ?? {};
  };

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix, theirs] = await Promise.all([ensureVsix(), Promise.resolve().then(anthropicVsix), compileInnerSuites()]);
    model = await startFakeModel();
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-health-')));
    await run('health', [vsix]);
    await run('coexist', [vsix, theirs]);
  }, 900_000);

  afterAll(async () => {
    await model?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('Check Setup names the terminal without CLAUDE_CODE_SSE_PORT and the other lock file; claude there stays unconnected; the relaunch fix connects it', () => {
    const d = passed('health', 'health-terminal');
    expect(d.oldTerminalPort).toBeNull();
    const byId = Object.fromEntries((d.findings as Array<{ id: string; title: string; fixes?: unknown[] }>).map((f) => [f.id, f]));
    expect(byId['terminals.missingPort'].title).toBe('1 terminal opened before the IDE server started lacks CLAUDE_CODE_SSE_PORT');
    expect(byId['terminals.missingPort'].fixes).toEqual([
      { label: 'Relaunch these terminals', command: 'nativeClaude.relaunchTerminals', args: [['old shell']] },
    ]);
    expect(byId['lockFiles.competing'].title).toBe('Another IDE lists this folder: another window of this VS Code (port 1)');
    expect(byId['cli.ok'].title).toBe('claude 2.1.328 (Claude Code)');
    expect(Object.keys(byId)).toEqual(expect.arrayContaining(['server.ok', 'lockFile.ok', 'tools.missing']));
    // The real CLI: two IDEs list the folder and the terminal names no port: it connects to neither.
    expect(d.oldSessions).toBe(0);
    expect(d.relaunched).toBe(1);
    expect(d.newTerminalPort).toBe(
      String(runs.health.results['health-terminal'].data!.findings.find((f: { id: string }) => f.id === 'server.ok').title.match(/:(\d+)$/)[1]),
    );
    expect(d.afterIds).not.toContain('terminals.missingPort');
    expect(d.connected).toBe(true);
    expect(fs.existsSync(d.pageShot)).toBe(true);
    // What the rendered page says (the webview's own text), with its fix button.
    expect(d.pageText).toContain('1 terminal opened before the IDE server started lacks CLAUDE_CODE_SSE_PORT');
    expect(d.pageText).toContain('Relaunch these terminals');
  });

  it('the selection toggle stops and restarts what claude shows; the status bar says it is off', () => {
    const d = passed('health', 'selection');
    expect(d.on).toBe('2 lines selected');
    expect(d.toggledTo).toBe(false);
    expect(d.off).toBeUndefined();
    expect(d.offAfterNewSelection).toBeNull();
    expect(d.statusItem).toEqual(expect.arrayContaining([expect.stringMatching(/Claude: selection not shared/)]));
    expect(d.toggledBack).toBe(true);
    expect(d.onAgain).toBe('3 lines selected');
  });

  it('a selection in .env is never shown by claude, and an @-mention of it is refused', () => {
    const d = passed('health', 'selection');
    expect({ inSecret: d.inSecret, later: d.inSecretLater, mention: d.mention, prompt: d.promptLines }).toEqual({
      inSecret: null,
      later: null,
      mention: null,
      prompt: [],
    });
    expect(d.back).toBe('2 lines selected');
  });

  it("a selection in a notebook cell is shown by claude (the .ipynb path, the cell's lines), never a cell URI", () => {
    const d = passed('health', 'notebook');
    expect(d).toEqual({ cellScheme: 'vscode-notebook-cell', shown: '3 lines selected' });
  });

  it("next to Anthropic's extension, undecided: Native Claude leaves the terminal variable to it, asks, and Check Setup explains", () => {
    const d = passed('coexist', 'coexist-undecided');
    expect(d.theirVersion).toBe(ANTHROPIC_VERSION);
    expect(d.terminalPort).not.toBe(String(d.ourPort));
    expect(d.terminalPort).toMatch(/^\d+$/);
    const titles = (d.findings as Array<{ id: string; title: string }>).map((f) => `${f.id}: ${f.title}`);
    expect(titles).toEqual(
      expect.arrayContaining([
        `coexistence.both: Anthropic's Claude Code extension ${ANTHROPIC_VERSION} is installed and running`,
        `lockFiles.competing: Another IDE lists this folder: Anthropic's Claude Code extension in this VS Code (port ${d.terminalPort})`,
      ]),
    );
    expect((d.notifications as string[]).some((n) => /Anthropic's Claude Code extension is also installed/.test(n))).toBe(true);
  });

  it('chosen Native Claude in the same window: new terminals carry its port at once, whichever extension registered the variable first', () => {
    const d = passed('coexist', 'coexist-this');
    expect(d.choice).toBe('this');
    expect({ terminalPort: d.terminalPort, portElsewhere: d.portElsewhere }).toEqual({ terminalPort: String(d.ourPort), portElsewhere: false });
  });

  it("chosen Anthropic's: no server, no lock file, new terminals carry their port; switching back restarts", () => {
    const d = passed('coexist', 'coexist-anthropic');
    expect(d).toMatchObject({ choice: { choice: 'anthropic', portElsewhere: false }, running: false, lockExists: false, runningAgain: true });
    expect(d.terminalPort).toMatch(/^\d+$/);
    expect(d.ids).toContain('coexistence.anthropic');
  });
});
