import { conflictRegions, conflictsLeft, keptLines, mergeUnsavedEdits, OURS_MARKER, SEPARATOR_MARKER, THEIRS_MARKER } from '../../../src/review/threeWayMerge';
import { NodeTextCodec } from '../../../src/workspace/encodings';
import { withEol } from '../../../src/workspace/textFormat';

const saved = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';

describe("mergeUnsavedEdits (saved file, the user's buffer, Claude's proposal)", () => {
  test('disjoint edits: both kept, no conflict', () => {
    const unsaved = 'ONE (typed)\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const proposal = 'one\ntwo\nthree\nfour\nfive\nSIX by claude\nseven\n';
    expect(mergeUnsavedEdits(saved, unsaved, proposal)).toEqual({
      text: 'ONE (typed)\ntwo\nthree\nfour\nfive\nSIX by claude\nseven\n',
      conflicts: 0,
      tooLarge: false,
    });
  });

  test('the same change on both sides is no conflict', () => {
    const both = 'one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n';
    expect(mergeUnsavedEdits(saved, both, both)).toEqual({ text: both, conflicts: 0, tooLarge: false });
  });

  test('insertions at the end by the user and in the middle by claude', () => {
    const unsaved = `${saved}eight\n`;
    const proposal = saved.replace('four\n', 'four\nfour and a half\n');
    expect(mergeUnsavedEdits(saved, unsaved, proposal).text).toBe(`${proposal}eight\n`);
  });

  test("overlapping edits: git's markers, the user's lines first; counted by conflictsLeft", () => {
    const unsaved = 'one\ntwo\nthree (mine)\nfour\nfive\nsix\nseven\n';
    const proposal = 'one\ntwo\nthree (claude)\nfour\nfive\nsix\nSEVEN\n';
    const merged = mergeUnsavedEdits(saved, unsaved, proposal);
    expect(merged.conflicts).toBe(1);
    expect(merged.text).toBe(`one\ntwo\n${OURS_MARKER}\nthree (mine)\n${SEPARATOR_MARKER}\nthree (claude)\n${THEIRS_MARKER}\nfour\nfive\nsix\nSEVEN\n`);
    expect(conflictsLeft(merged.text)).toBe(1);
    expect(conflictsLeft(withEol(merged.text, '\r\n'))).toBe(1);
    // Resolved by hand: nothing left.
    expect(conflictsLeft('one\ntwo\nthree (both)\nfour\n')).toBe(0);
  });

  test('a Write over a dirty buffer: a conflict over what the Write changed, clean where it kept the text', () => {
    const write = 'brand\nnew\ncontent\n';
    const typedAtTop = 'one (typed)\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const whole = mergeUnsavedEdits(saved, typedAtTop, write);
    expect(whole.conflicts).toBe(1);
    expect(whole.text).toBe(`${OURS_MARKER}\none (typed)\ntwo\nthree\nfour\nfive\nsix\nseven\n${SEPARATOR_MARKER}\nbrand\nnew\ncontent\n${THEIRS_MARKER}\n`);
    // The Write left lines 4-7 as they were: the user's edit there merges.
    const writeKeepingEnd = 'ONE\nTWO\nfour\nfive\nsix\nseven\n';
    const typedAtEnd = 'one\ntwo\nthree\nfour\nfive\nsix\nseven (typed)\n';
    expect(mergeUnsavedEdits(saved, typedAtEnd, writeKeepingEnd)).toEqual({
      text: 'ONE\nTWO\nfour\nfive\nsix\nseven (typed)\n',
      conflicts: 0,
      tooLarge: false,
    });
  });

  test("CRLF and a BOM on any side: merged on lines, answered with \\n and no BOM (the caller restores the file's)", () => {
    const crlf = (t: string) => withEol(t, '\r\n');
    const unsaved = 'ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const proposal = 'one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n';
    const expected = 'ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n';
    expect(mergeUnsavedEdits(`\uFEFF${crlf(saved)}`, crlf(unsaved), proposal).text).toBe(expected);
    expect(mergeUnsavedEdits(crlf(saved), `\uFEFF${unsaved}`, crlf(proposal)).text).toBe(expected);
    expect(withEol(mergeUnsavedEdits(crlf(saved), crlf(unsaved), crlf(proposal)).text, '\r\n')).toBe(crlf(expected));
  });

  test('a final newline: added by one side, kept; a last line without one stays without', () => {
    expect(mergeUnsavedEdits('a\nx\nb', 'A\nx\nb', 'a\nx\nb\n').text).toBe('A\nx\nb\n');
    expect(mergeUnsavedEdits('a\nb\nc', 'A\nb\nc', 'a\nb\nC').text).toBe('A\nb\nC');
  });

  test('a conflict on a last line without a line break still puts each marker on its own line', () => {
    const merged = mergeUnsavedEdits('a\nb', 'a\nmine', 'a\ntheirs');
    expect(merged.text).toBe(`a\n${OURS_MARKER}\nmine\n${SEPARATOR_MARKER}\ntheirs\n${THEIRS_MARKER}\n`);
  });

  test('empty files and a new buffer', () => {
    expect(mergeUnsavedEdits('', 'typed\n', 'proposed\n').conflicts).toBe(1);
    expect(mergeUnsavedEdits('', '', 'proposed\n').text).toBe('proposed\n');
    expect(mergeUnsavedEdits('x\n', '', 'x\ny\n').conflicts).toBe(1);
  });

  test('a Latin-1 file: bytes the merge did not touch come back exactly', async () => {
    const codec = new NodeTextCodec(() => 'iso88591');
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0x6e, 0x61, 0xef, 0x76, 0x65, 0x0d, 0x0a, 0x7a, 0x0d, 0x0a]); // café\r\nnaïve\r\nz\r\n
    const base = await codec.decode(bytes, 'iso88591');
    const unsaved = base.replace('café', 'café crème');
    const proposal = base.replace('z', 'Z');
    const merged = mergeUnsavedEdits(base, unsaved, proposal);
    const written = Buffer.from(await codec.encode(withEol(merged.text, '\r\n'), 'iso88591'));
    expect(written).toEqual(Buffer.from('café crème\r\nnaïve\r\nZ\r\n', 'latin1'));
  });

  // The 1 MB file with 10,000 disjoint edits and its timing: bench/merge.bench.ts.
  test('a 200 kB file with 2,000 disjoint edits merges without a conflict', () => {
    const lines = Array.from({ length: 7_000 }, (_, i) => (i % 3 === 0 ? '  }\n' : i % 3 === 1 ? '\n' : `  statement(${i}); // ${'x'.repeat(60)}\n`));
    const base = lines.join('');
    expect(base.length).toBeGreaterThan(200_000);
    const ours = [...lines];
    const theirs = [...lines];
    for (let k = 0; k < 1_000; k++) {
      ours[k * 7] = `mine ${k}\n`;
      theirs[k * 7 + 3] = `claude ${k}\n`;
    }
    const expected = lines.map((line, i) => (i % 7 === 0 ? ours[i] : i % 7 === 3 ? theirs[i] : line)).join('');
    expect(mergeUnsavedEdits(base, ours.join(''), theirs.join(''))).toEqual({ text: expected, conflicts: 0, tooLarge: false });
  });

  test('a proposal that reverses the lines of a large file: one conflict, without the quadratic diff', () => {
    const lines = Array.from({ length: 35_000 }, (_, i) => `line ${i}\n`);
    const ours = [...lines];
    ours[3] = 'typed\n';
    const merged = mergeUnsavedEdits(lines.join(''), ours.join(''), [...lines].reverse().join(''));
    expect(merged).toMatchObject({ conflicts: 1, tooLarge: true });
  });

  test('two texts too different to diff in bounded work: one conflict, at once', () => {
    const base = Array.from({ length: 40_000 }, (_, i) => `old ${i}\n`).join('');
    const ours = base.replace('old 7\n', 'typed\n');
    const theirs = Array.from({ length: 40_000 }, (_, i) => `new ${i}\n`).join('');
    const merged = mergeUnsavedEdits(base, ours, theirs);
    expect(merged).toMatchObject({ conflicts: 1, tooLarge: true });
    expect(merged.text).toBe(`${OURS_MARKER}\n${ours}${SEPARATOR_MARKER}\n${theirs}${THEIRS_MARKER}\n`);
  });
});

