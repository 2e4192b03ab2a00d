/**
 * End to end, the hand-off entry points (docs/selection.md, "Handing work to claude"): real `claude` CLIs
 * (2.1.328) in integrated terminals of real VS Code (code-server 4.139.1) with the packaged extension and
 * the test python kernel, a scripted fake model.
 *
 * The inner suite (test/vscode/suites/handoff-claude.test.ts) runs each entry point and reads claude's
 * prompt from its screen; this outer test scripts the model, tells the inner suite what the model has
 * received (`typed`: nothing may arrive before Enter) and checks what arrived after Enter:
 * - Fix with Claude (a quick fix on a TypeScript error): `@bad.ts#L2 Fix this error on line 2 (ts 2322): …`,
 *   the CLI having attached line 2 of bad.ts;
 * - Ask Claude About This Change from the gutter peek of a hunk claude made: `@change.txt#L2` and the diff;
 *   from the gutter peek of git's hunk (the user's uncommitted change): `@tracked.txt#L2` and its diff; from
 *   the context menu of the changed file in Source Control: `@tracked.txt` and the file named; for a file
 *   another program changed while claude worked (Claude's changes lists it without certainty): "maybe not
 *   by claude";
 * - a problem in secrets/ (excluded by default) is refused with a message naming the setting;
 * - Send to Claude on a terminal selection: the output, fenced;
 * - Send Cell to Claude on a cell that raised: `@nb.ipynb`, the code and the ValueError;
 * - two claude: the one whose terminal was used last; with `handOffTo: ask` the quick pick's choice;
 * - no claude: Start claude launches one (the launch command) and the text arrives in its prompt.
 *
 * Needs test/setup/install-real-clients.sh. Run (under the machine's real-test lock):
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand test/real/vscode-handoff.test.ts
 * NC_HANDOFF_DEBUG=1 prints the inner results and the extension's log.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, PYTHON_KERNEL_EXTENSION_PATH, type SuiteResult } from './harness/codeServer';
import { freshMessages, startFakeModel, textOf, type FakeModel, type MessagesRequest, type Reply } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { clickPeekAction, clickScmFileMenu, notificationProbe, notificationTexts } from './harness/workbenchUi';
import { ensureVsix, REPO_ROOT } from './harness/vsix';
import { expectInnerPassed as expectInner, type InnerResult } from './harness/innerResults';

const BAD_TS = "// a TypeScript error on line 2\nconst count: number = 'three';\nexport { count };\n";

describe('vscode-handoff', () => {
  let model: FakeModel;
  let workspace = '';
  let suite: SuiteResult | undefined;
  let suiteError: Error | undefined;
  let results: Record<string, InnerResult> = {};
  /** The extension's log lines about hand-offs (each one it typed or refused): whether a click's command ran at all. */
  let handoffLog: string[] = [];
  /** What the user typed in each prompt that reached the model (the fresh user messages), in order. */
  const typed: string[] = [];
  const requests: string[] = [];

  const ANSWERS: Array<[RegExp, string]> = [
    [/Fix this error on line 2/, 'answered fix'],
    [/Explain this error on line 2/, 'answered explain'],
    [/From the terminal "tests"/, 'answered terminal'],
    [/Cell 1 of nb\.ipynb/, 'answered cell'],
    [/About this change claude made in change\.txt/, 'answered change'],
    [/About this uncommitted change in tracked\.txt:\s*\n[\s\S]*`{3,}diff/, 'answered git change'],
    [/About this uncommitted change in tracked\.txt:/, 'answered scm file'],
    [/About this change in notes\.txt, made while claude was working/, 'answered uncertain'],
  ];
  const router = (request: MessagesRequest): Reply => {
    const fresh = freshMessages(request);
    const text = fresh
      .filter((m) => m.role === 'user')
      .map(textOf)
      .join('\n');
    typed.push(text);
    requests.push(JSON.stringify(fresh));
    // claude reads change.txt (its Edit needs that) and edits it (accept-edits: no question), then says so.
    const results = fresh.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)),
    );
    const changeTxt = path.join(workspace, 'change.txt');
    if (/edit:change/.test(text)) return { toolUse: { name: 'Read', input: { file_path: changeTxt }, id: 'toolu_nc_change_read' } };
    if (results.includes('toolu_nc_change_read'))
      return { toolUse: { name: 'Edit', input: { file_path: changeTxt, old_string: 'beta', new_string: 'BETA 3a7e' }, id: 'toolu_nc_change_edit' } };
    if (results.includes('toolu_nc_change_edit')) return { text: 'done change' };
    return { text: ANSWERS.find(([re]) => re.test(text))?.[1] ?? 'ok' };
  };

  const expectInnerPassed = (key: string) =>
    expectInner(key, results[key], () => ({
      data: results[key]?.data,
      handoffLog,
      suiteError: suiteError?.message.slice(0, 3000),
      innerLogTail: suite?.log.slice(-60),
      final: results._final,
    }));
  /** The request whose typed text matched `re` (the user's prompt after Enter). */
  const requestWith = (re: RegExp) => {
    const i = typed.findIndex((t) => re.test(t));
    expect(i).toBeGreaterThanOrEqual(0);
    return { typed: typed[i], request: requests[i] };
  };

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    model = await startFakeModel();
    model.respond(...Array.from({ length: 60 }, () => router));
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-handoff-ws-')));
    fs.writeFileSync(path.join(workspace, 'bad.ts'), BAD_TS);
    fs.writeFileSync(path.join(workspace, 'change.txt'), 'alpha\nbeta\ngamma\n');
    fs.mkdirSync(path.join(workspace, 'secrets'));
    fs.writeFileSync(path.join(workspace, 'secrets', 'bad.ts'), BAD_TS);
    fs.writeFileSync(path.join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2020', module: 'commonjs' } }));
    // A git repository with one committed file (the git-hunk and Source Control entry points); the rest
    // stays untracked, so git's quick diff has nothing for the files claude changes.
    fs.writeFileSync(path.join(workspace, 'tracked.txt'), 'one\ntwo\nthree\n');
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'first\nsecond\nthird\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: workspace, stdio: 'pipe' });
    git('init', '-q');
    git('add', 'tracked.txt', 'notes.txt');
    git('commit', '-q', '-m', 'tracked');
    // The user's own uncommitted change, made before any claude ran (so it is not among Claude's changes).
    fs.writeFileSync(path.join(workspace, 'tracked.txt'), 'one\nTWO 7c2d\nthree\n');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-handoff-'));
    const logDir = path.join(root, 'logs');
    fs.mkdirSync(logDir);
    const specPath = path.join(root, 'spec.json');
    const resultsPath = path.join(root, 'results.json');
    const ic = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_HANDOFF_SPEC: specPath } });
    // Pictures (the quick fix menu, claude's prompt) for the README, kept in .test-runs/.
    const shots = path.join(REPO_ROOT, '.test-runs', 'handoff-shots');
    fs.mkdirSync(shots, { recursive: true });
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath, logDir, shots }));
    let extensionLog: string;
    ({
      suite,
      suiteError,
      results: results = {},
      extensionLog,
    } = await runClaudeInnerSuite<Record<string, InnerResult>>({
      ic,
      model,
      server: {
        workspace,
        vsixPaths: [vsix],
        userSettings: {
          'git.enabled': true,
          'git.autoRepositoryDetection': true,
          'git.openRepositoryInParentFolders': 'never',
          'files.autoSave': 'off',
          'workbench.startupEditor': 'none',
        },
      },
      run: {
        extraDevelopmentPaths: [PYTHON_KERNEL_EXTENSION_PATH],
        files: ['handoff-claude'],
        timeout: 150_000,
        timeoutMs: 540_000,
        probeDir: ic.probeDir,
        probes: {
          typed: async () => [...typed],
          notification: notificationProbe,
          clickPeekAction: (page, arg) => clickPeekAction(page, (arg as { title: string }).title),
          scmFileMenu: (page, arg) => clickScmFileMenu(page, (arg as { file: string }).file, (arg as { item: string }).item),
          press: async (page, key) => (await page.keyboard.press(String(key)), true),
          screenshot: async (page, arg) => {
            const file = (arg as { path: string }).path;
            await page.screenshot({ path: file, timeout: 10_000 });
            return file;
          },
          notifications: (page) => notificationTexts(page),
        },
        name: 'vscode-handoff',
      },
      resultsPath,
    }));
    handoffLog = extensionLog
      .split('\n')
      .filter((l) => /Hand-off|Not sent|refus/i.test(l))
      .slice(-30);
    if (process.env.NC_HANDOFF_DEBUG) {
      console.log(JSON.stringify({ exitCode: suite?.exitCode, results, typed }, null, 2));
      console.log(`--- Native Claude.log\n${extensionLog.slice(-15000)}`);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }, 660_000);

  afterAll(() => {
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  it("Fix with Claude: the reference and the message in claude's prompt, nothing sent until Enter, then the request holds both", () => {
    const d = expectInnerPassed('quickfix');
    // The CLI may show the editor's selection first, as a chip: `❯ [⧉ In bad.ts] @bad.ts#L2 …`.
    expect(d.prompt).toMatch(
      /^[❯>][ \u00a0](\[⧉[^\]]*\]\s+)?@bad\.ts#L2 Fix this error on line 2 \(ts 2322\): Type 'string' is not assignable to type[\s\S]*'number'\./,
    );
    const { typed: text, request } = requestWith(/Fix this error on line 2/);
    expect(text).toContain("@bad.ts#L2 Fix this error on line 2 (ts 2322): Type 'string' is not assignable to type 'number'.");
    // The CLI attached line 2 of bad.ts for the reference.
    expect(request).toContain("const count: number = 'three';");
  });

  it("Ask Claude About This Change from the gutter peek of a Claude's-changes hunk: @change.txt#L2 and the hunk's diff", () => {
    const d = expectInnerPassed('change');
    expect(d.peek).toMatchObject({ titles: expect.arrayContaining(['Ask Claude About This Change']) });
    const { typed: text } = requestWith(/About this change claude made in change\.txt/);
    // Five lines: 2.1 folded the paste in its prompt and sends it in <pasted_content> tags.
    expect(text).toMatch(/@change\.txt#L2\s+(<pasted_content[^>]*>\n)?About this change claude made in change\.txt:\n```+diff\n-beta\n\+BETA 3a7e\n```+/);
  });

  it('Ask Claude About This Change from the gutter peek of a git hunk: @tracked.txt#L2 and the uncommitted diff', () => {
    const d = expectInnerPassed('git-change');
    expect(d.peek).toMatchObject({ titles: expect.arrayContaining(['Ask Claude About This Change']) });
    const { typed: text } = requestWith(/About this uncommitted change in tracked\.txt:\s*\n[\s\S]*`{3,}diff/);
    expect(text).toMatch(/@tracked\.txt#L2\s+(<pasted_content[^>]*>\n)?About this uncommitted change in tracked\.txt:\n```+diff\n-two\n\+TWO 7c2d\n```+/);
  });

  it("Ask Claude About This Change from a changed file's context menu in Source Control: @tracked.txt and the file named", () => {
    const d = expectInnerPassed('scm-file');
    // Only git lists the file (the user changed it before claude ran): one row, one such item.
    expect(d.menu).toMatchObject({ rows: 1, items: expect.arrayContaining(['Ask Claude About This Change']) });
    // One click runs it. A click before the menu armed its items (100 ms after it renders) is lost and the
    // menu stays open: the helper then clicks again (clickScmFileMenu), printed here when it had to.
    const clicks = (d.menu as { clicks: number }).clicks;
    if (clicks > 1) console.warn(`vscode-handoff [scm-file]: the menu item took ${clicks} clicks (the menu stayed open after the first)`);
    expect((d.menu as { items: string[] }).items.filter((i) => i === 'Ask Claude About This Change')).toHaveLength(1);
    const scm = typed.filter((t) => /About this uncommitted change in tracked\.txt:/.test(t) && !/```+diff/.test(t));
    expect(scm).toEqual([expect.stringMatching(/@tracked\.txt About this uncommitted change in tracked\.txt:/)]);
  });

  it('a change Claude\'s changes lists without certainty (another program wrote it while claude worked): the text says "maybe not by claude", never "claude made"', () => {
    expectInnerPassed('uncertain');
    const { typed: text } = requestWith(/About this change in notes\.txt/);
    expect(text).toContain('@notes.txt About this change in notes.txt, made while claude was working (maybe not by claude):');
    expect(typed.some((t) => /claude made in notes\.txt/.test(t))).toBe(false);
  });

  it('a problem in an excluded file (secrets/) is refused and the user told which setting', () => {
    expectInnerPassed('excluded');
    expect(typed.some((t) => t.includes('secrets/bad.ts'))).toBe(false);
  });

  it('Send to Claude on a terminal selection: the output, fenced, after Enter', () => {
    expectInnerPassed('terminal');
    const { typed: text } = requestWith(/From the terminal "tests"/);
    expect(text).toMatch(/From the terminal "tests":\n```+\n[\s\S]*FAIL src\/sum\.test\.ts\n {2}expected 4, received 5 9e3c[\s\S]*\n```+/);
  });

  it('Send Cell to Claude on a cell that raised: @nb.ipynb, the code and the error', () => {
    const d = expectInnerPassed('cell');
    expect(d.prompt).toMatch(/@nb\.ipynb/);
    const { typed: text } = requestWith(/Cell 1 of nb\.ipynb/);
    expect(text).toContain('@nb.ipynb');
    expect(text).toMatch(
      /Cell 1 of nb\.ipynb \(python\) raised an error:\n```+python\nraise ValueError\("bad value 5d1f"\)\n```+\nError:\n```+\n[\s\S]*ValueError: bad value 5d1f/,
    );
  });

  it('two claude: the last used terminal\'s claude gets it; with handOffTo "ask" the picked one', () => {
    const d = expectInnerPassed('two');
    expect(d.lastUsed).toMatchObject({ sent: true, terminalName: 'claude-b' });
    expect(requestWith(/Explain this error on line 2/).typed).toContain('@bad.ts#L2 Explain this error on line 2 (ts 2322)');
    expect(d.asked).toMatchObject({ sent: true });
  });

  it('no claude: Start claude launches it and the text arrives in its prompt, sent on Enter', () => {
    const d = expectInnerPassed('none');
    expect(d.notification).toMatchObject({ buttons: expect.arrayContaining(['Start claude']) });
    expect(typed.filter((t) => /@bad\.ts#L2 Fix this error on line 2/.test(t)).length).toBeGreaterThanOrEqual(2);
  });
});
