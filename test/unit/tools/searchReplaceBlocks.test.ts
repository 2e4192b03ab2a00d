import {
  applyDiffPayload,
  applySearchReplaceBlocks,
  findLineMatches,
  MAX_APPLY_WORK,
  parseSearchReplaceBlocks,
  quoteSearchForMessage,
  SearchReplaceLimitError,
  SearchReplaceParseError,
} from '../../../src/tools/searchReplaceBlocks';

const block = (search: string, replace: string): string => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;

async function parseErrorOf(payload: string): Promise<SearchReplaceParseError> {
  try {
    await parseSearchReplaceBlocks(payload);
  } catch (err) {
    expect(err).toBeInstanceOf(SearchReplaceParseError);
    return err as SearchReplaceParseError;
  }
  throw new Error('expected a parse error');
}

describe('parseSearchReplaceBlocks', () => {
  it('parses one block', async () => {
    expect(await parseSearchReplaceBlocks(block('old', 'new'))).toEqual([{ index: 1, line: 1, searchLines: ['old'], replaceLines: ['new'] }]);
  });

  it('parses several blocks with prose, code fences and blank lines around them', async () => {
    const payload = `Here are my changes:\n\n\`\`\`\n${block('a\nb', 'A')}\`\`\`\nthen\n\n${block('c', 'C\nD')}\nDone.`;
    const blocks = await parseSearchReplaceBlocks(payload);
    expect(blocks.map((b) => [b.index, b.searchLines, b.replaceLines])).toEqual([
      [1, ['a', 'b'], ['A']],
      [2, ['c'], ['C', 'D']],
    ]);
    expect(blocks[0].line).toBe(4);
  });

  it('accepts CRLF payloads without keeping any \\r', async () => {
    const blocks = await parseSearchReplaceBlocks('<<<<<<< SEARCH\r\nx\r\ny\r\n=======\r\nz\r\n>>>>>>> REPLACE\r\n');
    expect(blocks[0].searchLines).toEqual(['x', 'y']);
    expect(blocks[0].replaceLines).toEqual(['z']);
  });

  it('tolerates trailing whitespace on marker lines', async () => {
    const blocks = await parseSearchReplaceBlocks('<<<<<<< SEARCH  \nx\n=======\t\ny\n>>>>>>> REPLACE \n');
    expect(blocks[0].searchLines).toEqual(['x']);
  });

  it('tells an empty REPLACE (delete) from one empty line', async () => {
    const [del, blank] = await parseSearchReplaceBlocks('<<<<<<< SEARCH\nx\n=======\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ny\n=======\n\n>>>>>>> REPLACE');
    expect(del.replaceLines).toEqual([]);
    expect(blank.replaceLines).toEqual(['']);
  });

  it('unescapes marker lines written with a leading backslash', async () => {
    const [b] = await parseSearchReplaceBlocks('<<<<<<< SEARCH\n\\=======\n\\<<<<<<< SEARCH\n=======\n\\>>>>>>> REPLACE\n\\\\=======\n>>>>>>> REPLACE');
    expect(b.searchLines).toEqual(['=======', '<<<<<<< SEARCH']);
    expect(b.replaceLines).toEqual(['>>>>>>> REPLACE', '\\\\=======']);
  });

  it('fails clearly when "=======" is missing', async () => {
    const err = await parseErrorOf('<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n');
    expect(err.message).toContain('block 1');
    expect(err.message).toContain('expected "=======" after the SEARCH lines');
    expect(err.message).toContain('payload line 3');
    expect(err.message).toContain('No change was applied');
  });

  it('fails clearly when the payload ends inside SEARCH', async () => {
    expect((await parseErrorOf('<<<<<<< SEARCH\nold\n')).message).toContain('ended before the "=======" line');
  });

  it('fails clearly when ">>>>>>> REPLACE" is missing (end of payload or next block)', async () => {
    expect((await parseErrorOf(`${block('a', 'b')}<<<<<<< SEARCH\nx\n=======\ny\n`)).message).toMatch(/block 2 .*ended before the ">>>>>>> REPLACE" line/);
    const err = await parseErrorOf('<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE');
    expect(err.message).toContain('expected ">>>>>>> REPLACE" to end the block');
    expect(err.message).toContain('payload line 5');
  });

  it('rejects a second "=======" in a block and a SEARCH inside SEARCH', async () => {
    expect((await parseErrorOf('<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE')).message).toContain('expected ">>>>>>> REPLACE"');
    expect((await parseErrorOf('<<<<<<< SEARCH\nx\n<<<<<<< SEARCH\n=======\ny\n>>>>>>> REPLACE')).message).toContain(
      'expected "=======" after the SEARCH lines',
    );
  });

  it('rejects markers outside a block', async () => {
    expect((await parseErrorOf('=======\nnew\n>>>>>>> REPLACE')).message).toContain('outside a block');
    expect((await parseErrorOf(`${block('a', 'b')}>>>>>>> REPLACE`)).message).toContain('payload line 6 outside a block');
  });

  it('rejects a payload without blocks', async () => {
    expect((await parseErrorOf('just some prose')).message).toContain('no SEARCH/REPLACE block found');
    expect((await parseErrorOf('')).message).toContain('<<<<<<< SEARCH\n(exact existing lines)');
  });
});

