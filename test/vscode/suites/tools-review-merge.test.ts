/**
 * A proposal for a file with unsaved edits, in real VS Code (docs/review.md, "A file with unsaved
 * edits"): the review shows Claude's proposal merged with the user's buffer, for write_file/apply_diff
 * (`/tools`) and the CLI's openDiff (IDE route `/`). Accept writes the merge and leaves the editor clean;
 * reject leaves the buffer as it was, still dirty; conflict markers must be resolved before an accept.
 * The inner half of test/real/vscode-tools.test.ts; titles start with the `[key]` the outer test reads.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, describe, it } from '../bdd';
import { sleep, waitFor } from '../util';
import { stateAfter } from '../../support/stateAfter';
import { ideRoute, openedReview, proposalTabs, record, setUserSetting, toolsRunActive, toolsSuite, type ToolsConnection } from '../toolsClient';

const SAVED = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const TYPED = 'one (typed, not saved)\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const MERGED = 'one (typed, not saved)\ntwo\nthree\nfour\nfive\nSIX by claude\nseven\n';

describe('a proposal for a file with unsaved edits: a review of the merge', function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ide: ToolsConnection;
  let ws: string;
  const abs = (rel: string) => path.join(ws, rel);

  toolsSuite(async (conn, root) => {
    t = conn;
    ws = root;
    ide = await ideRoute();
  });

  after(async () => {
    if (!toolsRunActive()) return;
    await vscode.window.tabGroups.close(proposalTabs().map((p) => p.tab)).then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** The file saved with SAVED, open in an editor, the user's typing in it, not saved. */
  async function dirtyFile(rel: string, saved = SAVED, typed = TYPED): Promise<vscode.TextDocument> {
    fs.writeFileSync(abs(rel), saved);
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs(rel)), { preview: false });
    const all = new vscode.Range(editor.document.lineAt(0).range.start, editor.document.lineAt(editor.document.lineCount - 1).rangeIncludingLineBreak.end);
    assert.ok(await editor.edit((b) => b.replace(all, typed)));
    assert.strictEqual(editor.document.isDirty, true);
    return editor.document;
  }

  /** Ends a test: the file's editor reverted and closed, so the next starts from a clean window. */
  async function cleanUp(document: vscode.TextDocument): Promise<void> {
    await vscode.window.tabGroups.close(proposalTabs().map((p) => p.tab)).then(undefined, () => undefined);
    if (document.isDirty) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await sleep(200);
  }

  it('[merge-tools-accept] apply_diff over unsaved edits: the diff is buffer ↔ merge; accept saves the merge, the editor ends clean', async () => {
    const rel = 'merge-accept.txt';
    const document = await dirtyFile(rel);
    try {
      const call = t.call('apply_diff', { path: rel, diff: '<<<<<<< SEARCH\nsix\n=======\nSIX by claude\n>>>>>>> REPLACE' });
      const review = await openedReview(rel);
      const left = await vscode.workspace.openTextDocument(review.input.original);
      record('merge-tools-accept', { title: review.tab.label, left: left.getText(), right: review.document.getText() });
      assert.strictEqual(left.getText(), TYPED, "the left side is the user's buffer");
      assert.strictEqual(review.document.getText(), MERGED);
      assert.match(review.tab.label, /your unsaved edits \(merged\)$/);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      const after = { answer: answer.json ?? answer.text, onDisk: fs.readFileSync(abs(rel), 'utf8'), buffer: document.getText(), dirty: document.isDirty };
      record('merge-tools-accept', after);
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      assert.strictEqual(answer.json?.merged_with_unsaved_edits, true);
      assert.strictEqual(after.onDisk, MERGED);
      assert.strictEqual(after.buffer, MERGED);
      assert.strictEqual(after.dirty, false);
    } finally {
      await cleanUp(document);
    }
  });

  it('[merge-tools-reject] write_file over unsaved edits, rejected: the buffer keeps the typing, still dirty; the file is untouched', async () => {
    const rel = 'merge-reject.txt';
    const document = await dirtyFile(rel);
    try {
      const call = t.call('write_file', { path: rel, content: SAVED.replace('six', 'SIX by claude') });
      const review = await openedReview(rel);
      assert.strictEqual(review.document.getText(), MERGED);
      await vscode.commands.executeCommand('nativeClaude.rejectReview', review.input.modified);
      const answer = await call;
      const after = { answer: answer.json ?? answer.text, onDisk: fs.readFileSync(abs(rel), 'utf8'), buffer: document.getText(), dirty: document.isDirty };
      record('merge-tools-reject', after);
      assert.strictEqual(answer.json?.status, 'rejected', answer.text);
      assert.strictEqual(after.onDisk, SAVED);
      assert.strictEqual(after.buffer, TYPED);
      assert.strictEqual(after.dirty, true);
    } finally {
      await cleanUp(document);
    }
  });

  it('[merge-opendiff-accept] openDiff over unsaved edits: FILE_SAVED answers the merge; once claude wrote it, the editor is clean, holds it, and undo brings the typing back', async () => {
    const rel = 'merge-cli.txt';
    const file = abs(rel);
    const document = await dirtyFile(rel);
    try {
      const call = ide.call('openDiff', {
        old_file_path: file,
        new_file_path: file,
        new_file_contents: SAVED.replace('six', 'SIX by claude'),
        tab_name: '✻ [Claude Code] merge-cli.txt (aaa111) ⧉',
      });
      const review = await openedReview(rel);
      assert.strictEqual(review.document.getText(), MERGED);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      assert.strictEqual(answer.text, `FILE_SAVED\n${MERGED}`);
      // What claude does after FILE_SAVED: it writes the accepted text.
      fs.writeFileSync(file, MERGED);
      await waitFor('the editor to be clean', () => !document.isDirty, 10_000);
      const after = { buffer: document.getText(), dirty: document.isDirty, onDisk: fs.readFileSync(file, 'utf8') };
      const editor = await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('undo');
      const undone = editor.document.getText();
      await vscode.commands.executeCommand('redo');
      record('merge-opendiff-accept', { ...after, undone });
      assert.strictEqual(after.buffer, MERGED);
      assert.strictEqual(after.onDisk, MERGED);
      assert.strictEqual(undone, TYPED, "undo brings the user's typing back");
    } finally {
      await cleanUp(document);
    }
  });

  it('[merge-opendiff-reject] openDiff over unsaved edits, rejected: DIFF_REJECTED, the buffer exactly as it was and dirty, the file untouched', async () => {
    const rel = 'merge-cli-reject.txt';
    const file = abs(rel);
    const document = await dirtyFile(rel);
    try {
      const call = ide.call('openDiff', {
        old_file_path: file,
        new_file_path: file,
        new_file_contents: SAVED.replace('six', 'SIX by claude'),
        tab_name: '✻ [Claude Code] merge-cli-reject.txt (bbb111) ⧉',
      });
      const review = await openedReview(rel);
      await vscode.commands.executeCommand('nativeClaude.rejectReview', review.input.modified);
      const answer = await call;
      await sleep(500);
      const after = { answer: answer.text, buffer: document.getText(), dirty: document.isDirty, onDisk: fs.readFileSync(file, 'utf8') };
      record('merge-opendiff-reject', after);
      assert.strictEqual(after.answer, 'DIFF_REJECTED');
      assert.strictEqual(after.buffer, TYPED);
      assert.strictEqual(after.dirty, true);
      assert.strictEqual(after.onDisk, SAVED);
    } finally {
      await cleanUp(document);
    }
  });

  it('[merge-conflict] overlapping edits: markers in the review; accept refused while they are left; resolved, accepted', async () => {
    const rel = 'merge-conflict.txt';
    const file = abs(rel);
    const typed = SAVED.replace('six', 'six (mine)');
    const document = await dirtyFile(rel, SAVED, typed);
    try {
      const call = ide.call('openDiff', {
        old_file_path: file,
        new_file_path: file,
        new_file_contents: SAVED.replace('six', 'six (claude)'),
        tab_name: '✻ [Claude Code] merge-conflict.txt (ccc111) ⧉',
      });
      const review = await openedReview(rel);
      const withMarkers = "one\ntwo\nthree\nfour\nfive\n<<<<<<< your unsaved edits\nsix (mine)\n=======\nsix (claude)\n>>>>>>> Claude's proposal\nseven\n";
      assert.strictEqual(review.document.getText(), withMarkers);
      assert.match(review.tab.label, /your unsaved edits \(1 conflict\)$/);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const state = await stateAfter(call, 1_500);
      record('merge-conflict', { afterFirstAccept: state === 'pending' ? 'pending' : state.value.text });
      assert.strictEqual(state, 'pending', 'an accept with conflict markers left was not refused');
      // The user resolves: keeps both lines, deletes the markers.
      const editor = await vscode.window.showTextDocument(review.document, { preview: false });
      const resolved = 'one\ntwo\nthree\nfour\nfive\nsix (mine)\nsix (claude)\nseven\n';
      const all = new vscode.Range(editor.document.lineAt(0).range.start, editor.document.lineAt(editor.document.lineCount - 1).rangeIncludingLineBreak.end);
      assert.ok(await editor.edit((b) => b.replace(all, resolved)));
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      record('merge-conflict', { answer: answer.text });
      assert.strictEqual(answer.text, `FILE_SAVED\n${resolved}`);
    } finally {
      await cleanUp(document);
    }
  });

  it("[merge-lenses] the review of a conflict offers Keep Your Edits / Keep Claude's Change / Keep Both above each conflict; they resolve it; VS Code's own merge lenses do not reach the review", async () => {
    const rel = 'merge-lenses.txt';
    const file = abs(rel);
    const typed = SAVED.replace('two', 'two (mine)').replace('six', 'six (mine)');
    const document = await dirtyFile(rel, SAVED, typed);
    try {
      const call = ide.call('openDiff', {
        old_file_path: file,
        new_file_path: file,
        new_file_contents: SAVED.replace('two', 'two (claude)').replace('six', 'six (claude)'),
        tab_name: '✻ [Claude Code] merge-lenses.txt (ddd111) ⧉',
      });
      const review = await openedReview(rel);
      const lenses = async () => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', review.input.modified)) ?? [];
      const first = await waitFor('the conflict lenses', async () => ((await lenses()).length === 6 ? lenses() : undefined), 10_000, 250);
      const shown = first.map((l) => ({ line: l.range.start.line, title: l.command?.title }));
      record('merge-lenses', { shown });
      assert.deepStrictEqual(shown, [
        { line: 1, title: 'Keep Your Edits' },
        { line: 1, title: "Keep Claude's Change" },
        { line: 1, title: 'Keep Both' },
        { line: 9, title: 'Keep Your Edits' },
        { line: 9, title: "Keep Claude's Change" },
        { line: 9, title: 'Keep Both' },
      ]);
      // Keep Both on the first conflict, then (lenses drawn again) Claude's change on the second.
      const run = (lens: vscode.CodeLens) => vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
      assert.strictEqual(await run(first[2]), true);
      const second = await waitFor("the second conflict's lenses alone", async () => ((await lenses()).length === 3 ? lenses() : undefined), 10_000, 250);
      assert.strictEqual(await run(second[1]), true);
      const resolved = 'one\ntwo (mine)\ntwo (claude)\nthree\nfour\nfive\nsix (claude)\nseven\n';
      assert.strictEqual(review.document.getText(), resolved);
      assert.strictEqual((await lenses()).length, 0);
      // A lens drawn before the text changed no longer matches a conflict: nothing happens.
      assert.strictEqual(await run(first[0]), false);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      assert.strictEqual(answer.text, `FILE_SAVED\n${resolved}`);
    } finally {
      await cleanUp(document);
    }
  });

  it("[merge-lenses-attacker] the lenses' command, called by anyone on a real file with conflict markers or with a made-up side, changes nothing", async () => {
    const rel = 'markers-on-disk.txt';
    const text = "a\n<<<<<<< your unsaved edits\nmine\n=======\nclaude\n>>>>>>> Claude's proposal\nz\n";
    fs.writeFileSync(abs(rel), text);
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(abs(rel)));
    const outcomes = [
      await vscode.commands.executeCommand('nativeClaude.review.keepConflictSide', document.uri, 1, 'ours'),
      await vscode.commands.executeCommand('nativeClaude.review.keepConflictSide', document.uri.toString(), 1, 'ours'),
      await vscode.commands.executeCommand('nativeClaude.review.keepConflictSide', document.uri.with({ scheme: 'native-claude-proposal' }), 1, 'everything'),
      await vscode.commands.executeCommand('nativeClaude.review.keepConflictSide', document.uri.with({ scheme: 'native-claude-proposal' }), '1', 'ours'),
    ];
    record('merge-lenses-attacker', { outcomes });
    assert.deepStrictEqual(outcomes, [false, false, false, false]);
    assert.strictEqual(document.getText(), text);
    assert.strictEqual(document.isDirty, false);
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), text);
  });

  it('[keep-open] nativeClaude.keepAcceptedFileOpen: the accepted file stays in a normal tab, not a preview, focus kept', async () => {
    const rel = 'keep-open.txt';
    fs.writeFileSync(abs(rel), 'one\n');
    await setUserSetting('nativeClaude', 'keepAcceptedFileOpen', true);
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const call = t.call('write_file', { path: rel, content: 'two\n' });
      const review = await openedReview(rel);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      const fileTab = () =>
        vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.fsPath === abs(rel));
      const tab = await waitFor('the accepted file to be shown', fileTab, 10_000);
      record('keep-open', { isPreview: tab.isPreview });
      assert.strictEqual(tab.isPreview, false);
    } finally {
      await vscode.workspace.getConfiguration('nativeClaude').update('keepAcceptedFileOpen', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await sleep(200);
    }
  });
});
