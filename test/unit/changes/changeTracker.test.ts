import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../../src/changes/beforeImageStore';
import { ChangeTracker, type ChangeTrackerDeps } from '../../../src/changes/changeTracker';
import type { LedgerState } from '../../../src/changes/changeLedger';

// Real files in a temporary folder, the real store: what the VS Code side drives through the watcher and the commands.
describe('ChangeTracker', () => {
  let root: string;
  let clock: number;
  let saved: LedgerState | undefined;
  const yes = async () => true;
  const no = async () => false;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-tracker-')));
    clock = 1_000;
    saved = undefined;
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  /** Connection 1 is claude "one" (its IDE connection), 2 is claude "two", 3 its tools route; others are nobody. */
  function tracker(extra: Partial<ChangeTrackerDeps> = {}): ChangeTracker {
    return new ChangeTracker({
      store: new BeforeImageStore(path.join(root, '.store')),
      sessionOf: (id) => (id === 1 || id === 3 ? { id: 'claude-pid-11', label: 'one' } : id === 2 ? { id: 'claude-pid-22', label: 'two' } : undefined),
      save: (state) => (saved = JSON.parse(JSON.stringify(state))),
      now: () => clock,
      ...extra,
    });
  }
  const file = (name: string) => path.join(root, name);
  const read = (name: string) => fs.readFile(file(name));

  test("a baseline capture then claude's write: listed with certainty; undo gives back the exact bytes (BOM, CRLF, no final newline) and keeps the mode", async () => {
    const before = Buffer.from('\ufeffone\r\ntwo\r\nthree', 'utf8');
    await fs.writeFile(file('a.txt'), before, { mode: 0o640 });
    await fs.chmod(file('a.txt'), 0o640);
    const t = tracker();
    await t.beforeWrite(1, file('a.txt'), 'baseline');
    await fs.writeFile(file('a.txt'), '\ufeffone\r\nTWO\r\nthree');
    clock += 20;
    const change = await t.fileChanged(file('a.txt'));
    expect(change).toMatchObject({ path: file('a.txt'), attribution: 'certain', source: 'baseline' });
    expect(t.list()).toMatchObject([{ id: 'claude-pid-11', label: 'one', files: [{ path: file('a.txt') }] }]);
    expect(await t.undoFile('claude-pid-11', file('a.txt'), no)).toBe(true);
    expect(await read('a.txt')).toEqual(before);
    expect((await fs.stat(file('a.txt'))).mode & 0o777).toBe(0o640);
    expect(t.list()[0].files).toEqual([]);
    // The watcher then reports the undo's own write: not a change of claude's.
    expect(await t.fileChanged(file('a.txt'))).toBeUndefined();
    expect(t.list()[0].files).toEqual([]);
  });

  test('a binary or UTF-16 file is kept or undone whole: a hunk of it is refused with a reason, the file untouched', async () => {
    const t = tracker();
    const cases: Array<[string, Buffer, Buffer]> = [
      ['bin.dat', Buffer.from('a\nb\0\n'), Buffer.from('a\nB\0\n')],
      ['utf16.txt', Buffer.from('\ufeffa\nb\n', 'utf16le'), Buffer.from('\ufeffa\nB\n', 'utf16le')],
    ];
    for (const [name, before, after] of cases) {
      await fs.writeFile(file(name), before);
      await t.beforeWrite(1, file(name), 'baseline');
      await fs.writeFile(file(name), after);
      clock += 20;
      await t.fileChanged(file(name));
      await expect(t.undoHunk('claude-pid-11', file(name), { index: 0 }, yes)).rejects.toThrow(/not a text file with lines: keep or undo it whole/);
      expect(await read(name)).toEqual(after);
    }
  });

  test('the capture holds the content before the write even when the file is written the moment the call is answered', async () => {
    await fs.writeFile(file('race.txt'), 'old\n');
    const t = tracker();
    await t.beforeWrite(1, file('race.txt'), 'baseline');
    await fs.writeFile(file('race.txt'), 'new\n');
    await t.fileChanged(file('race.txt'));
    const entry = t.list()[0].files[0];
    expect((await t.bytesOf(entry.before)).toString()).toBe('old\n');
  });

  test('a file the session created is removed by undo; one it deleted comes back with its bytes and mode', async () => {
    const t = tracker();
    await t.beforeWrite(1, file('new.ts'), 'baseline');
    await fs.writeFile(file('new.ts'), 'export {};\n');
    expect(await t.fileChanged(file('new.ts'))).toMatchObject({ before: { absent: true } });
    await t.undoFile('claude-pid-11', file('new.ts'), no);
    await expect(fs.stat(file('new.ts'))).rejects.toThrow(/ENOENT/);

    await fs.writeFile(file('gone.sh'), '#!/bin/sh\necho hi\n');
    await fs.chmod(file('gone.sh'), 0o755);
    await t.beforeWrite(1, file('gone.sh'), 'baseline');
    await fs.rm(file('gone.sh'));
    expect(await t.fileChanged(file('gone.sh'))).toMatchObject({ claudeLeft: { absent: true } });
    await t.undoFile('claude-pid-11', file('gone.sh'), no);
    expect((await read('gone.sh')).toString()).toBe('#!/bin/sh\necho hi\n');
    expect((await fs.stat(file('gone.sh'))).mode & 0o777).toBe(0o755);
  });

  test('a change no call announced: listed as not certain with the fallback before-image, only for a session that called recently; none without a fallback', async () => {
    await fs.writeFile(file('sed.txt'), 'a\nb\n');
    const t = tracker({ fallback: async (p) => (p === file('sed.txt') ? { bytes: Buffer.from('a\nb\n'), source: 'git' } : undefined) });
    t.noteCall(2);
    await fs.writeFile(file('sed.txt'), 'a\nB\n');
    clock += 1_000;
    expect(await t.fileChanged(file('sed.txt'))).toMatchObject({ attribution: 'uncertain', source: 'git' });
    expect(
      t
        .list()
        .find((s) => s.id === 'claude-pid-22')
        ?.files.map((f) => f.path),
    ).toEqual([file('sed.txt')]);
    // No before-image to be had: not listed rather than guessed.
    await fs.writeFile(file('other.txt'), 'x');
    expect(await t.fileChanged(file('other.txt'))).toBeUndefined();
    // Long after the session's last call, a change is nobody's.
    await fs.writeFile(file('sed.txt'), 'late\n');
    clock += 10 * 60_000;
    await fs.writeFile(file('late.txt'), 'y');
    const late = tracker({ fallback: async () => ({ bytes: Buffer.from(''), source: 'git' }), now: () => clock });
    late.noteCall(2);
    clock += 10 * 60_000;
    expect(await late.fileChanged(file('late.txt'))).toBeUndefined();
  });

  test("the editor's own save is not claude's unless a call announced it (the tools route saves through the editor)", async () => {
    await fs.writeFile(file('saved.txt'), 'mine\n');
    const t = tracker({ fallback: async () => ({ bytes: Buffer.from('mine\n'), source: 'git' }) });
    t.noteCall(1);
    await fs.writeFile(file('saved.txt'), 'mine, edited\n');
    expect(await t.fileChanged(file('saved.txt'), { byEditor: true })).toBeUndefined();
    await t.beforeWrite(3, file('saved.txt'), 'tools-route', { bytes: Buffer.from('mine, edited\n') });
    await fs.writeFile(file('saved.txt'), "claude's\n");
    expect(await t.fileChanged(file('saved.txt'), { byEditor: true })).toMatchObject({ attribution: 'certain', source: 'tools-route' });
  });

  test('two sessions: each change goes to the session whose call announced it', async () => {
    await fs.writeFile(file('x'), 'x0');
    await fs.writeFile(file('y'), 'y0');
    const t = tracker();
    await t.beforeWrite(1, file('x'), 'baseline');
    clock += 5;
    await t.beforeWrite(2, file('y'), 'baseline');
    await fs.writeFile(file('y'), 'y1');
    await fs.writeFile(file('x'), 'x1');
    clock += 5;
    await t.fileChanged(file('y'));
    await t.fileChanged(file('x'));
    expect(t.list().map((s) => [s.label, s.files.map((f) => path.basename(f.path))])).toEqual([
      ['one', ['x']],
      ['two', ['y']],
    ]);
  });

  test('undo of one hunk leaves the others byte for byte; keep of one hunk moves the baseline; the last one settles the file', async () => {
    const before = 'l1\r\nl2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7';
    const after = 'l1\r\nL2\r\nl3\r\nl4\r\nl5\r\nL6\r\nl7\r\nl8';
    await fs.writeFile(file('h.txt'), before);
    const t = tracker();
    await t.beforeWrite(1, file('h.txt'), 'baseline');
    await fs.writeFile(file('h.txt'), after);
    await t.fileChanged(file('h.txt'));
    // The editor's quick diff names the second change as current line 6 (1-based); with the last line
    // gaining its newline, that hunk runs to the end (l6, l7 → L6, l7, l8).
    expect(await t.undoHunk('claude-pid-11', file('h.txt'), { startLine: 6, endLine: 6 }, no)).toBe(true);
    expect((await read('h.txt')).toString()).toBe('l1\r\nL2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7');
    await t.fileChanged(file('h.txt')); // the watcher reports the undo's write
    expect(t.list()[0].files).toHaveLength(1);
    // Keep the first: the before-image takes L2, and nothing differs any more.
    await fs.writeFile(file('h.txt'), 'l1\r\nL2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7\r\nl8');
    await t.fileChanged(file('h.txt'));
    await t.keepHunk('claude-pid-11', file('h.txt'), { startLine: 2, endLine: 2 });
    expect(t.list()[0].files).toHaveLength(1);
    const entry = t.list()[0].files[0];
    expect((await t.bytesOf(entry.before)).toString()).toBe('l1\r\nL2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7');
    // What is left is the end (l7 gains its newline, l8 is added): undo it, and the file is settled.
    await t.undoHunk('claude-pid-11', file('h.txt'), { index: 0 }, no);
    expect((await read('h.txt')).toString()).toBe('l1\r\nL2\r\nl3\r\nl4\r\nl5\r\nl6\r\nl7');
    expect(t.list()[0].files).toEqual([]);
  });

  test('lines edited after claude are not overwritten without asking (hunk and file), and a refusal changes nothing', async () => {
    await fs.writeFile(file('c.txt'), 'a\nb\nc\nd\ne\n');
    const t = tracker();
    await t.beforeWrite(1, file('c.txt'), 'baseline');
    await fs.writeFile(file('c.txt'), 'a\nB\nc\nd\nE\n');
    await t.fileChanged(file('c.txt'));
    // The user changes claude's line B afterwards, with their own editor (not seen as claude's).
    await fs.writeFile(file('c.txt'), 'a\nB, mine\nc\nd\nE\n');
    const questions: string[] = [];
    const ask = async (q: string) => (questions.push(q), false);
    expect(await t.undoHunk('claude-pid-11', file('c.txt'), { startLine: 2, endLine: 2 }, ask)).toBe(false);
    expect(questions).toHaveLength(1);
    expect((await read('c.txt')).toString()).toBe('a\nB, mine\nc\nd\nE\n');
    // The other hunk was not edited: undone without a question.
    expect(await t.undoHunk('claude-pid-11', file('c.txt'), { startLine: 5, endLine: 5 }, ask)).toBe(true);
    expect(questions).toHaveLength(1);
    expect((await read('c.txt')).toString()).toBe('a\nB, mine\nc\nd\ne\n');
    await t.fileChanged(file('c.txt'));
    // The whole file: asked, since its content is no longer what claude left.
    await fs.writeFile(file('c.txt'), 'a\nB, mine again\nc\nd\ne\n');
    expect(await t.undoFile('claude-pid-11', file('c.txt'), ask)).toBe(false);
    expect((await read('c.txt')).toString()).toBe('a\nB, mine again\nc\nd\ne\n');
    expect(await t.undoFile('claude-pid-11', file('c.txt'), yes)).toBe(true);
    expect((await read('c.txt')).toString()).toBe('a\nb\nc\nd\ne\n');
  });

  test('an undo is undone by redo: the file gets back what it held and is listed again', async () => {
    await fs.writeFile(file('r.txt'), 'before\n');
    const t = tracker();
    await t.beforeWrite(1, file('r.txt'), 'baseline');
    await fs.writeFile(file('r.txt'), 'claude\n');
    await t.fileChanged(file('r.txt'));
    await t.undoFile('claude-pid-11', file('r.txt'), no);
    expect(t.canRedo()).toBe(true);
    expect(await t.redo()).toBe(file('r.txt'));
    expect((await read('r.txt')).toString()).toBe('claude\n');
    expect(t.list()[0].files.map((f) => f.path)).toEqual([file('r.txt')]);
    // The watcher's report of the redo's write does not change the entry.
    await t.fileChanged(file('r.txt'));
    expect((await t.bytesOf(t.list()[0].files[0].before)).toString()).toBe('before\n');
  });

  test('a file with unsaved edits in the editor is not undone (they would be lost); binary files are undone whole, not by hunk', async () => {
    await fs.writeFile(file('d.txt'), 'd0\n');
    await fs.writeFile(file('b.bin'), Buffer.from([0, 1, 2, 10, 3]));
    const t = tracker({ isDirty: (p) => p === file('d.txt') });
    await t.beforeWrite(1, file('d.txt'), 'baseline');
    await t.beforeWrite(1, file('b.bin'), 'baseline');
    await fs.writeFile(file('d.txt'), 'd1\n');
    await fs.writeFile(file('b.bin'), Buffer.from([0, 1, 9, 10, 3]));
    await t.fileChanged(file('d.txt'));
    await t.fileChanged(file('b.bin'));
    await expect(t.undoFile('claude-pid-11', file('d.txt'), yes)).rejects.toThrow(/unsaved changes in the editor: save or revert them first/);
    expect((await read('d.txt')).toString()).toBe('d1\n');
    await expect(t.undoHunk('claude-pid-11', file('b.bin'), { index: 0 }, yes)).rejects.toThrow(/keep or undo it whole/);
    await t.undoFile('claude-pid-11', file('b.bin'), yes);
    expect(await read('b.bin')).toEqual(Buffer.from([0, 1, 2, 10, 3]));
  });

  test('the saved state lists the same changes after a reload, and undo still works from it', async () => {
    await fs.writeFile(file('p.txt'), 'p0\n');
    const t = tracker();
    await t.beforeWrite(1, file('p.txt'), 'baseline');
    await fs.writeFile(file('p.txt'), 'p1\n');
    await t.fileChanged(file('p.txt'));
    const reloaded = tracker({ state: saved });
    expect(reloaded.list()).toMatchObject([{ id: 'claude-pid-11', files: [{ path: file('p.txt'), attribution: 'certain' }] }]);
    await reloaded.undoFile('claude-pid-11', file('p.txt'), no);
    expect((await read('p.txt')).toString()).toBe('p0\n');
  });

  test("a rejected review cancels its capture: a later save of the file is not claude's", async () => {
    await fs.writeFile(file('rej.txt'), 'r0\n');
    const t = tracker();
    await t.beforeWrite(1, file('rej.txt'), 'openDiff');
    t.writeCancelled(1, file('rej.txt'));
    await fs.writeFile(file('rej.txt'), 'user\n');
    expect(await t.fileChanged(file('rej.txt'), { byEditor: true })).toBeUndefined();
  });
});

