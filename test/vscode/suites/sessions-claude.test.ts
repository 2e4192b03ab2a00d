/**
 * The inner half of test/real/vscode-sessions.test.ts: two real `claude` CLIs in two integrated terminals
 * of one window, both connected (setting `nativeClaude.multipleSessions` at its default `all`). It runs
 * only with $NC_SESSIONS_SPEC (written by the outer test, which also scripts the fake model and checks
 * what reached it).
 *
 * Each claude runs directly under the terminal's shell, inside `script` (util-linux), which records its
 * screen output into a log: the CLI's parent chain reaches the terminal's shell, which is how the
 * extension tells which terminal a claude runs in (tmux would cut that chain). The log, with escape
 * sequences removed, is enough to see the CLI's prompt; what each claude received (a selection) is
 * checked by the outer test in the requests that reach the model.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, afterEach, before, describe, it } from '../bdd';
import { tools } from '../toolsClient';
import { installedExtension, probe, sleep, waitFor } from '../util';
import { cmdlineOf, descendants, ScriptedClaude } from '../scriptedClaude';

interface NativeClaudeApi {
  status(): { running: boolean; port?: number; sessionCount: number; connections: number };
  sessions(): Array<{ id: number; cliPid?: number; terminalName?: string }>;
  reviews(): Array<{ id: string; filePath: string; title: string; connectionId: number; shown: boolean }>;
}

interface Spec {
  workspace: string;
  results: string;
  logDir: string;
}

const PROPOSAL_SCHEME = 'native-claude-proposal';
const SPEC_PATH = process.env.NC_SESSIONS_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const results: Record<string, { state?: string; error?: string; ms?: number; data?: Record<string, unknown> }> = {};
const data: Record<string, Record<string, unknown>> = {};
const keyOf = (title: string) => /^\[([\w-]+)\]/.exec(title)?.[1] ?? title;

function proposalTabs(): Array<{ tab: vscode.Tab; group: vscode.TabGroup; input: vscode.TabInputTextDiff }> {
  return vscode.window.tabGroups.all.flatMap((group) =>
    group.tabs
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME)
      .map((tab) => ({ tab, group, input: tab.input as vscode.TabInputTextDiff })),
  );
}

const TWO_LINES = /\b2 lines\b/;

const setting = (key: string, value: unknown) => vscode.workspace.getConfiguration('nativeClaude').update(key, value, vscode.ConfigurationTarget.Global);

describe('several claude sessions in one window', function () {
  this.timeout(120_000);
  let api: NativeClaudeApi;
  let workspace: string;
  const a = new ScriptedClaude('a', () => spec!.logDir);
  const b = new ScriptedClaude('b', () => spec!.logDir);
  let started = 0;
  /** The session whose CLI pid runs under this claude's terminal (found from /proc, not from the extension). */
  const sessionOf = async (claude: ScriptedClaude) =>
    waitFor(
      `the session of claude-${claude.tag}`,
      async () => {
        const pids = await claude.processes();
        return api.sessions().find((s) => s.cliPid !== undefined && pids.includes(s.cliPid));
      },
      10_000,
    );

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
    results._final = {
      data: { status: api?.status(), sessions: api?.sessions(), reviews: api?.reviews(), a: a.output().slice(-3000), b: b.output().slice(-3000) },
    };
    fs.writeFileSync(spec.results, JSON.stringify(results, null, 2));
  });

  it('[connect] two claude in two terminals are both connected; each session knows its terminal', async () => {
    started = Date.now();
    const d = (data.connect = {} as Record<string, unknown>);
    await a.start(workspace);
    await waitFor('claude-a to connect', () => api.status().sessionCount === 1, 60_000, 100);
    await a.waitFor('❯', 30_000);
    await b.start(workspace);
    await waitFor('claude-b to connect', () => api.status().sessionCount === 2, 60_000, 100);
    await b.waitFor('❯', 30_000);
    // Long enough for a superseded CLI to have been closed and to have tried to reconnect.
    const seen: number[] = [];
    for (let i = 0; i < 10; i++, await sleep(300)) seen.push(api.status().sessionCount);
    d.seen = seen;
    assert.deepStrictEqual(
      seen.filter((n) => n !== 2),
      [],
      'both stay connected',
    );
    const sa = await sessionOf(a);
    const sb = await sessionOf(b);
    await waitFor('both sessions matched to their terminals', () => api.sessions().every((s) => s.terminalName), 10_000);
    d.sessions = api.sessions();
    assert.strictEqual(api.sessions().find((s) => s.id === sa.id)?.terminalName, 'claude-a');
    assert.strictEqual(api.sessions().find((s) => s.id === sb.id)?.terminalName, 'claude-b');
    assert.ok(!/switched to another Claude Code session/.test(a.output()), 'claude-a was not switched away');
    const entries = await waitFor(
      'the status bar to say 2 sessions',
      async () => {
        const all = await probe<Array<{ id: string; text: string }>>('statusbar', undefined, 15_000);
        return all.find((e) => e.id.includes('nativeClaude.status') && /Claude: 2 sessions/.test(e.text)) ? all : undefined;
      },
      15_000,
      500,
    );
    d.statusBar = entries.filter((e) => /claude/i.test(e.id + e.text));
    // Past the CLIs' start-up, so their selection handlers are registered.
    await sleep(1500);
  });

  it('[selection] a selection goes to the claude whose terminal is in front; the other gets it when its terminal comes forward', async () => {
    started = Date.now();
    const d = (data.selection = {} as Record<string, unknown>);
    b.terminal.show(true);
    await waitFor('claude-b to be the terminal in front', () => vscode.window.activeTerminal === b.terminal, 5_000);
    const doc = await vscode.workspace.openTextDocument(path.join(workspace, 'sel.ts'));
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    const markA = a.output().length;
    const markB = b.output().length;
    editor.selection = new vscode.Selection(1, 0, 2, doc.lineAt(2).text.length);
    // The CLI redraws only what changed ("In sel.ts" → "2 lines selected" keeps the "s"), so look for "2 lines".
    await b.waitFor(TWO_LINES, 10_000, markB);
    await sleep(1000);
    d.aShowsSelection = TWO_LINES.test(a.output().slice(markA));
    assert.ok(!TWO_LINES.test(a.output().slice(markA)), 'claude-a (terminal behind) got no selection');
    // Both ask the model something: the outer test checks which prompt carried the selection.
    await b.ask('prompt sel-b', 'answered sel-b');
    await a.ask('prompt sel-a', 'answered sel-a');
    // claude-a's terminal comes forward: it gets the selection now.
    const markA2 = a.output().length;
    a.terminal.show(true);
    await a.waitFor(TWO_LINES, 10_000, markA2);
    await a.ask('prompt sel-a2', 'answered sel-a2');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('[mention] Ctrl+Alt+K in the editor puts @file#Lx-y into the prompt of the claude in front only; the other gets the next one once its terminal is in front', async () => {
    started = Date.now();
    const d = (data.mention = {} as Record<string, unknown>);
    const doc = await vscode.workspace.openTextDocument(path.join(workspace, 'sel.ts'));
    /** The user brings `front`'s terminal forward, selects lines in the editor and presses the at-mention key there. */
    const mentionWithKey = async (front: ScriptedClaude, other: ScriptedClaude, selection: vscode.Selection, text: string) => {
      front.terminal.show(true);
      await waitFor(`claude-${front.tag}'s terminal in front`, () => vscode.window.activeTerminal === front.terminal, 5_000);
      const editor = await vscode.window.showTextDocument(doc, { preview: false });
      editor.selection = selection;
      const pressed = await probe<{ before: Record<string, unknown> }>('pressInEditor', 'Control+Alt+K', 30_000);
      // In the prompt input (the line that starts with the ❯ cursor), as a terminal shows it; the CLI may show
      // the selection there first, as a chip: `❯ [⧉ 2 lines selected] @sel.ts#L3-4`.
      const inPrompt = new RegExp(`^❯\\s+(\\[⧉[^\\]]*\\]\\s+)?${text.replace(/[.#]/g, '\\$&')}(\\s|$)`, 'm');
      const shown = await waitFor(
        `claude-${front.tag}'s prompt to hold ${text}`,
        async () => {
          const screen = await front.screen();
          return inPrompt.test(screen) ? screen : undefined;
        },
        30_000,
        250,
      ).catch(async (error: Error) => {
        const tail = async (c: ScriptedClaude) => (await c.screen()).split('\n').slice(-25);
        throw new Error(
          `${error.message} (keyboard before the key: ${JSON.stringify(pressed.before)})\nclaude-${front.tag}:\n${(await tail(front)).join('\n')}\nclaude-${other.tag}:\n${(await tail(other)).join('\n')}`,
        );
      });
      // Long enough for a mention sent to both to have been drawn by the other claude too.
      await sleep(2000);
      const otherScreen = await other.screen();
      return { focusBefore: pressed.before, promptLine: shown.split('\n').filter((l) => inPrompt.test(l)), otherShows: otherScreen.includes(text) };
    };

    d.first = await mentionWithKey(b, a, new vscode.Selection(1, 0, 2, doc.lineAt(2).text.length), '@sel.ts#L2-3');
    assert.strictEqual((d.first as { otherShows: boolean }).otherShows, false, 'claude-a (terminal behind) got no at-mention');
    // Each submits its prompt: the outer test checks which one the model got with the mention in it.
    await b.ask('prompt mention-b', 'answered mention-b');
    await a.ask('prompt mention-a', 'answered mention-a');

    d.second = await mentionWithKey(a, b, new vscode.Selection(2, 0, 3, doc.lineAt(3).text.length), '@sel.ts#L3-4');
    assert.strictEqual((d.second as { otherShows: boolean }).otherShows, false, 'claude-b (now behind) got no at-mention');
    await a.ask('prompt mention-a2', 'answered mention-a2');
    await b.ask('prompt mention-b2', 'answered mention-b2');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('[review-focus] a review opens in the active group without taking focus: Enter typed next answers claude in its terminal', async () => {
    started = Date.now();
    const d = (data['review-focus'] = {} as Record<string, unknown>);
    await setting('reviewPlacement', 'active');
    const sa = await sessionOf(a);
    a.terminal.show(false); // the user is typing in claude-a's terminal
    await sleep(500);
    const mark = a.output().length;
    await a.submit('edit:focus');
    const review = await waitFor('the review of focus.txt', () => api.reviews().find((r) => r.filePath.endsWith('focus.txt') && r.shown), 30_000);
    d.review = review;
    assert.strictEqual(review.connectionId, sa.id, "the review belongs to claude-a's session");
    d.focus = await probe<Record<string, unknown>>('focus');
    // The CLI ignores keys that arrive right after its permission dialog appears.
    await a.waitFor(/Do you want to/, 10_000, mark);
    await sleep(1500);
    await probe('press', 'Enter');
    await waitFor('the review to end (claude-a accepted in its terminal)', () => api.reviews().length === 0, 15_000);
    await waitFor('claude-a to write focus.txt', () => fs.readFileSync(path.join(workspace, 'focus.txt'), 'utf8') === 'two\n', 15_000);
    await a.waitFor('done focus', 30_000, mark);
    assert.strictEqual(proposalTabs().length, 0);
  });

  it('[review-routing] each review belongs to its claude; closing one claude closes only its review; closing a tab rejects and says so', async () => {
    started = Date.now();
    const d = (data['review-routing'] = {} as Record<string, unknown>);
    await setting('reviewPlacement', 'beside');
    const sa = await sessionOf(a);
    const sb = await sessionOf(b);
    // The user reads sel.ts in the only editor group.
    const doc = await vscode.workspace.openTextDocument(path.join(workspace, 'sel.ts'));
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One });
    const markA = a.output().length;
    await b.submit('edit:routeb');
    const rb = await waitFor('the review of routeb.txt', () => api.reviews().find((r) => r.filePath.endsWith('routeb.txt') && r.shown), 30_000);
    await a.submit('edit:routea');
    const ra = await waitFor('the review of routea.txt', () => api.reviews().find((r) => r.filePath.endsWith('routea.txt') && r.shown), 30_000);
    d.reviews = api.reviews();
    assert.strictEqual(rb.connectionId, sb.id, "routeb.txt's review is claude-b's");
    assert.strictEqual(ra.connectionId, sa.id, "routea.txt's review is claude-a's");
    // `beside`: the diffs are in another group; sel.ts stays visible in the first.
    const tabs = proposalTabs();
    d.groups = tabs.map((t) => ({ file: path.basename(t.input.modified.path), viewColumn: t.group.viewColumn }));
    assert.ok(
      tabs.every((t) => t.group.viewColumn !== vscode.ViewColumn.One),
      `diffs beside the first group: ${JSON.stringify(d.groups)}`,
    );
    assert.ok(
      vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === doc.uri.toString()),
      'sel.ts is still visible',
    );
    // The pending-reviews status item lists both.
    const entries = await waitFor(
      'the status bar to show 2 reviews',
      async () => {
        const all = await probe<Array<{ id: string; text: string }>>('statusbar', undefined, 15_000);
        return all.find((e) => e.id.includes('nativeClaude.reviews') && /2 reviews/.test(e.text)) ? all : undefined;
      },
      15_000,
      500,
    );
    d.statusBar = entries.filter((e) => /claude/i.test(e.id + e.text));

    // claude-b goes away (its process ends): only its review goes with it.
    await b.kill();
    await waitFor('claude-b to disconnect', () => api.status().sessionCount === 1, 15_000);
    await waitFor("claude-b's review to be withdrawn", () => !api.reviews().some((r) => r.id === rb.id), 10_000);
    assert.deepStrictEqual(
      api.reviews().map((r) => r.id),
      [ra.id],
      "claude-a's review is still pending",
    );
    assert.ok(
      proposalTabs().some((t) => t.input.modified.path.endsWith('/routea.txt')),
      "claude-a's diff is still open",
    );

    // Closing claude-a's review tab rejects it, and a notification names the file.
    await vscode.window.tabGroups.close(proposalTabs().find((t) => t.input.modified.path.endsWith('/routea.txt'))!.tab);
    await waitFor('the review to end', () => api.reviews().length === 0, 10_000);
    await vscode.commands.executeCommand('notifications.showList');
    const toasts = await waitFor(
      'the rejection notification',
      async () => {
        const texts = await probe<string[]>('notifications');
        return texts.some((t) => /Rejected Claude's change to routea\.txt/.test(t)) ? texts : undefined;
      },
      10_000,
      500,
    );
    d.notifications = toasts;
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('notifications.hideList');
    await a.waitFor(/rejected|User rejected/i, 15_000, markA);
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'routea.txt'), 'utf8'), 'one\n');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('[background] a background review opens no tab; the reviews item lists it and reopens it', async () => {
    started = Date.now();
    const d = (data.background = {} as Record<string, unknown>);
    await setting('reviewPlacement', 'background');
    const mark = a.output().length;
    await a.submit('edit:bg');
    const review = await waitFor('the review of bg.txt', () => api.reviews().find((r) => r.filePath.endsWith('bg.txt')), 30_000);
    await sleep(1500);
    d.review = api.reviews();
    assert.strictEqual(proposalTabs().length, 0, 'no diff tab opened');
    assert.strictEqual(api.reviews()[0].shown, false);
    await vscode.commands.executeCommand('notifications.showList');
    const texts = await waitFor(
      'the proposal notification',
      async () => {
        const all = await probe<string[]>('notifications');
        return all.some((t) => /Claude proposes a change to bg\.txt/.test(t)) ? all : undefined;
      },
      10_000,
      500,
    );
    d.notifications = texts;
    await vscode.commands.executeCommand('notifications.hideList');
    await vscode.commands.executeCommand('nativeClaude.showPendingReviews', review.id);
    const tab = await waitFor('the diff of bg.txt', () => proposalTabs().find((t) => t.input.modified.path.endsWith('/bg.txt')), 10_000);
    await sleep(500);
    await vscode.commands.executeCommand('nativeClaude.acceptReview', tab.input.modified);
    await waitFor('claude-a to write bg.txt', () => fs.readFileSync(path.join(workspace, 'bg.txt'), 'utf8') === 'two\n', 15_000);
    await a.waitFor('done bg', 30_000, mark);
    await setting('reviewPlacement', undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('[launch] Launch claude brings forward the terminal already running claude; with the tools enabled a new one gets --mcp-config', async () => {
    started = Date.now();
    const d = (data.launch = {} as Record<string, unknown>);
    const other = vscode.window.createTerminal({ name: 'other' });
    other.show(false);
    await waitFor('the other terminal in front', () => vscode.window.activeTerminal === other, 5_000);
    const before = vscode.window.terminals.length;
    const reused = await vscode.commands.executeCommand<vscode.Terminal>('nativeClaude.launchClaude');
    d.reused = reused?.name;
    assert.strictEqual(reused, a.terminal, "claude-a's terminal is reused");
    assert.strictEqual(vscode.window.terminals.length, before, 'no new terminal');
    await waitFor("claude-a's terminal in front", () => vscode.window.activeTerminal === a.terminal, 5_000);

    // No claude running: a new terminal, and with the tools entry enabled, the tools on the command line.
    await a.kill();
    await waitFor('claude-a to disconnect', () => api.status().sessionCount === 0, 15_000);
    await vscode.commands.executeCommand('nativeClaude.enableTools');
    await setting('claudeCommand', path.join(process.env.NC_CLAUDE_BIN_DIR!, 'claude'));
    const launched = await vscode.commands.executeCommand<vscode.Terminal>('nativeClaude.launchClaude');
    d.launched = launched?.name;
    assert.notStrictEqual(launched, a.terminal);
    await waitFor('the launched claude to connect', () => api.status().sessionCount === 1, 60_000, 100);
    const shell = await launched.processId;
    const pid = await waitFor('the launched claude process', () => descendants(shell!).find((p) => cmdlineOf(p).includes('--mcp-config')), 10_000);
    d.cmdline = cmdlineOf(pid);
    assert.match(cmdlineOf(pid), /--mcp-config \{"mcpServers":\{"vscode":\{"type":"ws","url":"ws:\/\/127\.0\.0\.1:\$\{NATIVE_CLAUDE_PORT\}\/tools"/);
    await waitFor('the launched claude to open the tools route', () => api.status().connections - api.status().sessionCount === 1, 30_000, 200);
    d.status = api.status();
    await sleep(1000);
    assert.strictEqual(api.status().connections - api.status().sessionCount, 1, 'one tools connection (no duplicate)');
    // Launch again: the same terminal comes forward.
    other.show(false);
    await waitFor('the sessions to be matched', () => api.sessions()[0]?.terminalName === launched.name, 10_000);
    const again = await vscode.commands.executeCommand<vscode.Terminal>('nativeClaude.launchClaude');
    assert.strictEqual(again, launched);
    launched.dispose();
    other.dispose();
    await setting('claudeCommand', undefined);
  });

  it('[beside-terminal] beside: a review avoids the active group and a group showing a terminal', async () => {
    started = Date.now();
    const d = (data['beside-terminal'] = {} as Record<string, unknown>);
    await setting('reviewPlacement', 'beside');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const doc = await vscode.workspace.openTextDocument(path.join(workspace, 'sel.ts'));
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One });
    // A terminal in the editor area, in the group beside the file (where `Beside` alone would go).
    const terminal = vscode.window.createTerminal({ name: 'editor-terminal', location: { viewColumn: vscode.ViewColumn.Two } });
    const terminalGroup = () => vscode.window.tabGroups.all.find((g) => g.activeTab?.input instanceof vscode.TabInputTerminal);
    await waitFor('the terminal in editor group 2', () => terminalGroup()?.viewColumn === vscode.ViewColumn.Two, 10_000);
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.One });
    const t = await tools();
    const answer = t.call('write_file', { path: 'beside.txt', content: 'proposed\n' });
    const tab = await waitFor('the review of beside.txt', () => proposalTabs().find((p) => p.input.modified.path.endsWith('/beside.txt')), 20_000);
    await sleep(500);
    d.layout = vscode.window.tabGroups.all.map((g) => ({ viewColumn: g.viewColumn, active: g.activeTab?.label }));
    assert.notStrictEqual(tab.group.viewColumn, vscode.ViewColumn.One, 'not over the file');
    assert.notStrictEqual(tab.group.viewColumn, vscode.ViewColumn.Two, 'not over the terminal');
    assert.strictEqual(terminalGroup()?.viewColumn, vscode.ViewColumn.Two, 'the terminal is still shown');
    assert.ok(
      vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === doc.uri.toString()),
      'sel.ts is still visible',
    );
    await vscode.commands.executeCommand('nativeClaude.rejectReview', tab.input.modified);
    const result = await answer;
    d.result = result.json;
    assert.strictEqual(result.json?.status, 'rejected');
    terminal.dispose();
    await setting('reviewPlacement', undefined);
  });
});
