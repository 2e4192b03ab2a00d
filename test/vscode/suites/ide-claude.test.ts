/**
 * The real `claude` CLI, typed into VS Code's integrated terminal, against the installed extension: the
 * inner half of test/real/vscode-ide.test.ts (which starts the fake model and code-server, and checks what
 * reached the model). It runs only with $NC_IDE_SPEC (the scenarios, written by the outer test).
 *
 * claude runs in a private tmux server started FROM the integrated terminal
 * (`tmux -L $NC_TMUX_SOCKET … new-session -d … claude`), so it has exactly that terminal's environment
 * (CLAUDE_CODE_SSE_PORT comes from the extension's environment collection) and its screen is readable
 * with `capture-pane`. Each test records its outcome into $NC_IDE_SPEC's `results` file; test titles start
 * with `[<scenario>]`, the key the outer test reads.
 */
import * as assert from 'assert';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, afterEach, before, beforeEach, describe, it } from '../bdd';
import { claudeAtLeast, claudeVersion, screen, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { installedExtension, probe, readEnviron, sleep, terminalWithShellIntegration, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; port?: number; lockFilePath?: string; sessionCount: number; connections: number };
  pendingReviews(): number;
}

interface Scenario {
  file: string;
  original: string;
  proposed?: string;
  /** What the test types into the proposal before accepting (or while auto-save is on). */
  user?: string;
}
interface Spec {
  workspace: string;
  results: string;
  scenarios: Record<string, Scenario>;
}

const PROPOSAL_SCHEME = 'native-claude-proposal';
const ORIGINAL_SCHEME = 'native-claude-original';
const SOCKET = process.env.NC_TMUX_SOCKET ?? '';
const SPEC_PATH = process.env.NC_IDE_SPEC;
const TAB_NAME = (base: string) => new RegExp(`^✻ \\[Claude Code\\] ${base.replace(/\./g, '\\.')} \\([0-9a-f]{6}\\) ⧉$`);

function proposalTabs(): Array<{ tab: vscode.Tab; input: vscode.TabInputTextDiff }> {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME)
    .map((tab) => ({ tab, input: tab.input as vscode.TabInputTextDiff }));
}

async function waitForDiffTab(base: string, timeoutMs = 30_000) {
  return waitFor(`a review diff tab for ${base}`, () => proposalTabs().find((t) => path.posix.basename(t.input.modified.path) === base), timeoutMs);
}

/**
 * The review diff for `base`, fully open: its tab exists and its right side is the active editor (the
 * `vscode.diff` command has finished), plus a human moment. Deciding earlier races the extension's own
 * opening of the diff (see the report on DiffReviewHost.review).
 */
async function openedReview(base: string) {
  const found = await waitForDiffTab(base);
  const uri = found.input.modified.toString();
  await waitFor(`the diff of ${base} to be the active editor`, () => vscode.window.activeTextEditor?.document.uri.toString() === uri, 10_000);
  await sleep(500);
  return found;
}

function tabOpen(modified: vscode.Uri): boolean {
  return proposalTabs().some((t) => t.input.modified.toString() === modified.toString());
}

/** One HTTP upgrade request to the extension's server: the status it answers (101 = accepted). */
function upgradeStatus(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
        'Sec-WebSocket-Protocol': 'mcp',
        ...headers,
      },
    });
    req.setTimeout(5_000, () => req.destroy(new Error('no answer within 5 s')));
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const results: Record<string, { state?: string; error?: string; ms?: number; data?: Record<string, unknown> }> = {};
const data: Record<string, Record<string, unknown>> = {};
const keyOf = (title: string) => /^\[([\w-]+)\]/.exec(title)?.[1] ?? title;
let testStarted = 0;

/**
 * How claude is started. 2.1 connects by itself with CLAUDE_CODE_SSE_PORT. 2.0.77 and 1.0.128 did not
 * connect by themselves here (not even with TERM_PROGRAM=vscode restored): claude runs under tmux's
 * server, which is not a child of VS Code's terminal, unlike in a user's terminal. Those lines get `--ide`,
 * the flag their users run outside the IDE's terminal, so the rest of the suite still runs against them.
 */
function claudeCommandLine(): string {
  return claudeAtLeast('2.1.0') ? 'claude' : 'claude --ide';
}