describe('isWritersTempFile', () => {
  test("claude's temporary files (2.1: 12 hex digits; before: a ms timestamp) and sed -i's are recognised by name (one that stays is a file of its own: test/harden/controlFiles.test.ts)", () => {
    const { isWritersTempFile } = jest.requireActual<typeof import('../../../src/changes/changeTracker')>('../../../src/changes/changeTracker');
    expect(isWritersTempFile('/w/a.txt.tmp.25923.f44e3cc5f89f')).toBe(true);
    expect(isWritersTempFile('/w/a.txt.tmp.1552.1795609061437')).toBe(true);
    expect(isWritersTempFile('/w/sedAb12Cd')).toBe(true);
    expect(isWritersTempFile('/w/a.txt')).toBe(false);
    expect(isWritersTempFile('/w/notes.tmp')).toBe(false);
    expect(isWritersTempFile('/w/sed.txt')).toBe(false);
  });
});

describe('ChangeTracker: the content last seen is the before-image of a change no call announced', () => {
  test('a file kept, then changed by claude\'s shell: "before" is the kept content, not git\'s older one', async () => {
    const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-tracker-known-')));
    try {
      const file = path.join(root, 'k.txt');
      await fs.writeFile(file, 'k1\nk2\nk3\n');
      const t = new ChangeTracker({
        store: new BeforeImageStore(path.join(root, '.store')),
        sessionOf: () => ({ id: 's', label: 'claude' }),
        save: () => undefined,
        fallback: async () => ({ bytes: Buffer.from('k1\nk2\nk3\n'), source: 'git' }),
      });
      await t.beforeWrite(1, file, 'baseline');
      await fs.writeFile(file, 'k1\nK2\nk3\n');
      await t.fileChanged(file);
      await t.keepFile('s', file);
      // claude's Bash changes the last line: no call names the file.
      await fs.writeFile(file, 'k1\nK2\nK3\n');
      const change = await t.fileChanged(file);
      expect(change).toMatchObject({ attribution: 'uncertain', source: 'last-known' });
      expect((await t.bytesOf(change!.before)).toString()).toBe('k1\nK2\nk3\n');
      // Undo gives back the kept state, not git's.
      await t.undoFile('s', file, async () => true);
      expect(await fs.readFile(file, 'utf8')).toBe('k1\nK2\nk3\n');
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
