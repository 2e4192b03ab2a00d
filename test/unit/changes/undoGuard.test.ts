import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../../src/changes/beforeImageStore';
import { ChangeLedger, type FileChange, type Image, type LedgerState } from '../../../src/changes/changeLedger';
import { ChangeTracker, type ChangeTrackerDeps } from '../../../src/changes/changeTracker';

// Claude writing again over the user's undo (issue 24, point 4): real files, the real store, as the VS Code
// side drives the tracker (the baseline capture, then the watcher's report of the write).
describe("ChangeTracker: claude's write over the user's undo", () => {
  let root: string;
  let clock: number;
  let saved: LedgerState | undefined;
  const yes = async () => true;
  const no = async () => false;
  const S = 'claude-pid-11';

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-undoguard-')));
    clock = 1_000;
    saved = undefined;
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  function tracker(extra: Partial<ChangeTrackerDeps> = {}): { t: ChangeTracker; warned: Array<[string, FileChange]> } {
    const t = new ChangeTracker({
      store: new BeforeImageStore(path.join(root, '.store')),
      sessionOf: (id) => (id === 1 ? { id: S, label: 'one' } : id === 2 ? { id: 'claude-pid-22', label: 'two' } : undefined),
      save: (state) => (saved = JSON.parse(JSON.stringify(state))),
      now: () => clock,
      ...extra,
    });
    const warned: Array<[string, FileChange]> = [];
    t.onDidRewriteUndo((session, change) => warned.push([session, change]));
    return { t, warned };
  }
  const file = (name: string) => path.join(root, name);
  const read = (name: string) => fs.readFile(file(name));
  /** Claude's write as the CLI does it: the baseline getDiagnostics {uri}, the write, the watcher's report. */
  async function claudeWrites(t: ChangeTracker, name: string, content: string | Buffer, connection = 1): Promise<FileChange | undefined> {
    clock += 100;
    await t.beforeWrite(connection, file(name), 'baseline');
    await fs.writeFile(file(name), content);
    clock += 20;
    return t.fileChanged(file(name));
  }
  const listed = (t: ChangeTracker, name: string, session = S) =>
    t
      .list()
      .find((s) => s.id === session)
      ?.files.find((f) => f.path === file(name));

  test("a Write over a file the user undid is listed flagged and warned about once; Undo Again restores the undo's bytes exactly; Redo takes that back", async () => {
    const before = Buffer.from('\ufeffone\r\ntwo\r\nthree', 'utf8');
    await fs.writeFile(file('a.txt'), before);
    const { t, warned } = tracker();
    await claudeWrites(t, 'a.txt', '\ufeffone\r\nTWO\r\nthree');
    expect(await t.undoFile(S, file('a.txt'), no)).toBe(true);
    expect(await t.fileChanged(file('a.txt'))).toBeUndefined(); // the undo's own write
    expect(warned).toEqual([]);

    // Next prompt: claude writes the whole file again.
    await claudeWrites(t, 'a.txt', 'rewritten\n');
    expect(listed(t, 'a.txt')).toMatchObject({ attribution: 'certain', rewroteUndo: { undoneAt: expect.any(Number) } });
    expect(warned.map(([session, change]) => [session, change.path])).toEqual([[S, file('a.txt')]]);
    // Its next write is the same overwrite: flagged still, not warned about again.
    await claudeWrites(t, 'a.txt', 'rewritten twice\n');
    expect(warned).toHaveLength(1);
    expect(listed(t, 'a.txt')?.rewroteUndo).toBeDefined();

    expect(await t.undoAgain(S, file('a.txt'), no)).toBe(true);
    expect(await read('a.txt')).toEqual(before);
    expect(listed(t, 'a.txt')).toBeUndefined();
    expect(await t.fileChanged(file('a.txt'))).toBeUndefined();
    // Undo Again is an undo like any other: taken back by Redo, and remembered (a third write is flagged).
    expect(await t.redo()).toBe(file('a.txt'));
    expect((await read('a.txt')).toString()).toBe('rewritten twice\n');
    expect(listed(t, 'a.txt')).toBeDefined();
    expect(await t.undoAgain(S, file('a.txt'), no)).toBe(true);
    await claudeWrites(t, 'a.txt', 'third\n');
    expect(warned).toHaveLength(2);
  });

  test('after a hunk undo only a write touching the restored lines is flagged; Undo Again gives back what the undo left', async () => {
    const base = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n';
    await fs.writeFile(file('h.txt'), base);
    const { t, warned } = tracker();
    await claudeWrites(t, 'h.txt', 'l1\nL2\nl3\nl4\nl5\nl6\nL7\nl8\n');
    expect(await t.undoHunk(S, file('h.txt'), { index: 1 }, no)).toBe(true);
    const left = await read('h.txt');
    expect(left.toString()).toBe('l1\nL2\nl3\nl4\nl5\nl6\nl7\nl8\n');

    // An Edit of other lines (the model saw the file changed and left the undone line alone): not flagged.
    await claudeWrites(t, 'h.txt', 'l1\nL2\nl3\nL4\nl5\nl6\nl7\nl8\n');
    expect(listed(t, 'h.txt')?.rewroteUndo).toBeUndefined();
    expect(warned).toEqual([]);
    // A Write putting the undone line back: flagged.
    await claudeWrites(t, 'h.txt', 'l1\nL2\nl3\nL4\nl5\nl6\nL7\nl8\n');
    expect(listed(t, 'h.txt')?.rewroteUndo).toBeDefined();
    expect(warned).toHaveLength(1);
    expect(await t.undoAgain(S, file('h.txt'), no)).toBe(true);
    expect(await read('h.txt')).toEqual(left);
    // Still listed (L2 is claude's, kept neither way), no longer flagged.
    expect(listed(t, 'h.txt')).toMatchObject({ path: file('h.txt') });
    expect(listed(t, 'h.txt')?.rewroteUndo).toBeUndefined();
  });

  test('two hunk undos add up: a write over the first one restored is flagged after the second', async () => {
    await fs.writeFile(file('two.txt'), 'a\nb\nc\nd\ne\n');
    const { t, warned } = tracker();
    await claudeWrites(t, 'two.txt', 'A\nb\nc\nd\nE\n');
    expect(await t.undoHunk(S, file('two.txt'), { index: 0 }, no)).toBe(true);
    expect(await t.undoHunk(S, file('two.txt'), { index: 0 }, no)).toBe(true);
    expect((await read('two.txt')).toString()).toBe('a\nb\nc\nd\ne\n');
    await claudeWrites(t, 'two.txt', 'A\nb\nc\nd\ne\n');
    expect(warned).toHaveLength(1);
  });

  test('a file claude created and the user undid (removed): created again → flagged; Undo Again removes it', async () => {
    const { t, warned } = tracker();
    await claudeWrites(t, 'new.txt', 'new\n');
    expect(await t.undoFile(S, file('new.txt'), no)).toBe(true);
    await expect(fs.stat(file('new.txt'))).rejects.toThrow();
    await claudeWrites(t, 'new.txt', 'new again\n');
    expect(warned).toHaveLength(1);
    expect(await t.undoAgain(S, file('new.txt'), no)).toBe(true);
    await expect(fs.stat(file('new.txt'))).rejects.toThrow();
  });

  test("a write no call announced (claude's Bash) over an undo is flagged too; another session's write as well", async () => {
    await fs.writeFile(file('b.txt'), 'b\n');
    await fs.writeFile(file('c.txt'), 'c\n');
    const { t, warned } = tracker();
    await claudeWrites(t, 'b.txt', 'B\n');
    await claudeWrites(t, 'c.txt', 'C\n');
    expect(await t.undoFile(S, file('b.txt'), no)).toBe(true);
    expect(await t.undoFile(S, file('c.txt'), no)).toBe(true);
    t.noteCall(1);
    await fs.writeFile(file('b.txt'), 'B by sed\n');
    clock += 20;
    await t.fileChanged(file('b.txt'));
    expect(listed(t, 'b.txt')).toMatchObject({ attribution: 'uncertain', rewroteUndo: expect.anything() });
    await claudeWrites(t, 'c.txt', 'C by two\n', 2);
    expect(listed(t, 'c.txt', 'claude-pid-22')?.rewroteUndo).toBeDefined();
    expect(warned.map(([s, c]) => [s, path.basename(c.path)])).toEqual([
      [S, 'b.txt'],
      ['claude-pid-22', 'c.txt'],
    ]);
  });

  test("the user's own save after an undo is not flagged; Keep and Redo clear the undo, so a later write is an ordinary change", async () => {
    await fs.writeFile(file('k.txt'), 'k\n');
    await fs.writeFile(file('r.txt'), 'r\n');
    const { t, warned } = tracker();
    await claudeWrites(t, 'k.txt', 'K\n');
    expect(await t.undoFile(S, file('k.txt'), no)).toBe(true);
    await fs.writeFile(file('k.txt'), 'k mine\n');
    expect(await t.fileChanged(file('k.txt'), { byEditor: true })).toBeUndefined();
    await claudeWrites(t, 'k.txt', 'K again\n');
    expect(warned).toHaveLength(1);
    await t.keepFile(S, file('k.txt'));
    await claudeWrites(t, 'k.txt', 'K third\n');
    expect(listed(t, 'k.txt')?.rewroteUndo).toBeUndefined();

    await claudeWrites(t, 'r.txt', 'R\n');
    expect(await t.undoFile(S, file('r.txt'), no)).toBe(true);
    expect(await t.redo()).toBe(file('r.txt'));
    await claudeWrites(t, 'r.txt', 'R again\n');
    expect(listed(t, 'r.txt')?.rewroteUndo).toBeUndefined();
    expect(warned).toHaveLength(1);
  });

  test("Undo Again does not overwrite lines edited after claude's new write without asking; a refusal changes nothing; a file not flagged is refused", async () => {
    await fs.writeFile(file('e.txt'), 'e\n');
    const { t } = tracker();
    await claudeWrites(t, 'e.txt', 'E\n');
    expect(await t.undoFile(S, file('e.txt'), no)).toBe(true);
    await claudeWrites(t, 'e.txt', 'E again\n');
    await fs.writeFile(file('e.txt'), 'E again, and mine\n');
    expect(await t.undoAgain(S, file('e.txt'), no)).toBe(false);
    expect((await read('e.txt')).toString()).toBe('E again, and mine\n');
    expect(await t.undoAgain(S, file('e.txt'), yes)).toBe(true);
    expect((await read('e.txt')).toString()).toBe('e\n');

    await fs.writeFile(file('n.txt'), 'n\n');
    await claudeWrites(t, 'n.txt', 'N\n');
    await expect(t.undoAgain(S, file('n.txt'), yes)).rejects.toThrow(/not written again after an undo: use Undo/);
    expect((await read('n.txt')).toString()).toBe('N\n');
  });

  test("the editor's Undo (Ctrl+Z) of an undo, saved: listed again as Redo does, the undo forgotten; its Redo, saved: undone again, and remembered", async () => {
    await fs.writeFile(file('z.txt'), 'z1\nz2\n');
    const { t, warned } = tracker();
    await claudeWrites(t, 'z.txt', 'z1\nZ2\n');
    expect(await t.undoFile(S, file('z.txt'), no)).toBe(true);
    // VS Code reloaded the editor with the undo; Ctrl+Z gives claude's text back, the user saves it.
    clock += 1_000;
    await fs.writeFile(file('z.txt'), 'z1\nZ2\n');
    expect(await t.fileChanged(file('z.txt'), { byEditor: true })).toBeUndefined();
    expect(listed(t, 'z.txt')).toMatchObject({ attribution: 'certain', source: 'baseline' });
    expect(t.canRedo()).toBe(false);
    // Not an overwrite of an undo any more: claude's next write is an ordinary change.
    await claudeWrites(t, 'z.txt', 'z1\nZ2 again\n');
    expect(listed(t, 'z.txt')?.rewroteUndo).toBeUndefined();
    // Ctrl+Y/Ctrl+Z back to the before-image, saved: undone, and a later write over it is flagged.
    await fs.writeFile(file('z.txt'), 'z1\nz2\n');
    expect(await t.fileChanged(file('z.txt'), { byEditor: true })).toBeUndefined();
    expect(listed(t, 'z.txt')).toBeUndefined();
    await claudeWrites(t, 'z.txt', 'z1\nZ2 third\n');
    expect(listed(t, 'z.txt')?.rewroteUndo).toBeDefined();
    expect(warned).toHaveLength(1);
  });

  test("after two hunk undos, the editor's Undo of both, saved: claude's whole change listed again", async () => {
    await fs.writeFile(file('y.txt'), 'a\nb\nc\nd\ne\n');
    const { t } = tracker();
    await claudeWrites(t, 'y.txt', 'A\nb\nc\nd\nE\n');
    expect(await t.undoHunk(S, file('y.txt'), { index: 0 }, no)).toBe(true);
    expect(await t.undoHunk(S, file('y.txt'), { index: 0 }, no)).toBe(true);
    expect(listed(t, 'y.txt')).toBeUndefined();
    await fs.writeFile(file('y.txt'), 'A\nb\nc\nd\nE\n');
    await t.fileChanged(file('y.txt'), { byEditor: true });
    expect(listed(t, 'y.txt')).toBeDefined();
    expect(await t.undoFile(S, file('y.txt'), no)).toBe(true);
    expect((await read('y.txt')).toString()).toBe('a\nb\nc\nd\ne\n');
  });

  test('the undo is remembered across a reload (the saved list): a write after it is still flagged', async () => {
    await fs.writeFile(file('p.txt'), 'p\n');
    const first = tracker();
    await claudeWrites(first.t, 'p.txt', 'P\n');
    expect(await first.t.undoFile(S, file('p.txt'), no)).toBe(true);
    await first.t.settled();
    const state = JSON.parse(JSON.stringify(saved)) as LedgerState;
    expect(state.undos?.map((u) => path.basename(u.path))).toEqual(['p.txt']);
    const { t, warned } = tracker({ state });
    await claudeWrites(t, 'p.txt', 'P again\n');
    expect(warned).toHaveLength(1);
    expect(await t.undoAgain(S, file('p.txt'), no)).toBe(true);
    expect((await read('p.txt')).toString()).toBe('p\n');
  });
});

