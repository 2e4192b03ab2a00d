import {
  applyDiffPayload,
  applySearchReplaceBlocks,
  parseSearchReplaceBlocks,
  quoteSearchForMessage,
  SearchReplaceParseError,
} from '../../../src/tools/searchReplaceBlocks';

const block = (search: string, replace: string): string =>
  `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;

function parseErrorOf(payload: string): SearchReplaceParseError {
  try {
    parseSearchReplaceBlocks(payload);
  } catch (err) {
    expect(err).toBeInstanceOf(SearchReplaceParseError);
    return err as SearchReplaceParseError;
  }
  throw new Error('expected a parse error');
}

describe('parseSearchReplaceBlocks', () => {
  it('parses one block', () => {
    expect(parseSearchReplaceBlocks(block('old', 'new'))).toEqual([
      { index: 1, line: 1, searchLines: ['old'], replaceLines: ['new'] },
    ]);
  });

  it('parses several blocks with prose, code fences and blank lines around them', () => {
    const payload = `Here are my changes:\n\n\`\`\`\n${block('a\nb', 'A')}\`\`\`\nthen\n\n${block('c', 'C\nD')}\nDone.`;
    const blocks = parseSearchReplaceBlocks(payload);
    expect(blocks.map((b) => [b.index, b.searchLines, b.replaceLines])).toEqual([
      [1, ['a', 'b'], ['A']],
      [2, ['c'], ['C', 'D']],
    ]);
    expect(blocks[0].line).toBe(4);
  });

  it('accepts CRLF payloads without keeping any \\r', () => {
    const blocks = parseSearchReplaceBlocks('<<<<<<< SEARCH\r\nx\r\ny\r\n=======\r\nz\r\n>>>>>>> REPLACE\r\n');
    expect(blocks[0].searchLines).toEqual(['x', 'y']);
    expect(blocks[0].replaceLines).toEqual(['z']);
  });

  it('tolerates trailing whitespace on marker lines', () => {
    const blocks = parseSearchReplaceBlocks('<<<<<<< SEARCH  \nx\n=======\t\ny\n>>>>>>> REPLACE \n');
    expect(blocks[0].searchLines).toEqual(['x']);
  });

  it('tells an empty REPLACE (delete) from one empty line', () => {
    const [del, blank] = parseSearchReplaceBlocks(
      '<<<<<<< SEARCH\nx\n=======\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ny\n=======\n\n>>>>>>> REPLACE',
    );
    expect(del.replaceLines).toEqual([]);
    expect(blank.replaceLines).toEqual(['']);
  });

  it('unescapes marker lines written with a leading backslash', () => {
    const [b] = parseSearchReplaceBlocks(
      '<<<<<<< SEARCH\n\\=======\n\\<<<<<<< SEARCH\n=======\n\\>>>>>>> REPLACE\n\\\\=======\n>>>>>>> REPLACE',
    );
    expect(b.searchLines).toEqual(['=======', '<<<<<<< SEARCH']);
    expect(b.replaceLines).toEqual(['>>>>>>> REPLACE', '\\\\=======']);
  });

  it('fails clearly when "=======" is missing', () => {
    const err = parseErrorOf('<<<<<<< SEARCH\nold\n>>>>>>> REPLACE\n');
    expect(err.message).toContain('block 1');
    expect(err.message).toContain('expected "=======" after the SEARCH lines');
    expect(err.message).toContain('payload line 3');
    expect(err.message).toContain('No change was applied');
  });

  it('fails clearly when the payload ends inside SEARCH', () => {
    expect(parseErrorOf('<<<<<<< SEARCH\nold\n').message).toContain('ended before the "=======" line');
  });

  it('fails clearly when ">>>>>>> REPLACE" is missing (end of payload or next block)', () => {
    expect(parseErrorOf(`${block('a', 'b')}<<<<<<< SEARCH\nx\n=======\ny\n`).message).toMatch(
      /block 2 .*ended before the ">>>>>>> REPLACE" line/,
    );
    const err = parseErrorOf('<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE');
    expect(err.message).toContain('expected ">>>>>>> REPLACE" to end the block');
    expect(err.message).toContain('payload line 5');
  });

  it('rejects a second "=======" in a block and a SEARCH inside SEARCH', () => {
    expect(parseErrorOf('<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE').message).toContain(
      'expected ">>>>>>> REPLACE"',
    );
    expect(parseErrorOf('<<<<<<< SEARCH\nx\n<<<<<<< SEARCH\n=======\ny\n>>>>>>> REPLACE').message).toContain(
      'expected "=======" after the SEARCH lines',
    );
  });

  it('rejects markers outside a block', () => {
    expect(parseErrorOf('=======\nnew\n>>>>>>> REPLACE').message).toContain('outside a block');
    expect(parseErrorOf(`${block('a', 'b')}>>>>>>> REPLACE`).message).toContain('payload line 6 outside a block');
  });

  it('rejects a payload without blocks', () => {
    expect(parseErrorOf('just some prose').message).toContain('no SEARCH/REPLACE block found');
    expect(parseErrorOf('').message).toContain('<<<<<<< SEARCH\n(exact existing lines)');
  });
});

