/**
 * Files in their own encoding through read_file / write_file / apply_diff in real VS Code (issue 22,
 * finding 12): the encoding comes from VS Code's settings (`files.encoding`, per language) and its API
 * (workspace.decode/encode, TextDocument.encoding). Inner half of test/real/vscode-tools.test.ts.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describe, it } from '../bdd';
import { waitFor } from '../util';
import { openedReview, proposalTabs, record, toolsSuite, type ToolsConnection } from '../toolsClient';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
// "café\nnaïve\nlast line\n" in ISO-8859-1 (é = E9, ï = EF).
const LATIN1 = Buffer.concat([hex('636166e9 0a 6e61ef7665 0a'), Buffer.from('last line\n')]);
// "echo こんにちは\r\nrem 日本語 表示\r\nexit /b 0\r\n" in Shift JIS (表 = 95 5C: its second byte is a backslash).
const SHIFT_JIS = Buffer.concat([
  Buffer.from('echo '),
  hex('82b182f182c982bf82cd'),
  Buffer.from('\r\nrem '),
  hex('93fa967b8cea'),
  Buffer.from(' '),
  hex('955c8ea6'),
  Buffer.from('\r\nexit /b 0\r\n'),
]);
const errorOf = (answer: { json?: Record<string, unknown>; text: string }) => String(answer.json?.error ?? `not an error: ${answer.text}`);

async function setFilesSetting(key: string, value: unknown, languageId?: string): Promise<void> {
  const scope = languageId ? { languageId } : undefined;
  await vscode.workspace.getConfiguration('files', scope).update(key, value, vscode.ConfigurationTarget.Global, languageId ? true : undefined);
  const expected = JSON.stringify(value ?? vscode.workspace.getConfiguration('files', scope).inspect(key)?.defaultValue);
  await waitFor(
    `files.${key}${languageId ? ` for ${languageId}` : ''} = ${expected}`,
    () => JSON.stringify(vscode.workspace.getConfiguration('files', scope).get(key)) === expected,
    5_000,
  );
}

describe('files in their own encoding (read_file, write_file, apply_diff)', function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ws: string;
  const abs = (rel: string) => path.join(ws, rel);

  toolsSuite((conn, root) => {
    t = conn;
    ws = root;
  });

  it('[encoding-latin1] files.encoding iso88591: read_file shows café, apply_diff of the last line keeps every other byte, € is refused and the file unchanged', async () => {
    fs.writeFileSync(abs('legacy.txt'), LATIN1);
    await setFilesSetting('encoding', 'iso88591');
    try {
      const read = await t.call('read_file', { path: 'legacy.txt' });
      record('encoding-latin1', { read: read.text });
      assert.strictEqual(read.text, '1 | café\n2 | naïve\n3 | last line\ntotal_lines: 3');

      const call = t.call('apply_diff', { path: 'legacy.txt', diff: '<<<<<<< SEARCH\nlast line\n=======\nthe end\n>>>>>>> REPLACE' });
      const review = await openedReview('legacy.txt');
      // Both sides of the review show the real characters (they are not decoded as Latin-1 from UTF-8 bytes).
      const left = await vscode.workspace.openTextDocument(review.input.original);
      record('encoding-latin1', { proposal: review.document.getText(), original: left.getText() });
      assert.strictEqual(review.document.getText(), 'café\nnaïve\nthe end\n');
      assert.strictEqual(left.getText(), 'café\nnaïve\nlast line\n');
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      const onDisk = fs.readFileSync(abs('legacy.txt'));
      record('encoding-latin1', { answer: answer.json ?? answer.text, onDisk: onDisk.toString('hex') });
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      assert.ok(onDisk.equals(Buffer.concat([LATIN1.subarray(0, 11), Buffer.from('the end\n')])), `on disk: ${onDisk.toString('hex')}`);

      const before = fs.readFileSync(abs('legacy.txt'));
      const euro = await t.call('write_file', { path: 'legacy.txt', content: 'café\nnaïve\nprice: 5 €\n' });
      record('encoding-latin1', { euro: euro.json ?? euro.text });
      assert.match(errorOf(euro), /ISO-8859-1 \(Latin-1\), which cannot hold "€" \(U\+20AC, line 3\)/);
      assert.strictEqual(proposalTabs().length, 0, 'no review opened');
      assert.ok(fs.readFileSync(abs('legacy.txt')).equals(before), 'the file is unchanged');

      // Typed into the review by the user: refused at acceptance, the file unchanged.
      const typedCall = t.call('apply_diff', { path: 'legacy.txt', diff: '<<<<<<< SEARCH\nthe end\n=======\nTHE END\n>>>>>>> REPLACE' });
      const typedReview = await openedReview('legacy.txt');
      const edit = new vscode.WorkspaceEdit();
      edit.insert(typedReview.input.modified, new vscode.Position(2, 0), '€ ');
      assert.ok(await vscode.workspace.applyEdit(edit));
      await vscode.commands.executeCommand('nativeClaude.acceptReview', typedReview.input.modified);
      const typed = await typedCall;
      record('encoding-latin1', { typed: typed.json ?? typed.text });
      assert.match(errorOf(typed), /accepted but not written: .*cannot hold "€"/);
      assert.ok(fs.readFileSync(abs('legacy.txt')).equals(before), 'the file is unchanged after the typed €');
    } finally {
      await setFilesSetting('encoding', undefined);
    }
  });

  it('[encoding-shiftjis] files.encoding shiftjis for the bat language: read_file shows the Japanese, apply_diff of the last line keeps every other byte, € is refused, for a new file too', async () => {
    assert.ok((await vscode.languages.getLanguages()).includes('bat'), 'the bat language is built in');
    fs.writeFileSync(abs('legacy.bat'), SHIFT_JIS);
    await setFilesSetting('encoding', 'shiftjis', 'bat');
    try {
      const read = await t.call('read_file', { path: 'legacy.bat' });
      record('encoding-shiftjis', { read: read.text });
      assert.strictEqual(read.text, '1 | echo こんにちは\n2 | rem 日本語 表示\n3 | exit /b 0\ntotal_lines: 3');

      const call = t.call('apply_diff', { path: 'legacy.bat', diff: '<<<<<<< SEARCH\nexit /b 0\n=======\nexit /b 1\n>>>>>>> REPLACE' });
      const review = await openedReview('legacy.bat');
      assert.strictEqual(review.document.getText(), 'echo こんにちは\r\nrem 日本語 表示\r\nexit /b 1\r\n');
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      const onDisk = fs.readFileSync(abs('legacy.bat'));
      const document = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === abs('legacy.bat'));
      record('encoding-shiftjis', { answer: answer.json ?? answer.text, onDisk: onDisk.toString('hex'), documentEncoding: document?.encoding });
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      const expected = Buffer.from(SHIFT_JIS);
      expected[expected.length - 3] = 0x31; // the 0 of "exit /b 0"
      assert.ok(onDisk.equals(expected), `on disk: ${onDisk.toString('hex')}`);

      const euro = await t.call('apply_diff', { path: 'legacy.bat', diff: '<<<<<<< SEARCH\nexit /b 1\n=======\nrem 5 €\n>>>>>>> REPLACE' });
      record('encoding-shiftjis', { euro: euro.json ?? euro.text });
      assert.match(errorOf(euro), /Shift JIS, which cannot hold "€" \(U\+20AC, line 3\)/);
      assert.ok(fs.readFileSync(abs('legacy.bat')).equals(expected), 'the file is unchanged');

      // A new .bat file: only the document VS Code opens at acceptance tells its encoding (per language),
      // so the writer refuses there, and the empty file it created is gone again.
      const newCall = t.call('write_file', { path: 'new.bat', content: 'rem 5 €\r\n' });
      const newReview = await openedReview('new.bat');
      await vscode.commands.executeCommand('nativeClaude.acceptReview', newReview.input.modified);
      const created = await newCall;
      record('encoding-shiftjis', { created: created.json ?? created.text });
      assert.match(errorOf(created), /accepted but could not be written: .*Shift JIS, which cannot hold "€"/);
      assert.strictEqual(fs.existsSync(abs('new.bat')), false, 'no file is left behind');
    } finally {
      await setFilesSetting('encoding', undefined, 'bat');
    }
  });

  it('[encoding-autoguess] files.autoGuessEncoding (candidates: Shift JIS): read_file shows what VS Code guessed, apply_diff of the last line keeps every other byte', async () => {
    fs.writeFileSync(abs('guessed.txt'), SHIFT_JIS);
    await setFilesSetting('candidateGuessEncodings', ['shiftjis']);
    await setFilesSetting('autoGuessEncoding', true);
    try {
      const read = await t.call('read_file', { path: 'guessed.txt' });
      record('encoding-autoguess', { read: read.text });
      assert.strictEqual(read.text, '1 | echo こんにちは\n2 | rem 日本語 表示\n3 | exit /b 0\ntotal_lines: 3');
      const call = t.call('apply_diff', { path: 'guessed.txt', diff: '<<<<<<< SEARCH\nexit /b 0\n=======\nexit /b 1\n>>>>>>> REPLACE' });
      const review = await openedReview('guessed.txt');
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      const onDisk = fs.readFileSync(abs('guessed.txt'));
      record('encoding-autoguess', { answer: answer.json ?? answer.text, onDisk: onDisk.toString('hex') });
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      const expected = Buffer.from(SHIFT_JIS);
      expected[expected.length - 3] = 0x31;
      assert.ok(onDisk.equals(expected), `on disk: ${onDisk.toString('hex')}`);
    } finally {
      await setFilesSetting('autoGuessEncoding', undefined);
      await setFilesSetting('candidateGuessEncodings', undefined);
    }
  });

  it('[encoding-cp1252-utf16] Windows-1252 (€ is 80): apply_diff keeps every other byte, Ā is refused; a UTF-16 LE file (BOM) is read and edited as UTF-16', async () => {
    // "price: 5 €\nlast line\n" in Windows-1252.
    const cp1252 = Buffer.concat([Buffer.from('price: 5 '), hex('80 0a'), Buffer.from('last line\n')]);
    fs.writeFileSync(abs('prices.txt'), cp1252);
    await setFilesSetting('encoding', 'windows1252');
    try {
      const read = await t.call('read_file', { path: 'prices.txt' });
      record('encoding-cp1252-utf16', { read: read.text });
      assert.strictEqual(read.text, '1 | price: 5 €\n2 | last line\ntotal_lines: 2');
      const call = t.call('apply_diff', { path: 'prices.txt', diff: '<<<<<<< SEARCH\nlast line\n=======\nthe end\n>>>>>>> REPLACE' });
      const review = await openedReview('prices.txt');
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      const onDisk = fs.readFileSync(abs('prices.txt'));
      record('encoding-cp1252-utf16', { answer: answer.json ?? answer.text, onDisk: onDisk.toString('hex') });
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      assert.ok(onDisk.equals(Buffer.concat([cp1252.subarray(0, 11), Buffer.from('the end\n')])), `on disk: ${onDisk.toString('hex')}`);
      const refused = await t.call('write_file', { path: 'prices.txt', content: 'price: 5 €\nĀ\n' });
      assert.match(errorOf(refused), /Windows-1252, which cannot hold "Ā" \(U\+0100, line 2\)/);
      assert.ok(fs.readFileSync(abs('prices.txt')).equals(onDisk), 'the file is unchanged');
    } finally {
      await setFilesSetting('encoding', undefined);
    }

    const utf16 = (text: string) => Buffer.concat([hex('fffe'), Buffer.from(text, 'utf16le')]);
    fs.writeFileSync(abs('wide.txt'), utf16('café\nlast line\n'));
    const read = await t.call('read_file', { path: 'wide.txt' });
    assert.strictEqual(read.text, '1 | café\n2 | last line\ntotal_lines: 2');
    const call = t.call('apply_diff', { path: 'wide.txt', diff: '<<<<<<< SEARCH\nlast line\n=======\nthe end\n>>>>>>> REPLACE' });
    const review = await openedReview('wide.txt');
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    assert.strictEqual(answer.json?.status, 'accepted', answer.text);
    const onDisk = fs.readFileSync(abs('wide.txt'));
    record('encoding-cp1252-utf16', { utf16OnDisk: onDisk.toString('hex') });
    assert.ok(onDisk.equals(utf16('café\nthe end\n')), `on disk: ${onDisk.toString('hex')}`);
  });

  it('[encoding-utf8-default] a Latin-1 file under the default UTF-8 setting: apply_diff is refused (it would rewrite the é), the file unchanged', async () => {
    fs.writeFileSync(abs('legacy-default.txt'), LATIN1);
    const answer = await t.call('apply_diff', { path: 'legacy-default.txt', diff: '<<<<<<< SEARCH\nlast line\n=======\nthe end\n>>>>>>> REPLACE' });
    record('encoding-utf8-default', { answer: answer.json ?? answer.text });
    assert.match(errorOf(answer), /not valid UTF-8.*Nothing was changed.*"files\.encoding"/s);
    assert.strictEqual(proposalTabs().length, 0, 'no review opened');
    assert.ok(fs.readFileSync(abs('legacy-default.txt')).equals(LATIN1), 'the file is unchanged');
  });
});