describe('claude in the integrated terminal ⇄ the installed extension', function () {
  this.timeout(60_000);
  let api: NativeClaudeApi;
  let workspace: string;
  const file = (s: Scenario) => path.join(workspace, s.file);
  const scenario = (name: string): Scenario => {
    const s = spec!.scenarios[name];
    if (!s) throw new Error(`no scenario ${name} in the spec`);
    return s;
  };

  before(async function () {
    if (!spec) this.skip();
    this.timeout(120_000);
    workspace = vscode.workspace.workspaceFolders![0].uri.fsPath;
    assert.strictEqual(fs.realpathSync(workspace), spec.workspace);
    const ext = await installedExtension<NativeClaudeApi>();
    api = ext.exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    const terminal = await terminalWithShellIntegration({ name: 'claude', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
    terminal.show();
    // -d: the tmux server (started from this shell, with its environment) keeps claude and its screen.
    // The pinned CLI first on PATH: another `claude` on the machine must not stand in for it.
    terminal.sendText(
      `export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${SOCKET} -f /dev/null start-server \\; set-option -g remain-on-exit on \\; set-option -g history-limit 5000 \\; ` +
        `new-session -d -s main -x 200 -y 50 ${claudeCommandLine()}`,
    );
    await waitFor('claude to connect to the extension (status().sessionCount === 1)', () => api.status().sessionCount === 1, 60_000, 200);
    await waitForScreen(/❯/, 30_000);
    const version = claudeVersion();
    await waitForScreen(new RegExp(`Claude Code v${version.replace(/\./g, '\\.')}`), 5_000);
    // The CLI registers its notification handlers shortly after ide_connected; let the selection resends pass.
    await sleep(1500);
  });

  beforeEach(() => {
    testStarted = Date.now();
  });

  afterEach(async function () {
    const test = (this as unknown as { currentTest?: { title: string; state?: string; err?: Error } }).currentTest;
    if (!test || !spec) return;
    const key = keyOf(test.title);
    results[key] = { state: test.state, error: test.err ? String(test.err.stack ?? test.err) : undefined, ms: Date.now() - testStarted, data: data[key] };
    fs.writeFileSync(spec.results, JSON.stringify(results, null, 2));
    if (test.state === 'failed') {
      // Leave claude idle and VS Code without review tabs, so the next scenario starts clean.
      // Closing the tabs rejects pending reviews; a dialog still up in the CLI gets one Escape at a time
      // (two in a row on an idle prompt would open claude's Rewind dialog).
      await vscode.window.tabGroups.close(proposalTabs().map((t) => t.tab)).then(undefined, () => undefined);
      await sleep(1000);
      for (let i = 0; i < 4 && /Esc to cancel|Do you want to/.test(await screen().catch(() => '')); i++) {
        await tmux('send-keys', '-t', 'main', 'Escape').catch(() => undefined);
        await sleep(800);
      }
      await tmux('send-keys', '-t', 'main', 'C-u').catch(() => undefined);
      await sleep(300);
    }
  });

  after(async () => {
    if (!spec) return;
    results._final = { data: { screen: await screen().catch((e: Error) => e.message), status: api?.status(), pendingReviews: api?.pendingReviews() } };
    fs.writeFileSync(spec.results, JSON.stringify(results, null, 2));
  });

  it('[connect] claude typed into the integrated terminal connects with no configuration', async () => {
    const status = api.status();
    const d: Record<string, unknown> = (data.connect = { status });
    assert.strictEqual(status.running, true);
    assert.strictEqual(status.sessionCount, 1);
    const port = status.port!;
    // The CLI got the port from the extension's terminal environment, nothing else configured it.
    const panePid = Number((await tmux('display-message', '-p', '-t', 'main', '#{pane_pid}')).trim());
    const cliEnv = readEnviron(panePid);
    d.cliPid = panePid;
    assert.strictEqual(cliEnv.CLAUDE_CODE_SSE_PORT, String(port), 'CLAUDE_CODE_SSE_PORT of the claude process');
    assert.strictEqual(cliEnv.CLAUDE_CONFIG_DIR, process.env.CLAUDE_CONFIG_DIR);

    const lockPath = path.join(process.env.CLAUDE_CONFIG_DIR!, 'ide', `${port}.lock`);
    d.lockPath = lockPath;
    assert.strictEqual(status.lockFilePath, lockPath);
    const mode = fs.statSync(lockPath).mode & 0o777;
    d.lockMode = mode.toString(8);
    assert.strictEqual(mode, 0o600, `lock file mode ${mode.toString(8)}`);
    const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as Record<string, unknown>;
    d.lock = { ...lock, authToken: typeof lock.authToken === 'string' ? `<${lock.authToken.length} chars>` : lock.authToken };
    assert.deepStrictEqual(Object.keys(lock).sort(), ['authToken', 'ideName', 'pid', 'runningInWindows', 'transport', 'workspaceFolders']);
    assert.strictEqual(lock.pid, process.ppid, 'pid: the server process, an ancestor of the terminals');
    assert.deepStrictEqual(lock.workspaceFolders, [fs.realpathSync(workspace)]);
    assert.strictEqual(lock.ideName, vscode.env.appName);
    assert.strictEqual(lock.transport, 'ws');
    assert.strictEqual(lock.runningInWindows, false);
    assert.ok(typeof lock.authToken === 'string' && lock.authToken.length >= 32, 'authToken');

    // The status bar in the workbench (read by the outer test from the page).
    const entry = await waitFor(
      'the status bar to show the session',
      async () => {
        const entries = await probe<Array<{ id: string; text: string; aria: string }>>('statusbar', undefined, 15_000);
        d.statusBar = entries.filter((e) => /claude/i.test(e.id + e.text + e.aria));
        return entries.find((e) => e.id.includes('nativeClaude.status') && /Claude: 1 session/.test(e.text));
      },
      15_000,
      500,
    );
    d.statusBarText = entry.text;
  });

  it('[auth] a wrong token gets 401, a browser Origin 403, and the session stays', async () => {
    const { port, lockFilePath } = api.status();
    const token = (JSON.parse(fs.readFileSync(lockFilePath!, 'utf8')) as { authToken: string }).authToken;
    const statuses = {
      wrongToken: await upgradeStatus(port!, { 'x-claude-code-ide-authorization': 'not-the-token-0000000000000000000000000000' }),
      noToken: await upgradeStatus(port!, {}),
      originWithRightToken: await upgradeStatus(port!, { 'x-claude-code-ide-authorization': token, Origin: 'http://127.0.0.1:8080' }),
      originWithWrongToken: await upgradeStatus(port!, { 'x-claude-code-ide-authorization': 'nope', Origin: 'https://evil.example' }),
      rightToken: await upgradeStatus(port!, { 'x-claude-code-ide-authorization': token }),
    };
    data.auth = { statuses };
    assert.deepStrictEqual(statuses, { wrongToken: 401, noToken: 401, originWithRightToken: 403, originWithWrongToken: 403, rightToken: 101 });
    await waitFor('the test connection to be gone', () => api.status().connections === 1, 5_000);
    assert.strictEqual(api.status().sessionCount, 1);
  });

  it('[edit-accept] an Edit opens a diff tab named like the CLI tab; accepting it makes the CLI write the change', async () => {
    const s = scenario('edit-accept');
    await submit('scenario:edit-accept');
    const { tab, input } = await openedReview(path.basename(s.file));
    data['edit-accept'] = { label: tab.label, modified: input.modified.toString(), original: input.original.toString() };
    assert.match(tab.label, TAB_NAME(path.basename(s.file)));
    assert.strictEqual(input.modified.scheme, PROPOSAL_SCHEME);
    assert.strictEqual(input.original.scheme, ORIGINAL_SCHEME);
    assert.strictEqual((await vscode.workspace.openTextDocument(input.modified)).getText(), s.proposed);
    assert.strictEqual((await vscode.workspace.openTextDocument(input.original)).getText(), s.original);
    assert.strictEqual(api.pendingReviews(), 1);
    const shown = await waitForScreen(/Opened changes in/, 10_000);
    data['edit-accept'].cliScreen = shown.split('\n').filter((l) => /Opened changes|Save file|Do you want/.test(l));
    assert.strictEqual(fs.readFileSync(file(s), 'utf8'), s.original, 'nothing written before the decision');

    await vscode.commands.executeCommand('nativeClaude.acceptReview', input.modified);
    await waitForScreen('done edit-accept');
    assert.strictEqual(fs.readFileSync(file(s), 'utf8'), s.proposed);
    await waitFor('the diff tab to close', () => !tabOpen(input.modified), 5_000);
    assert.strictEqual(api.pendingReviews(), 0);
  });

  it("[edit-modify] the user edits the proposal and saves it by hand: the CLI writes the user's version", async () => {
    const s = scenario('edit-modify');
    await submit('scenario:edit-modify');
    const { input } = await openedReview(path.basename(s.file));
    await waitForScreen(/Opened changes in/, 10_000);
    const doc = await vscode.workspace.openTextDocument(input.modified);
    assert.strictEqual(doc.getText(), s.proposed);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), s.user!);
    assert.ok(await vscode.workspace.applyEdit(edit), 'applyEdit');
    assert.ok(doc.isDirty);
    // A manual save of the diff's right side: focus it, then File > Save.
    await waitFor('the proposal to be the active editor', () => vscode.window.activeTextEditor?.document.uri.toString() === input.modified.toString(), 5_000);
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    await vscode.commands.executeCommand('workbench.action.files.save');
    await waitForScreen('done edit-modify');
    assert.strictEqual(fs.readFileSync(file(s), 'utf8'), s.user);
    await waitFor('the diff tab to close', () => !tabOpen(input.modified), 5_000);
  });

  it('[close-reject] closing the diff tab rejects: the file is untouched and the CLI shows the rejection', async () => {
    const s = scenario('close-reject');
    const before = fs.readFileSync(file(s));
    await submit('scenario:close-reject');
    const { input } = await openedReview(path.basename(s.file));
    await waitForScreen(/Opened changes in/, 10_000);
    const current = proposalTabs().find((t) => t.input.modified.toString() === input.modified.toString())!;
    assert.ok(await vscode.window.tabGroups.close(current.tab), 'tab closed');
    const shown = await waitForScreen(new RegExp(`Rejected \\w+ to ${path.basename(s.file).replace('.', '\\.')}`), 15_000);
    data['close-reject'] = { cliScreen: shown.split('\n').filter((l) => /reject|denied/i.test(l)) };
    await waitForScreen(/❯/, 5_000);
    assert.deepStrictEqual(fs.readFileSync(file(s)), before, 'byte-identical');
    assert.strictEqual(api.pendingReviews(), 0);
  });

  it('[autosave] with files.autoSave afterDelay, an edited proposal is never written to disk', async () => {
    const s = scenario('autosave');
    const files = vscode.workspace.getConfiguration('files');
    await files.update('autoSave', 'afterDelay', vscode.ConfigurationTarget.Global);
    await files.update('autoSaveDelay', 200, vscode.ConfigurationTarget.Global);
    try {
      assert.strictEqual(vscode.workspace.getConfiguration('files').get('autoSave'), 'afterDelay');
      const before = fs.readFileSync(file(s));
      await submit('scenario:autosave');
      const { input } = await openedReview(path.basename(s.file));
      await waitForScreen(/Opened changes in/, 10_000);
      const doc = await vscode.workspace.openTextDocument(input.modified);
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), s.user!);
      assert.ok(await vscode.workspace.applyEdit(edit), 'applyEdit');
      const editedAt = Date.now();
      // Auto-save did run (into the in-memory proposal), so this is a real test of "auto-save never accepts".
      await waitFor('auto-save to save the proposal', () => !doc.isDirty, 5_000);
      data.autosave = { autoSavedAfterMs: Date.now() - editedAt };
      await sleep(Math.max(0, 2_000 - (Date.now() - editedAt)));
      assert.deepStrictEqual(fs.readFileSync(file(s)), before, 'the file on disk is unchanged 2 s after the edit');
      assert.strictEqual(api.pendingReviews(), 1, 'the review is still pending');
      assert.ok(tabOpen(input.modified), 'the diff is still open');
      assert.match(await screen(), /Opened changes in/);
      await vscode.commands.executeCommand('nativeClaude.rejectReview', input.modified);
      await waitForScreen(new RegExp(`Rejected \\w+ to ${path.basename(s.file).replace('.', '\\.')}`), 15_000);
      await waitForScreen(/❯/, 5_000);
      assert.deepStrictEqual(fs.readFileSync(file(s)), before, 'unchanged after the rejection');
    } finally {
      await files.update('autoSave', undefined, vscode.ConfigurationTarget.Global);
      await files.update('autoSaveDelay', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('[json] an accepted Edit that breaks JSON: VS Code reports the problem (the outer test checks <new-diagnostics>)', async () => {
    const s = scenario('json');
    const uri = vscode.Uri.file(file(s));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    // Warm: the JSON language server answers for this document, and it has no problems yet.
    await waitFor(
      'the JSON language server',
      async () => ((await vscode.commands.executeCommand<unknown[]>('vscode.executeDocumentSymbolProvider', uri)) ?? []).length > 0,
      30_000,
      250,
    );
    assert.deepStrictEqual(vscode.languages.getDiagnostics(uri), []);
    await submit('scenario:json');
    const { input } = await openedReview(path.basename(s.file));
    await waitForScreen(/Opened changes in/, 10_000);
    await vscode.commands.executeCommand('nativeClaude.acceptReview', input.modified);
    const shown = await waitForScreen('done json');
    data.json = { cliScreen: shown.split('\n').filter((l) => /diagnostic/i.test(l)) };
    assert.strictEqual(fs.readFileSync(file(s), 'utf8'), s.proposed);
    const problems = await waitFor(
      'the trailing-comma problem in VS Code',
      () => {
        const list = vscode.languages.getDiagnostics(uri);
        return list.length > 0 ? list : undefined;
      },
      10_000,
    );
    data.json.problems = problems.map((p) => p.message);
  });

  it('[selection] an editor selection shows in the CLI and reaches the model; the at-mention fills the prompt', async () => {
    const s = scenario('selection');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file(s)));
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    editor.selection = new vscode.Selection(1, 0, 2, doc.lineAt(2).text.length); // lines 2–3
    await waitForScreen('2 lines selected', 10_000);
    await submit('scenario:selection');
    await waitForScreen('done selection');

    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), doc.uri.toString());
    const outcome = await vscode.commands.executeCommand<{ kind: string }>('nativeClaude.mentionSelection');
    data.selection = { mentionOutcome: outcome };
    const base = path.basename(s.file).replace('.', '\\.');
    // In the prompt input (the line that starts with the ❯ cursor and a no-break space), not anywhere on the screen.
    const shown = await waitForScreen(new RegExp(`^❯\\s@${base}#L2-3\\s*$`, 'm'), 10_000);
    data.selection.prompt = shown.split('\n').filter((l) => l.includes('@'));
  });

  it("[accept-edits] in accept-edits mode the CLI writes a TS file itself (no review); VS Code's type error reaches the model (the outer test checks <new-diagnostics>)", async () => {
    const s = scenario('accept-edits');
    const uri = vscode.Uri.file(file(s));
    // A TypeScript project whose server already runs, as when the user works on it; the edited file itself stays closed.
    const warm = vscode.Uri.file(path.join(workspace, 'warm-ide.ts'));
    fs.writeFileSync(warm.fsPath, 'export const warm = 1;\n');
    await vscode.window.showTextDocument(warm, { preview: false });
    await waitFor(
      'the TypeScript server',
      async () => ((await vscode.commands.executeCommand<unknown[]>('vscode.executeDocumentSymbolProvider', warm)) ?? []).length > 0,
      90_000,
      250,
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.ok(
      !vscode.window.tabGroups.all.some((g) => g.tabs.some((tab) => (tab.input as { uri?: vscode.Uri } | undefined)?.uri?.fsPath === uri.fsPath)),
      'no tab shows the file',
    );
    // Shift+Tab: claude's permission mode from default to accept-edits.
    await tmux('send-keys', '-t', 'main', 'BTab');
    const mode = await waitForScreen(/accept edits on/i, 10_000);
    data['accept-edits'] = { mode: mode.split('\n').filter((l) => /accept edits/i.test(l)) };
    await submit('scenario:accept-edits');
    await waitForScreen('done accept-edits', 60_000);
    assert.strictEqual(fs.readFileSync(file(s), 'utf8'), s.proposed);
    assert.strictEqual(api.pendingReviews(), 0, 'no review was opened');
    data['accept-edits'].problems = vscode.languages.getDiagnostics(uri).map((d) => d.message);
  });
});
