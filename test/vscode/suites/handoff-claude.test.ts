/**
 * The inner half of test/real/vscode-handoff.test.ts: the hand-off entry points with real `claude` CLIs in
 * integrated terminals (each under `script`, test/vscode/scriptedClaude.ts, so the extension finds its
 * terminal and its screen is readable). It runs only with $NC_HANDOFF_SPEC (written by the outer test,
 * which scripts the model and answers `typed`: the prompts the model has received so far).
 *
 * For each entry point: what claude's prompt holds after the command (the screen), that nothing reached
 * the model until Enter, and then (outer test) that the request holds the reference and the text.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, afterEach, before, describe, it } from '../bdd';
import { appendCell, openNotebook, pythonKernel, runCell, writeNotebook } from '../notebook';
import { ScriptedClaude } from '../scriptedClaude';
import { installedExtension, probe, sleep, terminalWithShellIntegration, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
  changes(): Promise<ReadonlyArray<{ files: Array<{ path: string }> }>>;
  sessions(): Array<{ id: number; cliPid?: number; terminalName?: string }>;
}
type Outcome = { sent: true; terminalName: string; text: string } | { sent: false; reason: string };

interface Spec {
  workspace: string;
  results: string;
  logDir: string;
  /** Where screenshots go (the outer test's probe writes them). */
  shots: string;
}

const SPEC_PATH = process.env.NC_HANDOFF_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const results: Record<string, { state?: string; error?: string; ms?: number; data?: Record<string, unknown> }> = {};
const data: Record<string, Record<string, unknown>> = {};

/** The git extension's repositories and their changed files, as Source Control lists them (for a failure's facts). */
function gitState(): unknown {
  type Repo = { rootUri: vscode.Uri; state: { workingTreeChanges: Array<{ uri: vscode.Uri }>; indexChanges: Array<{ uri: vscode.Uri }> } };
  const git = vscode.extensions.getExtension<{ getAPI(v: 1): { repositories: Repo[] } }>('vscode.git');
  if (!git?.isActive) return { gitExtension: git ? 'not active' : 'absent' };
  return git.exports.getAPI(1).repositories.map((r) => ({
    root: r.rootUri.fsPath,
    workingTree: r.state.workingTreeChanges.map((c) => path.basename(c.uri.fsPath)),
    index: r.state.indexChanges.map((c) => path.basename(c.uri.fsPath)),
  }));
}
const keyOf = (title: string) => /^\[([\w-]+)\]/.exec(title)?.[1] ?? title;
const setting = (key: string, value: unknown) => vscode.workspace.getConfiguration('nativeClaude').update(key, value, vscode.ConfigurationTarget.Global);
const flat = (s: string) => s.replace(/\s+/g, ' ');

/**
 * The input boxes on a claude screen: a `❯` line right under a `───` rule, down to the next rule. The
 * screen is the log rendered again, so a box drawn before a resize can stay below the live one.
 */
function promptBoxes(screen: string): string[] {
  const lines = screen.split('\n');
  const boxes: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!/^[❯>][ \u00a0]/.test(lines[i]) || !/^\s*─{10,}/.test(lines[i - 1])) continue;
    const end = lines.findIndex((l, j) => j > i && /^\s*─{10,}/.test(l));
    boxes.push(
      lines
        .slice(i, end === -1 ? undefined : end)
        .join('\n')
        .trimEnd(),
    );
  }
  return boxes;
}
const promptOf = (screen: string) => promptBoxes(screen).pop() ?? '';
/** How many input boxes on claude's screen (its history included) have held `text`. */
const boxesWith = async (claude: ScriptedClaude, text: string) => promptBoxes(await claude.screen()).filter((box) => flat(box).includes(text)).length;