describe('applySearchReplaceBlocks', () => {
  it('replaces exactly the matched lines', () => {
    const result = applyDiffPayload('one\ntwo\nthree\n', block('two', 'TWO\n2'));
    expect(result).toEqual({ content: 'one\nTWO\n2\nthree\n', applied: 1, failedBlocks: [] });
  });

  it('applies blocks in order, each to the previous result', () => {
    const result = applyDiffPayload('a\nb\n', block('a', 'x') + block('x', 'y') + block('b', 'x'));
    expect(result.content).toBe('y\nx\n');
    expect(result.applied).toBe(3);
  });

  it('inserts replacement text literally ($&, $1, $$, $`, $\')', () => {
    const replacement = "price = $& + $1 + $$ + $` + $' + $<name>";
    const result = applyDiffPayload('let price = 1;\n', block('let price = 1;', replacement));
    expect(result.content).toBe(`${replacement}\n`);
  });

  it('matches whole lines only, not part of a line', () => {
    const result = applyDiffPayload('recount = 0\n', block('count = 0', 'count = 1'));
    expect(result.applied).toBe(0);
    expect(result.content).toBe('recount = 0\n');
    expect(result.failedBlocks[0].reason).toContain('not found');
  });

  it('reports 0 matches quoting the SEARCH and asking to re-read the file', () => {
    const result = applyDiffPayload('alpha\nbeta\n', block('gamma\ndelta', 'x'));
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

  it('points at a match that differs only in whitespace', () => {
    const result = applyDiffPayload('x\n    if (a) {\n', block('  if (a) {', 'y'));
    expect(result.failedBlocks[0].reason).toContain('differ only in whitespace exist at line 2');
  });

  it('shortens long quotes: many lines and long lines', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i} ${'z'.repeat(i === 0 ? 500 : 3)}`);
    const quote = quoteSearchForMessage(lines);
    expect(quote.split('\n')).toHaveLength(12);
    expect(quote).toContain('(29 more lines)');
    expect(quote).toContain('(307 more characters)');
    expect(quote).toContain('line 39');
    expect(quote).not.toContain('line 20 ');
    const result = applyDiffPayload('nothing\n', block(lines.join('\n'), 'x'));
    expect(result.failedBlocks[0].reason.length).toBeLessThan(1500);
    expect(result.failedBlocks[0].search).toBe(lines.join('\n')); // the full text stays available
  });

  it('reports an ambiguous SEARCH with its match count and line numbers', () => {
    const content = 'x = 1\ny\nx = 1\nz\nx = 1\n';
    const result = applyDiffPayload(content, block('x = 1', 'x = 2'));
    expect(result.content).toBe(content);
    expect(result.failedBlocks[0].reason).toContain('ambiguous (3 matches found) at lines 1, 3, 5');
    expect(result.failedBlocks[0].reason).toContain('Add surrounding lines');
  });

  it('counts overlapping matches as ambiguous', () => {
    const result = applyDiffPayload('a\na\na\n', block('a\na', 'b'));
    expect(result.failedBlocks[0].reason).toContain('ambiguous (2 matches found)');
  });

  it('accepts a SEARCH made unique by a surrounding line', () => {
    const result = applyDiffPayload('x = 1\ny\nx = 1\n', block('y\nx = 1', 'y\nx = 2'));
    expect(result.content).toBe('x = 1\ny\nx = 2\n');
  });

  it('applies the other blocks when some fail and reports the failed ones 1-based', () => {
    const payload = block('a', 'A') + block('missing', 'M') + block('dup', 'D') + block('c', 'C');
    const result = applyDiffPayload('a\ndup\ndup\nc\n', payload);
    expect(result.content).toBe('A\ndup\ndup\nC\n');
    expect(result.applied).toBe(2);
    expect(result.failedBlocks.map((f) => [f.index, f.search])).toEqual([
      [2, 'missing'],
      [3, 'dup'],
    ]);
    expect(result.failedBlocks[1].reason).toContain('ambiguous (2 matches found)');
  });

  it('rejects an empty or whitespace-only SEARCH as a failed block', () => {
    const result = applyDiffPayload('a\n\nb\n', '<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n' + block('  ', 'x') + block('b', 'B'));
    expect(result.content).toBe('a\n\nB\n');
    expect(result.failedBlocks.map((f) => f.index)).toEqual([1, 2]);
    expect(result.failedBlocks[0].reason).toContain('SEARCH section is empty');
  });

  it('works on a CRLF file with an LF payload and keeps CRLF', () => {
    const result = applyDiffPayload('one\r\ntwo\r\nthree\r\n', block('two\nthree', 'TWO\nmid\nTHREE'));
    expect(result.content).toBe('one\r\nTWO\r\nmid\r\nTHREE\r\n');
  });

  it('works with a CRLF payload on an LF file and keeps LF', () => {
    const result = applyDiffPayload('one\ntwo\n', '<<<<<<< SEARCH\r\ntwo\r\n=======\r\n2\r\n3\r\n>>>>>>> REPLACE\r\n');
    expect(result.content).toBe('one\n2\n3\n');
  });

  it('keeps untouched lines of a mixed-EOL file byte for byte', () => {
    const content = 'a\r\nb\nc\r\nd\n';
    expect(applyDiffPayload(content, block('c', 'C')).content).toBe('a\r\nb\nC\r\nd\n');
  });

  it('keeps the BOM and matches the first line despite it', () => {
    const result = applyDiffPayload('\uFEFFfirst\r\nsecond\r\n', block('first', 'FIRST'));
    expect(result.content).toBe('\uFEFFFIRST\r\nsecond\r\n');
  });

  it('keeps a missing final newline when the last line is replaced', () => {
    expect(applyDiffPayload('a\nb', block('b', 'B\nC')).content).toBe('a\nB\nC');
    expect(applyDiffPayload('a\nb\n', block('b', 'B')).content).toBe('a\nB\n');
  });

  it('deletes lines for an empty REPLACE, keeping the final-newline state', () => {
    expect(applyDiffPayload('a\nb\nc\n', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE').content).toBe('a\nc\n');
    expect(applyDiffPayload('a\nb', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE').content).toBe('a');
    expect(applyDiffPayload('only\n', '<<<<<<< SEARCH\nonly\n=======\n>>>>>>> REPLACE').content).toBe('');
  });

  it('replaces with an empty line when REPLACE holds one empty line', () => {
    expect(applyDiffPayload('a\nb\nc\n', block('b', '')).content).toBe('a\n\nc\n');
  });

  it('returns the content untouched (same string) when nothing applied', () => {
    const content = 'a\r\nb\n';
    const result = applyDiffPayload(content, block('zzz', 'x'));
    expect(result.content).toBe(content);
    expect(result.applied).toBe(0);
  });

  it('does not apply anything when the payload is malformed', () => {
    expect(() => applyDiffPayload('a\n', `${block('a', 'b')}<<<<<<< SEARCH\na\n`)).toThrow(SearchReplaceParseError);
  });

  it('applies parsed blocks given directly', () => {
    const result = applySearchReplaceBlocks('x\n', [{ index: 7, line: 1, searchLines: ['x'], replaceLines: ['y'] }]);
    expect(result).toEqual({ content: 'y\n', applied: 1, failedBlocks: [] });
    expect(applySearchReplaceBlocks('x', [])).toEqual({ content: 'x', applied: 0, failedBlocks: [] });
  });

  it('treats a marker-like content line in the file as matchable through escaping', () => {
    const content = 'before\n=======\nafter\n';
    const result = applyDiffPayload(content, '<<<<<<< SEARCH\n\\=======\n=======\n---\n>>>>>>> REPLACE');
    expect(result.content).toBe('before\n---\nafter\n');
  });
});