describe("ChangeLedger: the user's undos", () => {
  const blob = (name: string, size = 10): Image => ({ blob: name.padEnd(64, '0'), size });

  test('kept in the saved state (a list saved before them loads too); their blobs are needed; over the byte bound the oldest go first', () => {
    expect(new ChangeLedger({ version: 1, sessions: [], dropped: undefined }).toJSON().undos).toEqual([]);
    const ledger = new ChangeLedger(undefined, { maxBytes: 100, maxFiles: 10 });
    ledger.sessionStarted('s', 'one', 0);
    ledger.noteUndo({ path: '/w/a', left: blob('a0', 30), undid: blob('a1', 30), whole: true, at: 1 });
    ledger.noteUndo({ path: '/w/b', left: blob('b0', 30), undid: { absent: true }, whole: true, at: 2 });
    expect([...ledger.neededBlobs()].sort()).toEqual([blob('a0'), blob('a1'), blob('b0')].map((b) => ('blob' in b ? b.blob : '')).sort());
    // 90 bytes of undos; a change of 40 more: the oldest undo goes, the change stays.
    ledger.expectWrite('s', '/w/c', blob('c0', 40), 'baseline', 10, 1_000);
    expect(ledger.fileChanged('/w/c', blob('c1', 0), 20, () => undefined)).toBeDefined();
    expect(ledger.undoOf('/w/a')).toBeUndefined();
    expect(ledger.undoOf('/w/b')).toBeDefined();
    expect(ledger.list()[0].files).toHaveLength(1);
    expect(new ChangeLedger(ledger.toJSON()).undoOf('/w/b')).toMatchObject({ left: blob('b0', 30) });
  });
});