describe('handing work to claude: text in its prompt, not submitted', function () {
  this.timeout(150_000);
  let api: NativeClaudeApi;
  let workspace: string;
  const a = new ScriptedClaude('a', () => spec!.logDir);
  const b = new ScriptedClaude('b', () => spec!.logDir);
  let started = 0;

  /** claude's prompt box once it shows `expected` (whitespace-insensitive); the screen's tail on failure. */
  const promptShows = (claude: ScriptedClaude, expected: string, timeoutMs = 20_000) =>
    waitFor(
      `claude-${claude.tag}'s prompt to show ${expected}`,
      async () => {
        return promptBoxes(await claude.screen())
          .reverse()
          .find((box) => flat(box).includes(flat(expected)));
      },
      timeoutMs,
      250,
    ).catch(async (error: Error) => {
      // Whether claude still runs and what it waits on (a blocked write would freeze its screen).
      const states = (await claude.processes()).map((pid) => {
        const read = (f: string) => {
          try {
            return fs.readFileSync(`/proc/${pid}/${f}`, 'utf8').trim();
          } catch {
            return '?';
          }
        };
        return `${pid} ${read('cmdline').split('\0').join(' ').slice(0, 60)} state=${read('stat').split(') ')[1]?.split(' ')[0]} wchan=${read('wchan')}`;
      });
      const size = fs.existsSync(claude.log) ? fs.statSync(claude.log).size : -1;
      throw new Error(
        `${error.message}\nprocesses: ${states.join('; ')}; log ${size} bytes; active terminal: ${vscode.window.activeTerminal?.name}\nclaude-${claude.tag}'s screen (last 25 lines):\n${(await claude.screen()).split('\n').slice(-25).join('\n')}`,
      );
    });

  /** How many prompts the model received so far hold `marker`. */
  const received = async (marker: string) => (await probe<string[]>('typed')).filter((t) => t.includes(marker)).length;
  /** The model received no new prompt holding `marker` (it had `before`); then Enter, and the answer appears. */
  const nothingSentThenEnter = async (claude: ScriptedClaude, marker: string, answer: string, before = 0) => {
    await sleep(2500);
    assert.strictEqual(await received(marker), before, `the model got "${marker}" before Enter`);
    claude.terminal.sendText('\r', false);
    // The model's request log proves that Enter sent it. Under load the CLI can take an Enter that comes
    // while it is still busy as part of the input (as ScriptedClaude.ask knows): then it is pressed again.
    const got = async () => (await received(marker)) > before;
    try {
      await waitFor(`the model to get "${marker}" after Enter`, got, 15_000, 250);
    } catch {
      (data.secondEnter ??= {})[marker] = true; // counted in the results, so a run that needed it shows
      claude.terminal.sendText('\r', false);
      await waitFor(`the model to get "${marker}" after a second Enter`, got, 15_000, 250);
    }
    // The answer on claude's screen (its end of the turn); the stripped log too, where the rendering is off.
    await waitFor(
      `claude-${claude.tag} to show ${answer}`,
      async () => claude.output().includes(answer) || (await claude.screen()).includes(answer),
      30_000,
      250,
    );
  };

  const startClaude = async (claude: ScriptedClaude, sessions: number) => {
    await claude.start(workspace);
    await waitFor(`claude-${claude.tag} to connect`, () => api.status().sessionCount === sessions, 60_000, 100);
    await claude.waitFor('❯', 30_000);
    await waitFor(
      `claude-${claude.tag}'s terminal to be known`,
      () => api.sessions().filter((s) => s.terminalName === `claude-${claude.tag}`).length === 1,
      15_000,
    );
    // Past the CLI's start-up: its at_mentioned handler is registered.
    await sleep(1500);
  };

  /** The quick fixes VS Code lists for the problem (what the lightbulb and Ctrl+. show). */
  const quickFix = async (uri: vscode.Uri, title: string): Promise<vscode.Command> => {
    const diagnostic = await waitFor(`a problem in ${path.basename(uri.fsPath)}`, () => vscode.languages.getDiagnostics(uri)[0], 60_000, 250);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      uri,
      diagnostic.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const action = actions.find((x) => x.title === title);
    assert.ok(action?.command, `no "${title}" among ${JSON.stringify(actions.map((x) => x.title))}`);
    return action.command;
  };
  const run = (command: vscode.Command) => vscode.commands.executeCommand<Outcome>(command.command, ...(command.arguments ?? []));

  before(async function () {
    if (!spec) this.skip();
    workspace = vscode.workspace.workspaceFolders![0].uri.fsPath;
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 30_000);
  });

  afterEach(function () {
    const test = (this as unknown as { currentTest?: { title: string; state?: string; err?: Error } }).currentTest;
    if (!test || !spec) return;
    const key = keyOf(test.title);
    results[key] = { state: test.state, error: test.err ? String(test.err.stack ?? test.err) : undefined, ms: Date.now() - started, data: data[key] };
    fs.writeFileSync(spec.results, JSON.stringify(results, null, 2));
  });

  after(() => {
    if (!spec) return;
    results._final = { data: { sessions: api?.sessions(), a: a.output().slice(-3000), b: b.output().slice(-3000) } };
    fs.writeFileSync(spec.results, JSON.stringify(results, null, 2));
  });

  it("[quickfix] Fix with Claude on a TypeScript error puts @bad.ts#L2 and the message into claude's prompt; nothing is sent until Enter", async () => {
    started = Date.now();
    const d = (data.quickfix = {} as Record<string, unknown>);
    await startClaude(a, 1);
    const uri = vscode.Uri.file(path.join(workspace, 'bad.ts'));
    const editor = await vscode.window.showTextDocument(uri, { preview: false });
    const command = await quickFix(uri, 'Fix with Claude');
    // The lightbulb's menu as the user sees it (Ctrl+. on the error), for the README; then closed.
    editor.selection = new vscode.Selection(1, 6, 1, 6);
    await vscode.commands.executeCommand('editor.action.quickFix');
    await sleep(1500);
    d.shotMenu = await probe('screenshot', { path: path.join(spec!.shots, 'handoff-quickfix-menu.png') }).catch((e: Error) => e.message);
    await probe('press', 'Escape');
    const outcome = await run(command);
    d.outcome = outcome;
    assert.strictEqual(outcome.sent, true, JSON.stringify(outcome));
    d.prompt = await promptShows(a, "@bad.ts#L2 Fix this error on line 2 (ts 2322): Type 'string' is not assignable to type 'number'.");
    d.shotPrompt = await probe('screenshot', { path: path.join(spec!.shots, 'handoff-quickfix-prompt.png') }).catch((e: Error) => e.message);
    await nothingSentThenEnter(a, 'Fix this error', 'answered fix');
  });

  it('[excluded] a problem in a file the sharing rules exclude is refused, and the user is told which setting', async () => {
    started = Date.now();
    const d = (data.excluded = {} as Record<string, unknown>);
    const uri = vscode.Uri.file(path.join(workspace, 'secrets', 'bad.ts'));
    await vscode.window.showTextDocument(uri, { preview: false });
    const before = await a.screen();
    const outcome = await run(await quickFix(uri, 'Explain with Claude'));
    d.outcome = outcome;
    assert.deepStrictEqual(outcome, { sent: false, reason: 'Not sent to Claude: secrets/bad.ts is excluded by the setting nativeClaude.excludeFromSharing.' });
    // Toasts may stay hidden while extension tests run: the notification centre lists it.
    await vscode.commands.executeCommand('notifications.showList');
    await sleep(500);
    d.notification = await probe('notifications');
    await vscode.commands.executeCommand('notifications.hideList');
    assert.ok(
      (d.notification as string[]).some((n) => n.includes('secrets/bad.ts is excluded')),
      'the user is told',
    );
    await sleep(1500);
    assert.strictEqual(promptOf(await a.screen()), promptOf(before), "claude's prompt is unchanged");
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("[terminal] Send to Claude on a terminal selection puts the selected output, fenced, into claude's prompt", async () => {
    started = Date.now();
    const d = (data.terminal = {} as Record<string, unknown>);
    const tests = await terminalWithShellIntegration({ name: 'tests', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
    tests.show(false);
    tests.sendText("clear; printf 'FAIL src/sum.test.ts\\n  expected 4, received 5 9e3c\\n'");
    await sleep(1500);
    await waitFor('the tests terminal in front', () => vscode.window.activeTerminal === tests, 5_000);
    await vscode.commands.executeCommand('workbench.action.terminal.selectAll');
    const outcome = await vscode.commands.executeCommand<Outcome>('nativeClaude.sendTerminalSelectionToClaude');
    d.outcome = outcome;
    assert.strictEqual(outcome.sent, true, JSON.stringify(outcome));
    assert.strictEqual((outcome as { terminalName: string }).terminalName, 'claude-a');
    // Four lines or more: 2.1 folds the paste in its prompt (docs/selection.md); Enter sends it whole.
    d.prompt = await promptShows(a, '[Pasted text #');
    await nothingSentThenEnter(a, 'expected 4, received 5 9e3c', 'answered terminal');
    tests.dispose();
  });

  it("[cell] Send Cell to Claude on a cell that raised puts @nb.ipynb and the cell's code and error into claude's prompt", async () => {
    started = Date.now();
    const d = (data.cell = {} as Record<string, unknown>);
    const file = path.join(workspace, 'nb.ipynb');
    writeNotebook(file);
    const kernel = await pythonKernel();
    const editor = await openNotebook(file);
    await kernel.select(editor);
    const cell = await appendCell(editor.notebook, 'raise ValueError("bad value 5d1f")');
    await runCell(cell);
    await vscode.commands.executeCommand('workbench.action.files.save');
    const outcome = await vscode.commands.executeCommand<Outcome>('nativeClaude.sendCellToClaude', cell);
    d.outcome = outcome;
    assert.strictEqual(outcome.sent, true, JSON.stringify(outcome));
    d.prompt = await promptShows(a, '@nb.ipynb [Pasted text #');
    await nothingSentThenEnter(a, 'bad value 5d1f', 'answered cell');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("[change] Ask Claude About This Change in the gutter peek of a Claude's-changes hunk puts @change.txt#L2 and the hunk's diff into claude's prompt", async () => {
    started = Date.now();
    const d = (data.change = {} as Record<string, unknown>);
    const file = path.join(workspace, 'change.txt');
    // Shift+Tab: accept-edits, so claude's Edit needs no answer; it is listed in Claude's changes.
    const mark = a.output().length;
    a.terminal.sendText('\x1b[Z', false);
    // A string, not a pattern: the CLI redraws only the cells that changed, so the footer's text can be
    // split in the stripped log (CI failed here once); a string is also looked for on the rendered screen.
    await a.waitFor('accept edits on', 15_000, Math.max(0, mark - 200));
    await a.ask('prompt edit:change', 'done change');
    await waitFor('claude to edit change.txt', () => fs.readFileSync(file, 'utf8') === 'alpha\nBETA 3a7e\ngamma\n', 20_000);
    await waitFor("Claude's changes to list change.txt", async () => (await api.changes()).some((x) => x.files.some((f) => f.path === file)), 20_000, 250);
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await sleep(1500);
    // The gutter's peek on the change (change.txt is untracked: Claude's changes is its only quick diff).
    await vscode.commands.executeCommand('editor.action.dirtydiff.next');
    await sleep(1000);
    d.peek = await probe('clickPeekAction', { title: 'Ask Claude About This Change' });
    d.prompt = await promptShows(a, '@change.txt#L2 [Pasted text #');
    await nothingSentThenEnter(a, 'About this change claude made', 'answered change');
    await vscode.commands.executeCommand('closeDirtyDiff').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("[git-change] Ask Claude About This Change in the gutter peek of a git hunk puts @tracked.txt#L2 and the uncommitted diff into claude's prompt", async () => {
    started = Date.now();
    const d = (data['git-change'] = {} as Record<string, unknown>);
    // The user's own uncommitted change to a file git tracks, made before claude started (the outer test):
    // git's quick diff is its only one.
    const file = path.join(workspace, 'tracked.txt');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    await waitFor('the editor to hold the change', () => editor.document.getText().includes('TWO 7c2d'), 10_000);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    // It needs git's first scan of the repository.
    d.peek = await waitFor(
      "git's hunk in the gutter peek",
      async () => {
        await vscode.commands.executeCommand('editor.action.dirtydiff.next');
        await sleep(1000);
        return probe<{ titles: string[] }>('clickPeekAction', { title: 'Ask Claude About This Change' }).catch(() => undefined);
      },
      30_000,
      500,
    );
    d.prompt = await promptShows(a, '@tracked.txt#L2 [Pasted text #');
    await nothingSentThenEnter(a, 'About this uncommitted change in tracked.txt', 'answered git change');
    await vscode.commands.executeCommand('closeDirtyDiff').then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("[scm-file] Ask Claude About This Change in the context menu of a changed file in Source Control puts @tracked.txt into claude's prompt", async () => {
    started = Date.now();
    const d = (data['scm-file'] = {} as Record<string, unknown>);
    await vscode.commands.executeCommand('workbench.view.scm');
    await sleep(1000);
    // The helper clicks again only when the menu stayed open (the click came before the menu armed its items).
    d.menu = await probe('scmFileMenu', { file: 'tracked.txt', item: 'Ask Claude About This Change' });
    try {
      d.prompt = await promptShows(a, '@tracked.txt About this uncommitted change in tracked.txt:');
    } catch (error) {
      // The menu ran the action (it closed) yet the prompt stayed empty: what the user saw, for the outer test.
      await vscode.commands.executeCommand('notifications.showList');
      await sleep(500);
      d.failed = { notifications: await probe('notifications'), activeTerminal: vscode.window.activeTerminal?.name, git: gitState() };
      throw error;
    }
    await nothingSentThenEnter(a, 'About this uncommitted change in tracked.txt:', 'answered scm file', 1);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
  });

  it('[uncertain] a file another program changed while claude worked: Claude\'s changes lists it without certainty, and its Ask Claude About This Change says "maybe not by claude"', async () => {
    started = Date.now();
    const d = (data.uncertain = {} as Record<string, unknown>);
    const file = path.join(workspace, 'notes.txt');
    fs.writeFileSync(file, 'first\nSECOND by another program\nthird\n');
    await waitFor("Claude's changes to list notes.txt", async () => (await api.changes()).some((x) => x.files.some((f) => f.path === file)), 30_000, 250);
    // What the Source Control menu passes for the file's row in Claude's changes: its resource state.
    const outcome = await vscode.commands.executeCommand<Outcome>('nativeClaude.askAboutClaudeChange', { resourceUri: vscode.Uri.file(file) });
    d.outcome = outcome;
    assert.strictEqual(outcome.sent, true, JSON.stringify(outcome));
    d.prompt = await promptShows(a, '@notes.txt About this change in notes.txt, made while claude was working (maybe not by claude):');
    await nothingSentThenEnter(a, 'About this change in notes.txt, made while claude was working', 'answered uncertain');
  });

  it('[two] two claude: the one whose terminal was used last gets it; with handOffTo "ask" the quick pick decides', async () => {
    started = Date.now();
    const d = (data.two = {} as Record<string, unknown>);
    await startClaude(b, 2);
    const uri = vscode.Uri.file(path.join(workspace, 'bad.ts'));
    // claude-b's terminal was used last: Explain goes there.
    b.terminal.show(true);
    await waitFor('claude-b in front', () => vscode.window.activeTerminal === b.terminal, 5_000);
    await vscode.window.showTextDocument(uri, { preview: false });
    const explainsBefore = await received('Explain this error');
    const first = await run(await quickFix(uri, 'Explain with Claude'));
    d.lastUsed = first;
    assert.strictEqual((first as { terminalName: string }).terminalName, 'claude-b');
    d.promptB = await promptShows(b, '@bad.ts#L2 Explain this error on line 2 (ts 2322)');
    assert.strictEqual(await boxesWith(a, 'Explain this error'), 0, 'claude-a got nothing');
    await nothingSentThenEnter(b, 'Explain this error', 'answered explain', explainsBefore);

    // Ask: the quick pick lists both; the second item (claude-b's terminal... or a's) is picked by the keyboard.
    await setting('handOffTo', 'ask');
    await vscode.window.showTextDocument(uri, { preview: false });
    const command = await quickFix(uri, 'Fix with Claude');
    const fixesBefore = await received('Fix this error');
    const boxesBefore = { a: await boxesWith(a, 'Fix this error'), b: await boxesWith(b, 'Fix this error') };
    const pending = run(command);
    await sleep(1500);
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await sleep(300);
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const second = await pending;
    d.asked = second;
    assert.strictEqual(second.sent, true, JSON.stringify(second));
    const picked = (second as { terminalName: string }).terminalName === 'claude-a' ? a : b;
    const other = picked === a ? b : a;
    d.promptPicked = await promptShows(picked, '@bad.ts#L2 Fix this error on line 2');
    assert.strictEqual(await boxesWith(other, 'Fix this error'), boxesBefore[other.tag as 'a' | 'b'], 'the other claude got nothing');
    await nothingSentThenEnter(picked, 'Fix this error', 'answered fix', fixesBefore);
    await setting('handOffTo', undefined);
  });

  it('[none] with no claude running, Start claude launches it and the text arrives once it is ready', async () => {
    started = Date.now();
    const d = (data.none = {} as Record<string, unknown>);
    await a.kill();
    await b.kill();
    await waitFor('no session left', () => api.status().sessionCount === 0, 15_000);
    await setting('claudeCommand', path.join(process.env.NC_CLAUDE_BIN_DIR ?? '', 'claude'));
    const uri = vscode.Uri.file(path.join(workspace, 'bad.ts'));
    await vscode.window.showTextDocument(uri, { preview: false });
    const fixesBefore = await received('Fix this error');
    const pending = run(await quickFix(uri, 'Fix with Claude'));
    d.notification = await probe('notification', { contains: 'No claude is running', button: 'Start claude' }, 30_000);
    const outcome = await pending;
    d.outcome = outcome;
    assert.strictEqual(outcome.sent, true, JSON.stringify(outcome));
    assert.strictEqual((outcome as { terminalName: string }).terminalName, 'Claude');
    const launched = vscode.window.terminals.find((t) => t.name === 'Claude')!;
    await sleep(2500);
    const typed = await probe<string[]>('typed');
    assert.strictEqual(typed.filter((t) => t.includes('Fix this error')).length, fixesBefore, 'nothing sent before Enter');
    launched.sendText('\r', false);
    await waitFor(
      'the launched claude to send it',
      async () => (await probe<string[]>('typed')).filter((t) => t.includes('Fix this error')).length === fixesBefore + 1,
      30_000,
      500,
    );
    await setting('claudeCommand', undefined);
  });
});
