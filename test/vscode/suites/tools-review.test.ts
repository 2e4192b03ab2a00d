/**
 * write_file / apply_diff over the real `/tools` socket, reviewed in real VS Code's diff editor (the inner
 * half of test/real/vscode-tools.test.ts; runs only when that test started code-server: $NC_TOOLS_RESULTS).
 * Test titles start with `[key]`, the name the outer test reads the outcome under.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, describe, it } from '../bdd';
import { sleep, waitFor } from '../util';
import { stateAfter } from '../../support/stateAfter';
import { openedReview, proposalTabs, record, setUserSetting, tabOpen, toolsRunActive, toolsSuite, type ToolsConnection } from '../toolsClient';

const BOM = '\uFEFF';

describe('write_file / apply_diff reviewed in VS Code', function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ws: string;
  const abs = (rel: string) => path.join(ws, rel);
  const write = (rel: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(abs(rel)), { recursive: true });
    fs.writeFileSync(abs(rel), content);
  };

  toolsSuite((conn, root) => {
    t = conn;
    ws = root;
  });

  after(async () => {
    if (!toolsRunActive()) return;
    // Nothing left pending for the next suite.
    await vscode.window.tabGroups.close(proposalTabs().map((p) => p.tab)).then(undefined, () => undefined);
  });

  it('[format-on-save] write_file of a new JSON file: review, user edit, accept → created, formatted, both edits reported', async () => {
    const rel = 'data/new.json';
    // The formatter named in the user settings is VS Code's built-in JSON one.
    assert.ok(vscode.extensions.getExtension('vscode.json-language-features'), 'vscode.json-language-features is built in');
    const jsonSettings = vscode.workspace.getConfiguration('', { languageId: 'json' });
    assert.strictEqual(jsonSettings.get('editor.formatOnSave'), true);
    assert.strictEqual(jsonSettings.get('editor.defaultFormatter'), 'vscode.json-language-features');

    const proposal = '{"name":"demo",\n"items":[1,2,3]}\n';
    const call = t.call('write_file', { path: rel, content: proposal });
    const review = await openedReview('new.json');
    record('format-on-save', { tabLabel: review.tab.label });
    assert.strictEqual(review.input.modified.scheme, 'native-claude-proposal');
    assert.strictEqual(review.input.original.scheme, 'native-claude-original');
    assert.strictEqual(review.document.getText(), proposal);
    // Nothing on disk before the decision: neither the file nor its folder.
    assert.strictEqual(fs.existsSync(abs(rel)), false, 'data/new.json exists before acceptance');
    assert.strictEqual(fs.existsSync(abs('data')), false, 'data/ exists before acceptance');

    // The user edits the right side, then accepts.
    const edit = new vscode.WorkspaceEdit();
    edit.insert(review.input.modified, new vscode.Position(1, 0), '"reviewer":"me",\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.strictEqual(fs.existsSync(abs('data')), false, 'data/ exists after the user edit');
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);

    const answer = await call;
    record('format-on-save', { answer: answer.json ?? answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    assert.strictEqual(answer.json?.status, 'accepted');
    assert.strictEqual(answer.json?.operation, 'created');
    assert.strictEqual(answer.json?.path, rel);
    assert.match(String(answer.json?.user_edits), /^\+"reviewer":"me",$/m);
    assert.ok(typeof answer.json?.formatter_edits === 'string' && answer.json.formatter_edits.length > 0, 'formatter_edits is reported');
    assert.match(String(answer.json?.formatter_edits), /^\+\s+"reviewer": "me",$/m);

    const onDisk = fs.readFileSync(abs(rel), 'utf8');
    record('format-on-save', { onDisk });
    assert.deepStrictEqual(JSON.parse(onDisk), { name: 'demo', reviewer: 'me', items: [1, 2, 3] });
    // Formatted (the JSON formatter's indentation follows editor.tabSize), the user's line included.
    assert.match(onDisk, /^\{\n( +)"name": "demo",\n\1"reviewer": "me",\n\1"items": \[\n/);
    assert.strictEqual(tabOpen(review.input.modified), false, 'the review tab closed');
    assert.strictEqual(t.api.pendingReviews(), 0);
  });

  it('[reject-close] closing the tab rejects write_file and apply_diff: CRLF+BOM file byte-identical, new file and folder never created', async () => {
    const rel = 'crlf-bom.txt';
    const original = Buffer.from(`${BOM}one\r\ntwo\r\nthree`, 'utf8');
    write(rel, original);

    // write_file, rejected by closing its tab.
    let call = t.call('write_file', { path: rel, content: 'one\nTWO\nthree\n' });
    let review = await openedReview('crlf-bom.txt');
    // The proposal took the file's line endings; the BOM is not part of the text.
    assert.strictEqual(review.document.eol, vscode.EndOfLine.CRLF);
    assert.ok(!review.document.getText().startsWith(BOM));
    await vscode.window.tabGroups.close(review.tab);
    let answer = await call;
    record('reject-close', { writeFile: answer.json ?? answer.text });
    assert.deepStrictEqual(answer.json, { status: 'rejected', path: rel });
    assert.ok(fs.readFileSync(abs(rel)).equals(original), 'the file is byte-identical after write_file was rejected');

    // apply_diff, rejected by closing its tab.
    call = t.call('apply_diff', { path: rel, diff: '<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n' });
    review = await openedReview('crlf-bom.txt');
    assert.strictEqual(review.document.getText(), 'one\r\nTWO\r\nthree');
    await vscode.window.tabGroups.close(review.tab);
    answer = await call;
    record('reject-close', { applyDiff: answer.json ?? answer.text });
    assert.deepStrictEqual(answer.json, { status: 'rejected', path: rel });
    assert.ok(fs.readFileSync(abs(rel)).equals(original), 'the file is byte-identical after apply_diff was rejected');

    // A new file in new folders, rejected: nothing is created.
    call = t.call('write_file', { path: 'fresh/deeper/new.txt', content: 'hello\n' });
    review = await openedReview('new.txt');
    await vscode.window.tabGroups.close(review.tab);
    answer = await call;
    assert.deepStrictEqual(answer.json, { status: 'rejected', path: 'fresh/deeper/new.txt' });
    assert.strictEqual(fs.existsSync(abs('fresh')), false, 'fresh/ was created');
    assert.strictEqual(proposalTabs().length, 0);
    assert.strictEqual(t.api.pendingReviews(), 0);
  });

  it('[link-swapped] a folder, or the file, replaced by a link to outside while the review is open: the accepted write is refused, nothing lands outside', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside\n');
    write('swap/keep.txt', 'k\n');
    write('swapfile.txt', 'inside\n');

    let call = t.call('write_file', { path: 'swap/new.txt', content: 'payload\n' });
    let review = await openedReview('new.txt');
    fs.rmSync(abs('swap'), { recursive: true });
    fs.symlinkSync(outside, abs('swap'));
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const folderAnswer = await call;

    call = t.call('write_file', { path: 'swapfile.txt', content: 'overwritten\n' });
    review = await openedReview('swapfile.txt');
    fs.rmSync(abs('swapfile.txt'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), abs('swapfile.txt'));
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const fileAnswer = await call;

    const outsideNow = fs.readdirSync(outside).sort();
    const secret = fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8');
    record('link-swapped', { folderAnswer: folderAnswer.json ?? folderAnswer.text, fileAnswer: fileAnswer.json ?? fileAnswer.text, outsideNow, secret });
    fs.rmSync(abs('swap'));
    fs.rmSync(abs('swapfile.txt'));
    fs.rmSync(outside, { recursive: true });
    assert.match(String((folderAnswer.json as { error?: string } | undefined)?.error), /accepted but not written.*symbolic link/s, folderAnswer.text);
    assert.match(String((fileAnswer.json as { error?: string } | undefined)?.error), /accepted but not written.*symbolic link/s, fileAnswer.text);
    assert.deepStrictEqual(outsideNow, ['secret.txt']);
    assert.strictEqual(secret, 'outside\n');
    assert.strictEqual(t.api.pendingReviews(), 0);
  });

  it('[eol-bom-accept] an accepted apply_diff keeps the BOM, CRLF and the missing final newline', async () => {
    const rel = 'crlf-bom-accept.txt';
    write(rel, Buffer.from(`${BOM}one\r\ntwo\r\nthree`, 'utf8'));
    const call = t.call('apply_diff', { path: rel, diff: '<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n' });
    const review = await openedReview('crlf-bom-accept.txt');
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    record('eol-bom-accept', { answer: answer.json ?? answer.text, onDisk: fs.readFileSync(abs(rel)).toString('hex') });
    assert.strictEqual(answer.json?.status, 'accepted', answer.text);
    assert.strictEqual(answer.json?.user_edits, undefined);
    assert.strictEqual(answer.json?.formatter_edits, undefined);
    assert.ok(
      fs.readFileSync(abs(rel)).equals(Buffer.from(`${BOM}one\r\nTWO\r\nthree`, 'utf8')),
      `on disk: ${JSON.stringify(fs.readFileSync(abs(rel), 'utf8'))}`,
    );
  });

  it('[partial] apply_diff with an ambiguous block: the other block is proposed, accepted, and the result says partial', async () => {
    const rel = 'partial.txt';
    write(rel, 'alpha\ndup\nbeta\ndup\ngamma\n');
    const diff = '<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ndup\n=======\nDUP\n>>>>>>> REPLACE\n';
    const call = t.call('apply_diff', { path: rel, diff });
    const review = await openedReview('partial.txt');
    // The diff shows the applied block only.
    assert.strictEqual(review.document.getText(), 'ALPHA\ndup\nbeta\ndup\ngamma\n');
    const original = await vscode.workspace.openTextDocument(review.input.original);
    assert.strictEqual(original.getText(), 'alpha\ndup\nbeta\ndup\ngamma\n');
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    record('partial', { answer: answer.json ?? answer.text });
    assert.strictEqual(answer.json?.status, 'accepted', answer.text);
    assert.strictEqual(answer.json?.partial, true);
    const failed = answer.json?.failed_blocks as Array<{ reason: string; search: string }>;
    assert.strictEqual(failed?.length, 1);
    assert.strictEqual(failed[0].search, 'dup');
    assert.match(failed[0].reason, /ambiguous \(2 matches found\)/);
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'ALPHA\ndup\nbeta\ndup\ngamma\n');
  });

  it("[new-diagnostics] an accepted write that breaks a file reports the language server's new problem", async () => {
    const rel = 'conf.jsonc';
    write(rel, '{"a": 1}\n');
    const call = t.call('write_file', { path: rel, content: '{"a": }\n' });
    const review = await openedReview('conf.jsonc');
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    record('new-diagnostics', { answer: answer.json ?? answer.text });
    assert.strictEqual(answer.json?.status, 'accepted', answer.text);
    const added = answer.json?.new_diagnostics as string[] | undefined;
    assert.ok(Array.isArray(added) && added.some((d) => /Value expected/.test(d)), `new_diagnostics: ${JSON.stringify(added)}`);
  });

  it('[dirty-during-review] the user types into the real file while its review is open, then accepts', async () => {
    const rel = 'during.txt';
    write(rel, 'one\n');
    const uri = vscode.Uri.file(abs(rel));
    const document = (await vscode.window.showTextDocument(uri, { preview: false })).document;
    await sleep(200);
    const call = t.call('write_file', { path: rel, content: 'two\n' });
    const review = await openedReview('during.txt');
    const typed = new vscode.WorkspaceEdit();
    typed.insert(uri, new vscode.Position(0, 0), 'typed by the user\n');
    assert.ok(await vscode.workspace.applyEdit(typed));
    assert.strictEqual(document.isDirty, true);
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    const after = { answer: answer.json ?? answer.text, onDisk: fs.readFileSync(abs(rel), 'utf8'), buffer: document.getText(), dirty: document.isDirty };
    record('dirty-during-review', after);
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await sleep(200);
    // The user's unsaved typing must survive somewhere (docs/vscode-traps.md, trap 5).
    assert.ok(
      after.onDisk.includes('typed by the user') || after.buffer.includes('typed by the user'),
      `the user's unsaved text was lost: ${JSON.stringify(after)}`,
    );
  });

  it('[tab-close-race] a tab closed just before a proposal arrives does not reject the new review', async () => {
    write('race-other.txt', 'other\n');
    await vscode.window.showTextDocument(vscode.Uri.file(abs('race-other.txt')), { preview: false });
    await sleep(300);
    // Some tab closes (the user's, or the previous review's), and a proposal arrives right after.
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const call = t.call('write_file', { path: 'race.txt', content: 'race\n' });
    const state = await stateAfter(call, 3000);
    record('tab-close-race', {
      stateAfter3s: state === 'pending' ? 'pending' : (state.value.json ?? state.value.text),
      tabs: proposalTabs().map((p) => p.tab.label),
    });
    if (state === 'pending') {
      const review = await openedReview('race.txt');
      await vscode.commands.executeCommand('nativeClaude.rejectReview', review.input.modified);
      await call;
    } else {
      // The review was settled without the user, and its diff tab (opened a moment later) was left behind.
      await sleep(500);
      await vscode.window.tabGroups.close(proposalTabs().map((p) => p.tab)).then(undefined, () => undefined);
      await sleep(200);
    }
    assert.strictEqual(state, 'pending', 'the new review was settled before the user saw it');
  });

  it('[autosave] with files.autoSave afterDelay (200 ms) an edited proposal never reaches the disk and never accepts', async () => {
    const rel = 'autosave.txt';
    write(rel, 'one\ntwo\n');
    await setUserSetting('files', 'autoSaveDelay', 200);
    await setUserSetting('files', 'autoSave', 'afterDelay');
    try {
      const call = t.call('write_file', { path: rel, content: 'one\nthree\n' });
      const review = await openedReview('autosave.txt');
      const edit = new vscode.WorkspaceEdit();
      edit.insert(review.input.modified, new vscode.Position(2, 0), 'four, typed while auto-save is on\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.strictEqual(review.document.isDirty, true);
      // Auto-save did run (into the proposal's in-memory store): the right side is saved, not dirty.
      await waitFor('auto-save to save the proposal', () => !review.document.isDirty, 5_000);
      const state = await stateAfter(call, 2_000);
      record('autosave', { stateAfter2s: state === 'pending' ? 'pending' : 'settled', onDisk: fs.readFileSync(abs(rel), 'utf8') });
      assert.strictEqual(state, 'pending', 'auto-save settled the review');
      assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'one\ntwo\n', 'the proposal reached the disk');
      assert.strictEqual(tabOpen(review.input.modified), true);
      await vscode.commands.executeCommand('nativeClaude.rejectReview', review.input.modified);
      const answer = await call;
      assert.deepStrictEqual(answer.json, { status: 'rejected', path: rel });
      await sleep(500);
      assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'one\ntwo\n');
    } finally {
      await setUserSetting('files', 'autoSave', 'off');
    }
  });
});
