/**
 * The inner half of test/real/vscode-changes.test.ts: the real claude (2.1.328) started in the integrated
 * terminal, switched to accept-edits (Shift+Tab), edits files with no review: two Edits, a Write to an
 * existing file, a Write of a new file, and a `sed -i` through its Bash tool. Then, as a user would from
 * the Source Control view and the gutter's peek: one hunk of the first file undone, the second file kept,
 * the third undone whole, the new file undone (gone); a line the user edits after claude's is not undone
 * without asking. Disk contents checked byte for byte. A build's output (gitignored dist/, written here
 * while claude is connected, then changed again by the same sed) is never listed. Runs only with $NC_CHANGES_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import { screen, startClaudeInTerminal, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { installedExtension, probe, sleep, terminalWithShellIntegration, waitFor } from '../util';

interface FileChange {
  path: string;
  attribution: 'certain' | 'uncertain';
  source: string;
}
interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
  changes(): Promise<ReadonlyArray<{ id: string; label: string; files: FileChange[] }>>;
  sessions(): Array<{ cliPid?: number }>;
}
interface Spec {
  workspace: string;
  results: string;
  /** Where screenshots go (the outer test's probe writes them). */
  shots: string;
  /** `reload`: the second window on the same workspace (claude still running): the list must be there. */
  phase?: 'scenario' | 'reload';
}

const SPEC_PATH = process.env.NC_CHANGES_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = {};
const lineChange = (start: number, end: number) => ({
  originalStartLineNumber: start,
  originalEndLineNumber: end,
  modifiedStartLineNumber: start,
  modifiedEndLineNumber: end,
});

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