describe('applySearchReplaceBlocks', () => {
  it('replaces exactly the matched lines', async () => {
    const result = await applyDiffPayload('one\ntwo\nthree\n', block('two', 'TWO\n2'));
    expect(result).toEqual({ content: 'one\nTWO\n2\nthree\n', applied: 1, failedBlocks: [] });
  });

  it('applies blocks in order, each to the previous result', async () => {
    const result = await applyDiffPayload('a\nb\n', block('a', 'x') + block('x', 'y') + block('b', 'x'));
    expect(result.content).toBe('y\nx\n');
    expect(result.applied).toBe(3);
  });

  it("inserts replacement text literally ($&, $1, $$, $`, $')", async () => {
    const replacement = "price = $& + $1 + $$ + $` + $' + $<name>";
    const result = await applyDiffPayload('let price = 1;\n', block('let price = 1;', replacement));
    expect(result.content).toBe(`${replacement}\n`);
  });

  it('matches whole lines only, not part of a line', async () => {
    const result = await applyDiffPayload('recount = 0\n', block('count = 0', 'count = 1'));
    expect(result.applied).toBe(0);
    expect(result.content).toBe('recount = 0\n');
    expect(result.failedBlocks[0].reason).toContain('not found');
  });

  it('reports 0 matches quoting the SEARCH and asking to re-read the file', async () => {
    const result = await applyDiffPayload('alpha\nbeta\n', block('gamma\ndelta', 'x'));
    expect(result.applied).toBe(0);
    expect(result.content).toBe('alpha\nbeta\n');
    expect(result.failedBlocks).toHaveLength(1);
    const [failed] = result.failedBlocks;
    expect(failed.index).toBe(1);
    expect(failed.search).toBe('gamma\ndelta');
    expect(failed.reason).toContain('Block 1: SEARCH text not found');
    expect(failed.reason).toContain('gamma\ndelta');
    expect(failed.reason).toContain('re-read the file');
  });

  it('points at a match that differs only in whitespace', async () => {
    const result = await applyDiffPayload('x\n    if (a) {\n', block('  if (a) {', 'y'));
    expect(result.failedBlocks[0].reason).toContain('differ only in whitespace exist at line 2');
  });

  it('shortens long quotes: many lines and long lines', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'z'.repeat(i === 0 ? 500 : 3)}`);
    const quote = quoteSearchForMessage(lines);
    expect(quote.split('\n')).toHaveLength(12);
    expect(quote).toContain('(29 more lines)');
    expect(quote).toContain('(307 more characters)');
    expect(quote).toContain('line 39');
    expect(quote).not.toContain('line 20 ');
    const result = await applyDiffPayload('nothing\n', block(lines.join('\n'), 'x'));
    expect(result.failedBlocks[0].reason.length).toBeLessThan(1500);
    expect(result.failedBlocks[0].search).toBe(lines.join('\n')); // the full text stays available
  });

  it('reports an ambiguous SEARCH with its match count and line numbers', async () => {
    const content = 'x = 1\ny\nx = 1\nz\nx = 1\n';
    const result = await applyDiffPayload(content, block('x = 1', 'x = 2'));
    expect(result.content).toBe(content);
    expect(result.failedBlocks[0].reason).toContain('ambiguous (3 matches found) at lines 1, 3, 5');
    expect(result.failedBlocks[0].reason).toContain('Add surrounding lines');
  });

  it('counts overlapping matches as ambiguous', async () => {
    const result = await applyDiffPayload('a\na\na\n', block('a\na', 'b'));
    expect(result.failedBlocks[0].reason).toContain('ambiguous (2 matches found)');
  });

  it('accepts a SEARCH made unique by a surrounding line', async () => {
    const result = await applyDiffPayload('x = 1\ny\nx = 1\n', block('y\nx = 1', 'y\nx = 2'));
    expect(result.content).toBe('x = 1\ny\nx = 2\n');
  });

  it('applies the other blocks when some fail and reports the failed ones 1-based', async () => {
    const payload = block('a', 'A') + block('missing', 'M') + block('dup', 'D') + block('c', 'C');
    const result = await applyDiffPayload('a\ndup\ndup\nc\n', payload);
    expect(result.content).toBe('A\ndup\ndup\nC\n');
    expect(result.applied).toBe(2);
    expect(result.failedBlocks.map((f) => [f.index, f.search])).toEqual([
      [2, 'missing'],
      [3, 'dup'],
    ]);
    expect(result.failedBlocks[1].reason).toContain('ambiguous (2 matches found)');
  });

  it('rejects an empty or whitespace-only SEARCH as a failed block', async () => {
    const result = await applyDiffPayload('a\n\nb\n', '<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n' + block('  ', 'x') + block('b', 'B'));
    expect(result.content).toBe('a\n\nB\n');
    expect(result.failedBlocks.map((f) => f.index)).toEqual([1, 2]);
    expect(result.failedBlocks[0].reason).toContain('SEARCH section is empty');
  });

  it('works on a CRLF file with an LF payload and keeps CRLF', async () => {
    const result = await applyDiffPayload('one\r\ntwo\r\nthree\r\n', block('two\nthree', 'TWO\nmid\nTHREE'));
    expect(result.content).toBe('one\r\nTWO\r\nmid\r\nTHREE\r\n');
  });

  it('works with a CRLF payload on an LF file and keeps LF', async () => {
    const result = await applyDiffPayload('one\ntwo\n', '<<<<<<< SEARCH\r\ntwo\r\n=======\r\n2\r\n3\r\n>>>>>>> REPLACE\r\n');
    expect(result.content).toBe('one\n2\n3\n');
  });

  it('keeps untouched lines of a mixed-EOL file byte for byte', async () => {
    const content = 'a\r\nb\nc\r\nd\n';
    expect((await applyDiffPayload(content, block('c', 'C'))).content).toBe('a\r\nb\nC\r\nd\n');
  });

  it('keeps the BOM and matches the first line despite it', async () => {
    const result = await applyDiffPayload('\uFEFFfirst\r\nsecond\r\n', block('first', 'FIRST'));
    expect(result.content).toBe('\uFEFFFIRST\r\nsecond\r\n');
  });

  it('keeps a missing final newline when the last line is replaced', async () => {
    expect((await applyDiffPayload('a\nb', block('b', 'B\nC'))).content).toBe('a\nB\nC');
    expect((await applyDiffPayload('a\nb\n', block('b', 'B'))).content).toBe('a\nB\n');
  });

  it('deletes lines for an empty REPLACE, keeping the final-newline state', async () => {
    expect((await applyDiffPayload('a\nb\nc\n', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE')).content).toBe('a\nc\n');
    expect((await applyDiffPayload('a\nb', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE')).content).toBe('a');
    expect((await applyDiffPayload('only\n', '<<<<<<< SEARCH\nonly\n=======\n>>>>>>> REPLACE')).content).toBe('');
  });

  it('replaces with an empty line when REPLACE holds one empty line', async () => {
    expect((await applyDiffPayload('a\nb\nc\n', block('b', ''))).content).toBe('a\n\nc\n');
  });

  it('returns the content untouched (same string) when nothing applied', async () => {
    const content = 'a\r\nb\n';
    const result = await applyDiffPayload(content, block('zzz', 'x'));
    expect(result.content).toBe(content);
    expect(result.applied).toBe(0);
  });

  it('does not apply anything when the payload is malformed', async () => {
    await expect(applyDiffPayload('a\n', `${block('a', 'b')}<<<<<<< SEARCH\na\n`)).rejects.toThrow(SearchReplaceParseError);
  });

  it('applies parsed blocks given directly', async () => {
    const result = await applySearchReplaceBlocks('x\n', [{ index: 7, line: 1, searchLines: ['x'], replaceLines: ['y'] }]);
    expect(result).toEqual({ content: 'y\n', applied: 1, failedBlocks: [] });
    expect(await applySearchReplaceBlocks('x', [])).toEqual({ content: 'x', applied: 0, failedBlocks: [] });
  });

  it('treats a marker-like content line in the file as matchable through escaping', async () => {
    const content = 'before\n=======\nafter\n';
    const result = await applyDiffPayload(content, '<<<<<<< SEARCH\n\\=======\n=======\n---\n>>>>>>> REPLACE');
    expect(result.content).toBe('before\n---\nafter\n');
  });
});

/** The matcher apply_diff had before: every start × every SEARCH line, the reference for the new one. */
function naiveMatches(lines: readonly string[], search: readonly string[], same: (a: string, b: string) => boolean): number[] {
  const found: number[] = [];
  for (let i = 0; i + search.length <= lines.length; i++) {
    let j = 0;
    while (j < search.length && same(lines[i + j], search[j])) j++;
    if (j === search.length) found.push(i);
  }
  return found;
}
const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A small deterministic generator (mulberry32), so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('matching is linear and finds what the naive matcher finds', () => {
  // Few distinct lines, some equal only when whitespace is ignored: many (overlapping) matches.
  const ALPHABET = ['a', 'b', ' a', 'a ', '\ta', 'a  b', 'a b', '', '  ', 'a\u00a0b', '\u3000a\u2028'];

  it('finds the same exact and whitespace-insensitive matches as the naive matcher on random inputs', async () => {
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed);
      const pick = (n: number) => ALPHABET.slice(0, n)[Math.floor(next() * n)];
      const letters = 2 + Math.floor(next() * (ALPHABET.length - 1));
      const lines = Array.from({ length: Math.floor(next() * 60) }, () => pick(letters));
      // Half the SEARCHes are copied from the file (so they match at least once), half are random.
      const length = 1 + Math.floor(next() * 6);
      const from = Math.floor(next() * Math.max(1, lines.length - length));
      const search = next() < 0.5 && lines.length >= length ? lines.slice(from, from + length) : Array.from({ length }, () => pick(letters));
      const found = await findLineMatches(lines, search);
      const context = `seed ${seed}: ${JSON.stringify({ lines, search })}`;
      expect({ context, found: found.exact }).toEqual({ context, found: naiveMatches(lines, search, (x, y) => x === y) });
      expect({ context, found: found.loose }).toEqual({ context, found: naiveMatches(lines, search, (x, y) => collapse(x) === collapse(y)) });
    }
  });

  it('applies random payloads as the naive matcher would: same content, same blocks applied and failed', async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const pick = () => ALPHABET[Math.floor(next() * 4)];
      let lines = Array.from({ length: 1 + Math.floor(next() * 30) }, pick);
      const content = `${lines.join('\n')}\n`;
      const blocks = Array.from({ length: 1 + Math.floor(next() * 4) }, (_, b) => ({
        index: b + 1,
        line: 1,
        searchLines: Array.from({ length: 1 + Math.floor(next() * 3) }, pick).map((l) => (l.trim() === '' ? 'b' : l)),
        replaceLines: Array.from({ length: Math.floor(next() * 3) }, () => `r${b}`),
      }));
      const expected = { applied: 0, failed: [] as number[] };
      for (const block of blocks) {
        const at = naiveMatches(lines, block.searchLines, (x, y) => x === y);
        if (at.length !== 1) expected.failed.push(block.index);
        else {
          lines = [...lines.slice(0, at[0]), ...block.replaceLines, ...lines.slice(at[0] + block.searchLines.length)];
          expected.applied++;
        }
      }
      const result = await applySearchReplaceBlocks(content, blocks);
      const context = `seed ${seed}`;
      expect({ context, applied: result.applied, failed: result.failedBlocks.map((f) => f.index) }).toEqual({ context, ...expected });
      if (expected.applied > 0) expect({ context, content: result.content }).toEqual({ context, content: lines.length ? `${lines.join('\n')}\n` : '' });
    }
  });

  it('answers a 40,000-line file and a 2,000-line SEARCH that only almost matches in linear work', async () => {
    // Every SEARCH line is in the file, so both passes run in full; the old matcher compared up to
    // 2,000 lines at each of 40,000 places (80 million comparisons per pass, seconds of a frozen host).
    const content = `b\n${'a\n'.repeat(40_000)}`;
    const search = [...Array<string>(1999).fill('a'), 'b'];
    const meter = { steps: 0 };
    const result = await applyDiffPayload(content, block(search.join('\n'), 'x'), { meter });
    expect(result.applied).toBe(0);
    expect(result.failedBlocks[0].reason).toContain('SEARCH text not found');
    expect(meter.steps).toBeGreaterThan(40_000); // the file was looked at
    expect(meter.steps).toBeLessThan(10 * (40_001 + 2_000 + 2_003));
  });

  it('finds a whitespace-only difference in a large file in linear work', async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `  line ${i % 100}`);
    lines[30_000] = '  unique line';
    const search = ['unique line', ...lines.slice(30_001, 30_010).map((l) => l.trim())];
    const meter = { steps: 0 };
    const result = await applyDiffPayload(`${lines.join('\n')}\n`, block(search.join('\n'), 'x'), { meter });
    expect(result.failedBlocks[0].reason).toContain('differ only in whitespace exist at line 30001');
    expect(meter.steps).toBeGreaterThan(40_000);
    expect(meter.steps).toBeLessThan(10 * (40_000 + search.length));
  });

  it('replaces with a 200,000-line REPLACE (no call-stack overflow)', async () => {
    const replacement = Array.from({ length: 200_000 }, (_, i) => `line ${i}`);
    const result = await applyDiffPayload('one\ntwo\nthree\n', block('two', replacement.join('\n')));
    expect(result.applied).toBe(1);
    expect(result.content).toBe(`one\n${replacement.join('\n')}\nthree\n`);
  });

  it('deletes a 200,000-line SEARCH from a larger file', async () => {
    const middle = Array.from({ length: 200_000 }, (_, i) => `line ${i}`);
    const result = await applyDiffPayload(`first\n${middle.join('\n')}\nlast\n`, block(middle.join('\n'), 'gone'));
    expect(result.content).toBe('first\ngone\nlast\n');
  });

  it('refuses a payload past the work limit: nothing applied, the message says what to send instead', async () => {
    const content = 'x\n'.repeat(10_000);
    const payload = Array.from({ length: 5 }, (_, i) => block(`x\nmissing ${i}`, 'y')).join('') + block('x', 'y');
    const refused = applyDiffPayload(content, payload, { maxWork: 30_000 });
    await expect(refused).rejects.toThrow(SearchReplaceLimitError);
    await expect(refused).rejects.toThrow(/Nothing was applied.*fewer blocks per call.*write_file/s);
    // Within the default limit the same payload is answered (the last block is ambiguous).
    const answered = await applyDiffPayload(content, payload);
    expect(answered.failedBlocks).toHaveLength(6);
    expect(MAX_APPLY_WORK).toBeGreaterThan(30_000);
  });

  it('hands the event loop back while it works on a large file', async () => {
    const content = Array.from({ length: 100_000 }, (_, i) => `const v${i} = ${i % 97};`).join('\n');
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await applyDiffPayload(content, block('const v1 = 1;\n  const v2 = 2;', 'x'));
    running = false;
    expect(result.failedBlocks[0].reason).toContain('differ only in whitespace exist at line 2');
    expect(turns).toBeGreaterThan(0); // the old synchronous matcher gave none
  });
});
