/**
 * Claude's changes in real VS Code (issue 24; inner half of test/real/vscode-tools.test.ts): a claude-like
 * session (the SDK's real Client on the IDE route, announcing itself with `ide_connected` and this
 * process's pid, which holds the socket and so is verified) asks its baseline `getDiagnostics {uri}` as
 * claude does before writing, then the file is written on disk as claude's Edit/Write do in auto-accept
 * mode. The extension's watcher lists it; the SCM commands keep and undo it, whole or hunk by hunk (with
 * the arguments the quick diff peek passes: uri, line changes, index); disk contents checked byte for byte.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeaderWebSocketClientTransport } from '../../support/wsClientTransport';
import { after, describe, it } from '../bdd';
import { waitFor } from '../util';
import { AUTH_HEADER, record, toolsRunActive, toolsSuite, type ToolsConnection } from '../toolsClient';

interface FileChange {
  path: string;
  attribution: 'certain' | 'uncertain';
  source: string;
  before: { blob: string } | { absent: true };
}
interface SessionChanges {
  id: string;
  label: string;
  files: FileChange[];
}
interface ChangesApi {
  changes(): Promise<readonly SessionChanges[]>;
  sessions(): Array<{ id: number; cliPid?: number }>;
}

/** A quick diff change as the peek passes it (1-based lines of the file now; end 0: lines deleted after start). */
const lineChange = (modifiedStart: number, modifiedEnd: number) => ({
  originalStartLineNumber: modifiedStart,
  originalEndLineNumber: modifiedEnd,
  modifiedStartLineNumber: modifiedStart,
  modifiedEndLineNumber: modifiedEnd,
});

