/**
 * The inner half of test/real/vscode-changes-undo.test.ts (issue 24, points 3 and 4):
 * - Ctrl+Z: a file open in an editor (not dirty) whose change is undone on disk; the editor's own Undo.
 * - the real claude (2.1.328) in accept-edits mode Edits a file, the user undoes it (the command), and at
 *   the next prompt claude Writes the same file: listed flagged, the warning seen (through the outer
 *   test's probe, which clicks "Undo Again"), and the bytes the undo left are back exactly.
 * Runs only with $NC_UNDOGUARD_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import { screen, startClaudeInTerminal, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { installedExtension, probe, sleep, waitFor } from '../util';

interface FileChange {
  path: string;
  attribution: 'certain' | 'uncertain';
  source: string;
  rewroteUndo?: { undoneAt: number };
}
interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
  changes(): Promise<ReadonlyArray<{ id: string; label: string; files: FileChange[] }>>;
}
interface Spec {
  workspace: string;
  results: string;
}

const SPEC_PATH = process.env.NC_UNDOGUARD_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = {};
const results: Record<string, { state: string; error?: string }> = {};

function record(): void {
  fs.writeFileSync(
    spec!.results,
    JSON.stringify({ state: Object.values(results).every((r) => r.state === 'passed') ? 'passed' : 'failed', results, data }, null, 2),
  );
}

/** Runs `body` as the test named `key`, its outcome written for the outer test. */
async function outcome(key: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
    results[key] = { state: 'passed' };
  } catch (error) {
    results[key] = { state: 'failed', error: String((error as Error).stack ?? error) };
    throw error;
  } finally {
    record();
  }
}

describe("Claude's changes: undo in the editor, and claude's write over an undo", function () {
  this.timeout(180_000);
  let api: NativeClaudeApi;
  const abs = (rel: string) => path.join(spec!.workspace, rel);
  const bytes = (rel: string) => fs.readFileSync(abs(rel)).toString('hex');
  const hex = (text: string) => Buffer.from(text).toString('hex');

  before(async function () {
    if (!spec) this.skip();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
  });

  after(async () => {
    if (!spec) return;
    data.finalScreen = await screen().catch((e: Error) => e.message);
    record();
  });

  it("a change written on disk under an open, non-dirty editor: the editor's Undo takes it back (VS Code's reload is on its undo stack)", () =>
    outcome('editorUndo', async () => {
      fs.writeFileSync(abs('z.txt'), 'mine\n');
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs('z.txt')), { preview: false });
      const document = editor.document;
      fs.writeFileSync(abs('z.txt'), 'written on disk\n');
      await waitFor('the editor to reload the file', () => document.getText() === 'written on disk\n', 10_000);
      data.dirtyAfterReload = document.isDirty;
      await vscode.commands.executeCommand('undo');
      await waitFor('the editor to show the text before', () => document.getText() === 'mine\n', 5_000).catch(() => undefined);
      data.editorUndo = { text: document.getText(), dirty: document.isDirty };
      await vscode.commands.executeCommand('redo');
      await waitFor('the editor to show the text after', () => document.getText() === 'written on disk\n', 5_000).catch(() => undefined);
      data.editorRedo = { text: document.getText(), dirty: document.isDirty };
      assert.deepStrictEqual(
        [data.dirtyAfterReload, data.editorUndo, data.editorRedo],
        [false, { text: 'mine\n', dirty: true }, { text: 'written on disk\n', dirty: false }],
      );
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }));

  it('claude Edits, the user undoes, claude Writes the file again: flagged, warned, Undo Again gives back the bytes', () =>
    outcome('rewrite', async () => {
      const original = 'one\r\ntwo\r\nthree';
      await startClaudeInTerminal(spec!.workspace, () => api.status().sessionCount === 1);
      await tmux('send-keys', '-t', 'main', 'BTab');
      await waitForScreen(/accept edits on/i, 10_000);
      await submit('scenario:edit');
      await waitForScreen('done edit', 90_000);
      assert.strictEqual(bytes('u.txt'), hex('one\r\nTWO\r\nthree'));
      const listed = await waitFor(
        'u.txt listed',
        async () => (await api.changes()).flatMap((s) => s.files.map((f) => ({ session: s.id, file: f }))).find((x) => x.file.path === abs('u.txt')),
        20_000,
      );
      data.first = listed;
      assert.strictEqual(listed.file.rewroteUndo, undefined);

      // The file open in an editor, not dirty; the user undoes claude's change (the Source Control view's Undo).
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs('u.txt')), { preview: false });
      const document = editor.document;
      const target = { sessionId: listed.session, filePath: abs('u.txt') };
      assert.deepStrictEqual(await vscode.commands.executeCommand('nativeClaude.changes.undoFile', target), [true]);
      assert.strictEqual(bytes('u.txt'), hex(original));
      await waitFor('the editor to show the undo', () => document.getText() === 'one\ntwo\nthree' || document.getText() === original, 10_000);
      // Ctrl+Z in that editor takes the undo back; saved, claude's change is on disk and listed again.
      await vscode.commands.executeCommand('undo');
      await waitFor("the editor to show claude's text again", () => document.getText().includes('TWO'), 5_000);
      assert.ok(await document.save());
      assert.strictEqual(bytes('u.txt'), hex('one\r\nTWO\r\nthree'));
      data.relistedByCtrlZ = await waitFor(
        'u.txt listed again',
        async () => (await api.changes()).flatMap((s) => s.files).find((f) => f.path === abs('u.txt')),
        10_000,
      );
      // Ctrl+Y (the editor's Redo) gives the undo back; saved, the file is no longer listed.
      await vscode.commands.executeCommand('redo');
      await waitFor('the editor to show the undo again', () => !document.getText().includes('TWO'), 5_000);
      assert.ok(await document.save());
      assert.strictEqual(bytes('u.txt'), hex(original));
      await waitFor('u.txt no longer listed', async () => !(await api.changes()).flatMap((s) => s.files).some((f) => f.path === abs('u.txt')), 10_000);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

      // Next prompt: claude writes the whole file again.
      await submit('scenario:write');
      await waitForScreen('done write', 90_000);
      data.afterWrite = fs.readFileSync(abs('u.txt'), 'utf8');
      assert.strictEqual(bytes('u.txt'), hex('rewritten by claude\n'), 'the CLI wrote over the undo');
      const flagged = await waitFor(
        'u.txt listed again, flagged',
        async () => (await api.changes()).flatMap((s) => s.files).find((f) => f.path === abs('u.txt') && f.rewroteUndo),
        20_000,
      );
      data.flagged = flagged;
      assert.strictEqual(flagged.attribution, 'certain');

      // The warning, clicked as a user would.
      data.notification = await probe('notification', { contains: 'u.txt again after you undid', button: 'Undo Again' }, 60_000);
      await waitFor('the undo back on disk', () => bytes('u.txt') === hex(original), 10_000);
      await sleep(500);
      assert.strictEqual(bytes('u.txt'), hex(original));
      data.left = (await api.changes()).flatMap((s) => s.files.map((f) => path.basename(f.path)));
      assert.deepStrictEqual(data.left, []);
    }));
});
