import { changeHunks, hunksEditedSince, keepHunk, MAX_CHANGED_LINES, undoHunk } from '../../../src/changes/changeHunks';

describe('changeHunks', () => {
  const before = 'one\ntwo\nthree\nfour\nfive\n';
  const current = 'one\nTWO\nthree\nfour\nfive\nsix\n';

  test('lists each run of changed lines with its place on both sides', () => {
    expect(changeHunks(before, current)).toEqual([
      { index: 0, before: { start: 1, lines: ['two\n'] }, current: { start: 1, lines: ['TWO\n'] } },
      { index: 1, before: { start: 5, lines: [] }, current: { start: 5, lines: ['six\n'] } },
    ]);
  });

  test('undoing a hunk gives its lines back and leaves the others', () => {
    expect(undoHunk(before, current, 0)).toBe('one\ntwo\nthree\nfour\nfive\nsix\n');
    expect(undoHunk(before, current, 1)).toBe('one\nTWO\nthree\nfour\nfive\n');
  });

  test('keeping a hunk moves the before-image, so only the other hunks remain', () => {
    const kept = keepHunk(before, current, 0);
    expect(kept).toBe('one\nTWO\nthree\nfour\nfive\n');
    expect(changeHunks(kept, current)).toHaveLength(1);
    expect(changeHunks(kept, current)![0].current.lines).toEqual(['six\n']);
  });

  test('line endings, a missing final newline and a BOM come back byte for byte', () => {
    const b = '\uFEFFa\r\nb\r\nc';
    const c = '\uFEFFa\r\nB\nc\n';
    const hunks = changeHunks(b, c)!;
    expect(hunks.length).toBeGreaterThan(0);
    let text = c;
    while (changeHunks(b, text)!.length > 0) text = undoHunk(b, text, 0);
    expect(text).toBe(b);
    expect(Buffer.from(text)).toEqual(Buffer.from(b));
  });

  test('a changed line ending alone is a hunk (undo restores \\r\\n)', () => {
    const hunks = changeHunks('a\r\nb\r\n', 'a\nb\r\n')!;
    expect(hunks).toHaveLength(1);
    expect(undoHunk('a\r\nb\r\n', 'a\nb\r\n', 0)).toBe('a\r\nb\r\n');
  });

  test('a hunk that no longer exists is refused with a reason', () => {
    expect(() => undoHunk(before, current, 2)).toThrow(/no hunk 2 \(the file has 2\)/);
    expect(() => keepHunk(before, current, -1)).toThrow(/no hunk -1/);
    expect(() => undoHunk(before, before, 0)).toThrow(/the file has 0/);
  });

  test('texts that differ in more lines than the bound are not diffed: whole-file only', () => {
    const many = (prefix: string) => Array.from({ length: MAX_CHANGED_LINES }, (_, i) => `${prefix}${i}\n`).join('');
    expect(changeHunks(many('a'), many('b'))).toBeUndefined();
    expect(() => undoHunk(many('a'), many('b'), 0)).toThrow(/undo or keep it whole/);
  });

  test('random edits: undoing every hunk gives the before-image, keeping every hunk gives the current text', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const endings = ['\n', '\r\n', ''];
    const text = (lines: string[]) => lines.map((l, i) => l + (i === lines.length - 1 ? endings[random(3)] : endings[random(2)])).join('');
    for (let round = 0; round < 300; round++) {
      const base = Array.from({ length: 1 + random(12) }, () => `l${random(6)}`);
      const edited = base.flatMap((line) => {
        const r = random(6);
        return r === 0 ? [] : r === 1 ? [`x${random(4)}`] : r === 2 ? [line, `n${random(4)}`] : [line];
      });
      const b = text(base);
      const c = text(edited.length ? edited : ['only']);
      let undone = c;
      for (let guard = 0; changeHunks(b, undone)!.length > 0; guard++) {
        const hunks = changeHunks(b, undone)!;
        undone = undoHunk(b, undone, random(hunks.length));
        expect(guard).toBeLessThan(100);
      }
      expect(undone).toBe(b);
      let kept = b;
      while (changeHunks(kept, c)!.length > 0) kept = keepHunk(kept, c, 0);
      expect(kept).toBe(c);
    }
  });
});

describe('hunksEditedSince', () => {
  const before = 'a\nb\nc\nd\ne\nf\ng\n';
  const claudeLeft = 'a\nB\nc\nd\ne\nF\ng\n';

  test('nothing edited since claude: no hunk is touched', () => {
    const hunks = changeHunks(before, claudeLeft)!;
    expect(hunksEditedSince(claudeLeft, claudeLeft, hunks)).toEqual(new Set());
  });

  test("the user changed a line of claude's hunk: that hunk only", () => {
    const now = 'a\nBB\nc\nd\ne\nF\ng\n';
    const hunks = changeHunks(before, now)!;
    expect(hunksEditedSince(claudeLeft, now, hunks)).toEqual(new Set([0]));
  });

  test('an edit right next to a hunk touches it; one farther away does not', () => {
    const nextTo = 'a\nB\nC\nd\ne\nF\ng\n';
    const hunksNextTo = changeHunks(before, nextTo)!;
    // B and C are one hunk against the before-image now, and C is the user's.
    expect(hunksEditedSince(claudeLeft, nextTo, hunksNextTo)).toEqual(new Set([0]));
    const away = 'a\nB\nc\nD\ne\nF\ng\n';
    const hunksAway = changeHunks(before, away)!;
    expect(hunksAway).toHaveLength(3);
    // D is its own hunk (the user's), two lines away from both of claude's.
    expect(hunksEditedSince(claudeLeft, away, hunksAway)).toEqual(new Set([1]));
  });

  test('lines the user deleted next to a hunk touch it', () => {
    const now = 'a\nB\nd\ne\nF\ng\n'; // c deleted, right after claude's B
    const hunks = changeHunks(before, now)!;
    expect(hunksEditedSince(claudeLeft, now, hunks)!.has(0)).toBe(true);
  });
});

describe('hunkAtLines: the quick diff peek names a change by its lines in the file now', () => {
  const { changeHunks, hunkAtLines } = jest.requireActual<typeof import('../../../src/changes/changeHunks')>('../../../src/changes/changeHunks');
  const hunks = changeHunks('a\nb\nc\nd\ne\nf\n', 'a\nB\nc\ne\nf\nG\nH\n')!;
  // Hunks: b→B (line 2), d deleted (after line 3), +G, H at the end (lines 6-7).
  test('a changed line, a deletion (end 0) and added lines each map to their hunk', () => {
    expect(hunks.map((h) => [h.current.start, h.current.lines.length])).toEqual([
      [1, 1],
      [3, 0],
      [5, 2],
    ]);
    expect(hunkAtLines(hunks, 2, 2)).toBe(0);
    expect(hunkAtLines(hunks, 3, 0)).toBe(1);
    expect(hunkAtLines(hunks, 6, 7)).toBe(2);
    expect(hunkAtLines(hunks, 7, 7)).toBe(2);
  });
  test('lines with no change of claude are no hunk (the file changed since the peek opened)', () => {
    expect(hunkAtLines(hunks, 4, 4)).toBeUndefined();
    expect(hunkAtLines(hunks, 1, 0)).toBeUndefined();
  });
});