describe("conflictRegions / keptLines (the lenses over a review's conflicts)", () => {
  const merged = mergeUnsavedEdits('a\nb\nc\nd\ne\n', 'a\nB mine\nc\nd\nE mine\n', 'a\nB claude\nc\nd\nE claude\n');

  test('each conflict of a merge, with its sides, in order', () => {
    expect(merged.conflicts).toBe(2);
    const regions = conflictRegions(merged.text);
    expect(regions.map((r) => ({ ours: r.ours, theirs: r.theirs }))).toEqual([
      { ours: ['B mine'], theirs: ['B claude'] },
      { ours: ['E mine'], theirs: ['E claude'] },
    ]);
    const lines = merged.text.split('\n');
    for (const r of regions) expect([lines[r.start], lines[r.separator], lines[r.end]]).toEqual([OURS_MARKER, SEPARATOR_MARKER, THEIRS_MARKER]);
  });

  test('keeping one side or both', () => {
    const [first] = conflictRegions(merged.text);
    expect(keptLines(first, 'ours')).toEqual(['B mine']);
    expect(keptLines(first, 'theirs')).toEqual(['B claude']);
    expect(keptLines(first, 'both')).toEqual(['B mine', 'B claude']);
  });

  test('markers the user broke make no region: a deleted separator, a conflict started inside another, markers out of order', () => {
    expect(conflictRegions(`${OURS_MARKER}\nx\n${THEIRS_MARKER}\n`)).toEqual([]);
    expect(conflictRegions(`${OURS_MARKER}\nx\n${OURS_MARKER}\ny\n${SEPARATOR_MARKER}\nz\n${THEIRS_MARKER}\n`)).toEqual([
      { start: 2, separator: 4, end: 6, ours: ['y'], theirs: ['z'] },
    ]);
    expect(conflictRegions(`${THEIRS_MARKER}\n${SEPARATOR_MARKER}\n${OURS_MARKER}\n`)).toEqual([]);
    expect(conflictRegions('no markers\n')).toEqual([]);
  });

  test('CRLF text: the same regions', () => {
    expect(conflictRegions(merged.text.replace(/\n/g, '\r\n'))).toEqual(conflictRegions(merged.text));
  });
});
