// Hardening — Claude's changes' undo asks "Undo anyway?" when the file was changed after claude's change,
// and promises that Redo brings those later changes back. The question can stay open for minutes: a
// write by another program (or by the user) while it is open was overwritten by the undo, whole-file and
// hunk alike, and Redo brought back only what was there before the question. Redo itself wrote over any
// later change. Now the file is read again after any question (and before a Redo), and a file changed
// meanwhile is refused with a word: no write is lost. Real tracker, real store, real files.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../src/changes/beforeImageStore';
import { ChangeTracker } from '../../src/changes/changeTracker';
import { figures } from './support/hardenServer';

jest.setTimeout(30_000);

describe("hardening: nothing written while Claude's changes ask is lost", () => {
  let root: string;
  let file: string;
  let tracker: ChangeTracker;
  const OTHER = 'one\nTWO (mine)\nTHREE (mine)\nfour, written by another program while the question was open\n';

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-undo-question-')));
    file = path.join(root, 'a.txt');
    tracker = new ChangeTracker({
      store: new BeforeImageStore(path.join(root, 'store')),
      sessionOf: () => ({ id: 's', label: 'claude' }),
      save: () => undefined,
    });
    // claude changes two lines, then the user edits both: an undo asks first.
    await fs.writeFile(file, 'one\ntwo\nthree\n');
    await tracker.beforeWrite(1, file, 'baseline');
    await fs.writeFile(file, 'one\nTWO\nTHREE\n');
    expect(await tracker.fileChanged(file)).toBeDefined();
    await fs.writeFile(file, 'one\nTWO (mine)\nTHREE (mine)\n');
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  /** The user answers "Undo Anyway" after another program wrote the file while the question was open. */
  const yesAfterAnotherWrite = async () => {
    await fs.writeFile(file, OTHER);
    return true;
  };

  /** What of the other program's write is gone from the file (its bytes not in the file). */
  const lost = async () => {
    const now = await fs.readFile(file, 'utf8');
    return now.includes('four, written by another program') ? 0 : Buffer.byteLength(OTHER);
  };

  test.each([
    ['whole file', () => tracker.undoFile('s', file, yesAfterAnotherWrite)],
    ['hunk', () => tracker.undoHunk('s', file, { index: 0 }, yesAfterAnotherWrite)],
  ])('%s undo: a write during the question is refused with a word, and kept', async (what, undo) => {
    const outcome = await undo().then(
      () => 'undone',
      (error: Error) => error.message,
    );
    const bytesLost = await lost();
    figures(`${what} undo with a write during its question`, { bytesLost, outcome: JSON.stringify(outcome.slice(0, 60)) });
    expect(outcome).toMatch(/changed while you were asked.*nothing was undone/);
    expect(bytesLost).toBe(0);
    expect(await fs.readFile(file, 'utf8')).toBe(OTHER);
    // Still listed: the user can look again and undo.
    expect(tracker.list()[0].files.map((f) => f.path)).toEqual([file]);
  });

  test('Redo over a file changed after the undo: refused with a word, the later write kept, Redo still offered', async () => {
    await tracker.undoFile('s', file, async () => true);
    expect(await fs.readFile(file, 'utf8')).toBe('one\ntwo\nthree\n');
    const later = 'one\ntwo\nthree\nfour, written after the undo\n';
    await fs.writeFile(file, later);
    const outcome = await tracker.redo().then(
      () => 'redone',
      (error: Error) => error.message,
    );
    figures('Redo over a later write', {
      bytesLost: (await fs.readFile(file, 'utf8')) === later ? 0 : Buffer.byteLength(later),
      outcome: JSON.stringify(outcome.slice(0, 60)),
    });
    expect(outcome).toMatch(/changed after the undo.*nothing was done/);
    expect(await fs.readFile(file, 'utf8')).toBe(later);
    expect(tracker.canRedo()).toBe(true);
    // Once the file holds what the undo left again, Redo brings back what the undo replaced.
    await fs.writeFile(file, 'one\ntwo\nthree\n');
    await tracker.redo();
    expect(await fs.readFile(file, 'utf8')).toBe('one\nTWO (mine)\nTHREE (mine)\n');
  });

  test('the positive control: no write during the question, the undo happens', async () => {
    expect(await tracker.undoFile('s', file, async () => true)).toBe(true);
    expect(await fs.readFile(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });
});