describe("Claude's changes with the real claude in accept-edits mode", function () {
  this.timeout(180_000);
  let api: NativeClaudeApi;

  before(async function () {
    if (!spec) this.skip();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    if (spec.phase === 'reload') return;
    await startClaudeInTerminal(spec.workspace, () => api.status().sessionCount === 1, ['--allowedTools', 'Bash(sed:*)']);
  });

  after(async () => {
    if (!spec) return;
    data.finalScreen = await screen().catch((e: Error) => e.message);
  });

  it('runs the scenario', async function () {
    try {
      await (spec!.phase === 'reload' ? afterReload(spec!) : runScenario(spec!));
      record('passed');
    } catch (error) {
      record('failed', error as Error);
      throw error;
    }
  });

  /** A new window on the workspace: the list is read back from the extension's storage, and the same claude reconnects into its group. */
  async function afterReload(s: Spec): Promise<void> {
    const all = await api.changes();
    data.reloaded = all.map((x) => ({ id: x.id, files: x.files.map((f) => path.basename(f.path)).sort() }));
    assert.deepStrictEqual(all.flatMap((x) => x.files.map((f) => path.basename(f.path))).sort(), ['a.txt', 'b.txt', 'e.txt', 'f.txt', 'g.txt']);
    assert.strictEqual(all.length, 2);
    const sessions = all.filter((x) => x.files.some((f) => path.basename(f.path) === 'e.txt'));
    const pid = Number(/^claude-pid-(\d+)$/.exec(sessions[0].id)?.[1]);
    // Whether the same claude finds the new window by itself (it is then listed under the same group) is
    // recorded, not required: the list does not depend on it.
    data.reconnected = await waitFor('the same claude to reconnect', () => api.sessions().some((x) => x.cliPid === pid), 20_000).then(
      () => true,
      () => false,
    );
    // The sed change (not attributed with certainty, before = git's content) undone after the reload.
    assert.deepStrictEqual(
      await vscode.commands.executeCommand('nativeClaude.changes.undoFile', { sessionId: sessions[0].id, filePath: path.join(s.workspace, 'e.txt') }),
      [true],
    );
    assert.strictEqual(fs.readFileSync(path.join(s.workspace, 'e.txt'), 'utf8'), 'e1\ne2\ne3\n');
    data.left = (await api.changes()).flatMap((x) => x.files.map((f) => path.basename(f.path)));
  }

  async function runScenario(s: Spec): Promise<void> {
    const abs = (rel: string) => path.join(s.workspace, rel);
    const read = (rel: string) => fs.readFileSync(abs(rel), 'utf8');
    // Shift+Tab: accept-edits, claude writes without a review.
    await tmux('send-keys', '-t', 'main', 'BTab');
    await waitForScreen(/accept edits on/i, 10_000);
    // A build writes its (gitignored) output while claude is connected. Seen once, a file had a "before"
    // (the content last seen) for its next change, so before the watch filter the sed below listed each.
    const dist = Array.from({ length: 20 }, (_, i) => abs(`dist/out${i}.js`));
    fs.mkdirSync(abs('dist'), { recursive: true });
    for (const f of dist) fs.writeFileSync(f, `// e2 built\n`);
    await sleep(2_000);
    await submit('scenario:changes');
    await waitForScreen('done changes', 120_000);
    assert.strictEqual(read('a.txt'), 'line1\nLINE2\nline3\nLINE4\nline5\nline6 (mine, uncommitted)\n');
    assert.strictEqual(read('e.txt'), 'e1\nE2\ne3\n', 'sed ran');

    const all = await waitFor(
      'the five files in the list',
      async () => {
        const sessions = await api.changes();
        return sessions.flatMap((x) => x.files).length >= 5 ? sessions : undefined;
      },
      20_000,
    );
    data.sessions = all.map((x) => ({
      label: x.label,
      files: x.files.map((f) => ({ file: path.basename(f.path), attribution: f.attribution, source: f.source })),
    }));
    assert.strictEqual(all.length, 1, 'one session');
    const [session] = all;
    // Named by its terminal when its process descends from one; claude runs under a tmux server here,
    // which leaves the terminal's process tree, so it is named by its verified pid.
    assert.match(session.label, /^claude( in "claude"| \(pid \d+\))$/);
    const byName = Object.fromEntries(session.files.map((f) => [path.basename(f.path), f]));
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt'])
      assert.deepStrictEqual([name, byName[name]?.attribution, byName[name]?.source], [name, 'certain', 'baseline']);
    assert.deepStrictEqual([byName['e.txt']?.attribution, byName['e.txt']?.source], ['uncertain', 'git']);
    // The same sed changed the 20 ignored outputs: none listed (the watcher's reports of them are in by now).
    assert.ok(
      dist.every((f) => fs.readFileSync(f, 'utf8') === '// E2 built\n'),
      'sed changed the outputs',
    );
    await sleep(2_000);
    data.ignoredListed = (await api.changes()).flatMap((x) => x.files.map((f) => f.path)).filter((f) => f.includes(`${path.sep}dist${path.sep}`));
    assert.deepStrictEqual(data.ignoredListed, []);

    // Pictures for the docs: the Source Control view and the gutter of the first file (git's markers too).
    await vscode.commands.executeCommand('workbench.view.scm');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs('a.txt')), { preview: false });
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await sleep(1500);
    data.shotList = await probe('screenshot', { path: path.join(s.shots, 'changes-scm.png') }).catch((e: Error) => e.message);
    // The gutter's peek opens on git's changes (the first quick diff); the user picks Claude's in its
    // drop-down, goes to the second change (LINE4) and clicks "Undo This Change" there.
    await vscode.commands.executeCommand('editor.action.dirtydiff.next');
    await sleep(1000);
    data.shotPeekGit = await probe('screenshot', { path: path.join(s.shots, 'changes-peek.png') }).catch((e: Error) => e.message);
    data.peekProviders = await probe('peekChoose', { label: "Claude's changes" });
    await sleep(500);
    await vscode.commands.executeCommand('editor.action.dirtydiff.next');
    await sleep(1000);
    data.shotPeek = await probe('screenshot', { path: path.join(s.shots, 'changes-peek-claude.png') }).catch((e: Error) => e.message);
    data.peekClick = await probe('clickPeekAction', { title: 'Undo This Change' });
    await waitFor('a.txt with its second hunk undone', () => read('a.txt') === 'line1\nLINE2\nline3\nline4\nline5\nline6 (mine, uncommitted)\n', 10_000);
    await vscode.commands.executeCommand('closeDirtyDiff').then(undefined, () => undefined);

    const target = (rel: string) => ({ sessionId: session.id, filePath: abs(rel) });
    // b.txt kept, c.txt undone whole, d.txt (new) undone: gone.
    await vscode.commands.executeCommand('nativeClaude.changes.keepFile', target('b.txt'));
    assert.deepStrictEqual(await vscode.commands.executeCommand('nativeClaude.changes.undoFile', target('c.txt')), [true]);
    assert.deepStrictEqual(await vscode.commands.executeCommand('nativeClaude.changes.undoFile', target('d.txt')), [true]);
    assert.strictEqual(fs.readFileSync(abs('b.txt')).toString('hex'), Buffer.from('b1\nB2\nb3\n').toString('hex'));
    assert.strictEqual(fs.readFileSync(abs('c.txt')).toString('hex'), Buffer.from('c1\r\nc2\r\nc3').toString('hex'));
    assert.ok(!fs.existsSync(abs('d.txt')), 'the new file is gone');

    // The user edits claude's remaining line (LINE2) in the editor and saves: undoing that hunk asks.
    const document = await vscode.workspace.openTextDocument(abs('a.txt'));
    await waitFor('the editor to show the undo', () => document.getText() === 'line1\nLINE2\nline3\nline4\nline5\nline6 (mine, uncommitted)\n', 10_000);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(document.uri, new vscode.Range(1, 0, 1, 5), 'LINE2 (mine)');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await document.save());
    assert.strictEqual(await vscode.commands.executeCommand('nativeClaude.changes.undoHunk', document.uri, [lineChange(2, 2)], 0, { answer: 'cancel' }), false);
    assert.strictEqual(read('a.txt'), 'line1\nLINE2 (mine)\nline3\nline4\nline5\nline6 (mine, uncommitted)\n');

    const left = (await api.changes()).flatMap((x) => x.files.map((f) => path.basename(f.path))).sort();
    assert.deepStrictEqual(left, ['a.txt', 'e.txt']);

    // A reconnect of the same claude (Restart Server: same port and token): its next edit goes to the same group.
    await vscode.commands.executeCommand('nativeClaude.restartServer');
    await waitFor('claude to reconnect', () => api.status().sessionCount === 1, 30_000);
    data.reconnectedAfterRestart = true;
    await submit('scenario:again');
    await waitForScreen('done again', 60_000);
    assert.strictEqual(read('b.txt'), 'b1\nB2\nB3\n');
    const after = await waitFor(
      'b.txt listed again',
      async () => {
        const sessions = await api.changes();
        return sessions.some((x) => x.files.some((f) => path.basename(f.path) === 'b.txt')) ? sessions : undefined;
      },
      20_000,
    );
    data.afterReconnect = after.map((x) => ({ id: x.id, files: x.files.map((f) => path.basename(f.path)).sort() }));
    const b = after.flatMap((x) => x.files).find((f) => path.basename(f.path) === 'b.txt');
    data.afterReconnectB = b;
    // Announced (baseline) or not, "before" is the content kept a moment ago, never git's older one.
    assert.ok(b && ['baseline', 'last-known'].includes(b.source), `b.txt's before-image comes from ${b?.source}`);
    assert.deepStrictEqual(data.afterReconnect, [{ id: session.id, files: ['a.txt', 'b.txt', 'e.txt'] }]);
    data.left = ['a.txt', 'b.txt', 'e.txt'];

    // Two sessions: a second claude in a second terminal; both edit a file at the same time.
    const t2 = await terminalWithShellIntegration({ name: 'claude 2', cwd: s.workspace, shellPath: '/bin/bash' }, 30_000);
    t2.sendText(`export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${process.env.NC_TMUX_SOCKET} new-session -d -s second -x 200 -y 50 claude`);
    await waitFor('the second claude to connect', () => api.status().sessionCount === 2, 60_000);
    await waitForScreen(/❯/, 30_000, 'second');
    await tmux('send-keys', '-t', 'second', 'BTab');
    await waitForScreen(/accept edits on/i, 10_000, 'second');
    await tmux('send-keys', '-t', 'second', '-l', '--', 'scenario:second');
    await waitForScreen('scenario:second', 5_000, 'second');
    await submit('scenario:first');
    await tmux('send-keys', '-t', 'second', 'Enter');
    await Promise.all([waitForScreen('done first', 60_000), waitForScreen('done second', 60_000, 'second')]);
    const two = await waitFor(
      'f.txt and g.txt listed',
      async () => {
        const sessions = await api.changes();
        const names = sessions.flatMap((x) => x.files.map((f) => path.basename(f.path)));
        return names.includes('f.txt') && names.includes('g.txt') ? sessions : undefined;
      },
      20_000,
    );
    data.twoSessions = two.map((x) => ({ id: x.id, files: x.files.map((f) => `${path.basename(f.path)} ${f.attribution}`).sort() }));
    const first = two.find((x) => x.id === session.id);
    const second = two.find((x) => x.id !== session.id);
    // The second claude's edit is announced by its baseline: certain, in its own group. The first claude sent
    // no call at all after its reconnect (seen with 2.1.328), so its g.txt can only be attributed without
    // certainty, to the session that called last: listed, but its group is not asserted.
    assert.ok(
      second?.files.some((f) => path.basename(f.path) === 'f.txt' && f.attribution === 'certain'),
      'f.txt certain in the second group',
    );
    assert.ok(!first?.files.some((f) => path.basename(f.path) === 'f.txt'), 'f.txt not in the first group');
    assert.deepStrictEqual(
      first?.files
        .map((f) => path.basename(f.path))
        .filter((n) => n !== 'g.txt')
        .sort(),
      ['a.txt', 'b.txt', 'e.txt'],
    );
    assert.match(second!.id, /^claude-pid-\d+$/);
    data.left = ['a.txt', 'b.txt', 'e.txt', 'f.txt', 'g.txt'];
  }
});