describe("Claude's changes: listed after the fact, kept or undone through the SCM commands", function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ws: string;
  let claude: Client | undefined;
  const abs = (rel: string) => path.join(ws, rel);
  const api = () => t.api as unknown as ChangesApi;

  toolsSuite(async (conn, root) => {
    t = conn;
    ws = fs.realpathSync(root);
    const lock = JSON.parse(fs.readFileSync(t.lockPath, 'utf8')) as { authToken: string };
    claude = new Client({ name: 'changes-test', version: '0.0.0' });
    await claude.connect(new HeaderWebSocketClientTransport(`ws://127.0.0.1:${t.port}/`, { [AUTH_HEADER]: lock.authToken }));
    await claude.notification({ method: 'ide_connected', params: { pid: process.pid } });
    await waitFor(
      'the session to be verified',
      () =>
        api()
          .sessions()
          .some((s) => s.cliPid === process.pid),
      15_000,
    );
  });

  after(async () => {
    if (!toolsRunActive()) return;
    await claude?.close();
  });

  /** claude's own baseline call (no model marker), as before each of its writes. */
  const baseline = (file: string) => claude!.callTool({ name: 'getDiagnostics', arguments: { uri: `file://${file}` } }, undefined, { timeout: 10_000 });
  const listed = async (file: string) =>
    (await api().changes()).flatMap((s) => s.files.map((f) => ({ ...f, sessionId: s.id, label: s.label }))).find((f) => f.path === file);
  const waitListed = (file: string) => waitFor(`${path.basename(file)} in Claude's changes`, async () => listed(file), 15_000);
  const waitGone = (file: string) => waitFor(`${path.basename(file)} no longer listed`, async () => !(await listed(file)), 15_000);
  /** claude writes a file it asked about (auto-accept: no review). */
  async function claudeWrites(rel: string, content: string | Buffer | undefined) {
    const file = abs(rel);
    await baseline(file);
    if (content === undefined) fs.rmSync(file);
    else fs.writeFileSync(file, content);
    return waitListed(file);
  }

  it('[changes-hunk] two hunks: the second undone from the peek, the first kept; the bytes outside each hunk untouched', async () => {
    const rel = 'changes-hunks.txt';
    fs.writeFileSync(abs(rel), 'one\ntwo\nthree\nfour\nfive\nsix\n');
    const entry = await claudeWrites(rel, 'one\nTWO\nthree\nfour\nfive\nSIX\n');
    record('changes-hunk', { entry });
    assert.strictEqual(entry.attribution, 'certain');
    assert.strictEqual(entry.source, 'baseline');
    assert.match(entry.label, /claude/);
    const uri = vscode.Uri.file(abs(rel));
    const undone = await vscode.commands.executeCommand('nativeClaude.changes.undoHunk', uri, [lineChange(2, 2), lineChange(6, 6)], 1);
    assert.strictEqual(undone, true);
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'one\nTWO\nthree\nfour\nfive\nsix\n');
    assert.ok(await listed(abs(rel)), 'still listed: one hunk is left');
    await vscode.commands.executeCommand('nativeClaude.changes.keepHunk', uri, [lineChange(2, 2)], 0);
    await waitGone(abs(rel));
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'one\nTWO\nthree\nfour\nfive\nsix\n');
  });

  it("[changes-file] a CRLF file with a BOM and no final newline undone whole, byte for byte; Redo brings claude's version back", async () => {
    const rel = 'changes-crlf.txt';
    const before = Buffer.from('\ufeffalpha\r\nbeta\r\ngamma', 'utf8');
    const claudes = Buffer.from('\ufeffalpha\r\nBETA\r\ngamma\r\ndelta\r\n', 'utf8');
    fs.writeFileSync(abs(rel), before);
    const entry = await claudeWrites(rel, claudes);
    const undone = await vscode.commands.executeCommand<boolean[]>('nativeClaude.changes.undoFile', { sessionId: entry.sessionId, filePath: abs(rel) });
    assert.deepStrictEqual(undone, [true]);
    assert.strictEqual(fs.readFileSync(abs(rel)).toString('hex'), before.toString('hex'));
    await waitGone(abs(rel));
    await vscode.commands.executeCommand('nativeClaude.changes.redo');
    assert.strictEqual(fs.readFileSync(abs(rel)).toString('hex'), claudes.toString('hex'));
    await waitListed(abs(rel));
    await vscode.commands.executeCommand('nativeClaude.changes.keepFile', { sessionId: entry.sessionId, filePath: abs(rel) });
    await waitGone(abs(rel));
    assert.strictEqual(fs.readFileSync(abs(rel)).toString('hex'), claudes.toString('hex'));
  });

  it('[changes-created-deleted] Undo All of a session: the file it created is gone, the one it deleted is back with its bytes', async () => {
    fs.writeFileSync(abs('changes-doomed.txt'), 'keep me\n');
    const created = await claudeWrites('changes-brand-new.ts', 'export const fresh = true;\n');
    assert.deepStrictEqual(created.before, { absent: true });
    await claudeWrites('changes-doomed.txt', undefined);
    const undone = await vscode.commands.executeCommand<boolean[]>('nativeClaude.changes.undoAll', created.sessionId);
    record('changes-created-deleted', { undone });
    assert.ok(!fs.existsSync(abs('changes-brand-new.ts')), 'the created file is removed');
    assert.strictEqual(fs.readFileSync(abs('changes-doomed.txt'), 'utf8'), 'keep me\n');
    await waitGone(abs('changes-brand-new.ts'));
    await waitGone(abs('changes-doomed.txt'));
  });

  it('[changes-conflict] the user edits claude\'s line afterwards (saved in the editor): undoing that hunk asks; "cancel" leaves the file, "undo" restores', async () => {
    const rel = 'changes-conflict.txt';
    fs.writeFileSync(abs(rel), 'a\nb\nc\n');
    await claudeWrites(rel, 'a\nB\nc\n');
    const document = await vscode.workspace.openTextDocument(abs(rel));
    await waitFor("the document to show claude's line", () => document.getText() === 'a\nB\nc\n', 10_000);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(document.uri, new vscode.Range(1, 0, 1, 1), 'B (mine)');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(await document.save());
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'a\nB (mine)\nc\n');
    const uri = vscode.Uri.file(abs(rel));
    const cancelled = await vscode.commands.executeCommand('nativeClaude.changes.undoHunk', uri, [lineChange(2, 2)], 0, { answer: 'cancel' });
    assert.strictEqual(cancelled, false);
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'a\nB (mine)\nc\n');
    const undone = await vscode.commands.executeCommand('nativeClaude.changes.undoHunk', uri, [lineChange(2, 2)], 0, { answer: 'undo' });
    assert.strictEqual(undone, true);
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'a\nb\nc\n');
    await waitGone(abs(rel));
  });

  it("[changes-dirty] a file with unsaved edits is not undone: disk and the editor's edits stay", async () => {
    const rel = 'changes-dirty.txt';
    fs.writeFileSync(abs(rel), 'x\n');
    const entry = await claudeWrites(rel, 'y\n');
    const document = await vscode.workspace.openTextDocument(abs(rel));
    await waitFor("the document to show claude's content", () => document.getText() === 'y\n', 10_000);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(document.uri, new vscode.Position(1, 0), 'unsaved\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.ok(document.isDirty);
    const undone = await vscode.commands.executeCommand(
      'nativeClaude.changes.undoFile',
      { sessionId: entry.sessionId, filePath: abs(rel) },
      { answer: 'undo' },
    );
    assert.strictEqual(undone, undefined, 'refused (an error message says why)');
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'y\n');
    assert.strictEqual(document.getText(), 'y\nunsaved\n');
    assert.ok(await listed(abs(rel)), 'still listed');
    await vscode.commands.executeCommand('workbench.action.files.revert', document.uri);
  });

  it("[changes-latin1] a Latin-1 file (files.encoding iso88591): its before-image shows the file's own characters, so only claude's line differs (no false hunk); that hunk undone by the peek's lines, bytes exact", async () => {
    const rel = 'changes-latin1.txt';
    const before = Buffer.from('café\nnaïve\nlast line\n', 'latin1');
    fs.writeFileSync(abs(rel), before);
    const files = () => vscode.workspace.getConfiguration('files');
    await files().update('encoding', 'iso88591', vscode.ConfigurationTarget.Global);
    await waitFor('files.encoding = iso88591', () => files().get('encoding') === 'iso88591', 5_000);
    try {
      const entry = await claudeWrites(rel, Buffer.from('café\nnaïve\nthe end\n', 'latin1'));
      assert.ok('blob' in entry.before);
      const beforeDoc = await vscode.workspace.openTextDocument(
        vscode.Uri.from({ scheme: 'claude-before', path: vscode.Uri.file(abs(rel)).path, query: entry.before.blob }),
      );
      const nowDoc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs(rel)));
      record('changes-latin1', { before: beforeDoc.getText(), now: nowDoc.getText(), nowEncoding: nowDoc.encoding });
      assert.strictEqual(nowDoc.getText(), 'café\nnaïve\nthe end\n');
      assert.strictEqual(beforeDoc.getText(), 'café\nnaïve\nlast line\n');
      // What the quick diff compares: the lines that differ are claude's only.
      const was = beforeDoc.getText().split('\n');
      assert.deepStrictEqual(
        nowDoc
          .getText()
          .split('\n')
          .flatMap((line, i) => (line === was[i] ? [] : [i + 1])),
        [3],
      );
      assert.strictEqual(await vscode.commands.executeCommand('nativeClaude.changes.undoHunk', nowDoc.uri, [lineChange(3, 3)], 0), true);
      assert.strictEqual(fs.readFileSync(abs(rel)).toString('hex'), before.toString('hex'));
      await waitGone(abs(rel));
    } finally {
      await files().update('encoding', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("[changes-quickdiff] the quick diff's original of a listed file is its before-image (claude-before scheme), read-only, without the BOM", async () => {
    const rel = 'changes-quick.txt';
    fs.writeFileSync(abs(rel), '\ufeffq1\nq2\n');
    const entry = await claudeWrites(rel, '\ufeffq1\nQ2\n');
    assert.ok('blob' in entry.before);
    const before = await vscode.workspace.openTextDocument(
      vscode.Uri.from({ scheme: 'claude-before', path: vscode.Uri.file(abs(rel)).path, query: entry.before.blob }),
    );
    assert.strictEqual(before.getText(), 'q1\nq2\n');
    await vscode.commands.executeCommand('nativeClaude.changes.open', { sessionId: entry.sessionId, filePath: abs(rel) });
    const tab = await waitFor(
      "the change's diff tab",
      () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .find((x) => x.input instanceof vscode.TabInputTextDiff && x.input.original.scheme === 'claude-before'),
      10_000,
    );
    record('changes-quickdiff', { tabLabel: tab.label });
    await vscode.window.tabGroups.close(tab);
    await vscode.commands.executeCommand('nativeClaude.changes.keepFile', { sessionId: entry.sessionId, filePath: abs(rel) });
  });
});
