import { clipLine, filePatternArgs, formatSearchGroups, ripgrepErrorMessage, rgText, SearchCollector, searchArgs } from '../../../src/tools/searchFiles';
import { cleanRipgrepPath } from '../../../src/tools/ripgrepRunner';
import { displayPath } from '../../../src/workspace/displayPaths';

const ev = (type: 'match' | 'context', file: string, line: number, text: string, submatchStart?: number) =>
  JSON.stringify({
    type,
    data: {
      path: { text: file },
      lines: { text },
      line_number: line,
      absolute_offset: 0,
      submatches: submatchStart === undefined ? [] : [{ match: { text: 'x' }, start: submatchStart, end: submatchStart + 1 }],
    },
  });

describe('tools: search_files rg --json parsing', () => {
  test('groups matches and context by file, sorted by path, line ends (\\r\\n too) stripped', () => {
    const c = new SearchCollector();
    for (const line of [
      JSON.stringify({ type: 'begin', data: { path: { text: './src/b.ts' } } }),
      ev('context', './src/b.ts', 4, 'before\r\n'),
      ev('match', './src/b.ts', 5, 'foo bar\r\n', 0),
      ev('context', './src/b.ts', 6, 'after\n'),
      JSON.stringify({ type: 'end', data: { path: { text: './src/b.ts' } } }),
      ev('match', './a.ts', 1, 'foo\n', 0),
      JSON.stringify({ type: 'summary', data: {} }),
      '',
    ]) {
      expect(c.add(line)).toBe(true);
    }
    expect(c.matches).toBe(2);
    expect(c.result()).toEqual([
      { path: 'a.ts', lines: [{ line: 1, text: 'foo', isMatch: true }] },
      {
        path: 'src/b.ts',
        lines: [
          { line: 4, text: 'before', isMatch: false },
          { line: 5, text: 'foo bar', isMatch: true },
          { line: 6, text: 'after', isMatch: false },
        ],
      },
    ]);
  });

  test('decodes non-UTF-8 lines given as base64 `bytes` (trap 20)', () => {
    const c = new SearchCollector();
    const bytes = Buffer.from([0xff, 0xfe, 0x66, 0x6f, 0x6f, 0x0a]).toString('base64');
    c.add(JSON.stringify({ type: 'match', data: { path: { text: './latin.txt' }, lines: { bytes }, line_number: 3, submatches: [{ start: 2, end: 5 }] } }));
    const [group] = c.result();
    expect(group.lines[0].text).toBe('\ufffd\ufffdfoo');
    expect(rgText({ bytes: Buffer.from('héllo').toString('base64') })).toBe('héllo');
  });

  test("refuses the match past the limit and drops that match's lead-in context", () => {
    const c = new SearchCollector(2);
    expect(c.add(ev('match', 'a.ts', 1, 'x\n', 0))).toBe(true);
    expect(c.add(ev('match', 'a.ts', 2, 'x\n', 0))).toBe(true);
    expect(c.add(ev('context', 'a.ts', 3, 'ctx\n'))).toBe(true);
    expect(c.add(ev('context', 'a.ts', 9, 'lead-in\n'))).toBe(true);
    expect(c.add(ev('match', 'a.ts', 10, 'x\n', 0))).toBe(false);
    expect(c.truncated).toBe(true);
    expect(c.matches).toBe(2);
    expect(c.result()[0].lines.map((l) => l.line)).toEqual([1, 2, 3]);
  });

  test('a stray non-JSON line does not break the search', () => {
    const c = new SearchCollector();
    expect(c.add('not json')).toBe(true);
    expect(c.result()).toEqual([]);
  });

  test('formats groups with padded line numbers, ":" for matches, "-" for context, "--" for gaps', () => {
    const text = formatSearchGroups([
      {
        path: 'src/a.ts',
        lines: [
          { line: 9, text: 'ctx', isMatch: false },
          { line: 10, text: 'hit', isMatch: true },
          { line: 40, text: 'again', isMatch: true },
        ],
      },
    ]);
    expect(text).toBe(['src/a.ts', '   9- ctx', '  10: hit', '  --', '  40: again'].join('\n'));
  });

  test('clips long lines around the first match', () => {
    const line = 'a'.repeat(1000) + 'NEEDLE' + 'b'.repeat(1000);
    const clipped = clipLine(line, 1000, 300);
    expect(clipped).toContain('NEEDLE');
    expect(clipped.startsWith('…')).toBe(true);
    expect(clipped.endsWith('…')).toBe(true);
    expect(clipped.length).toBe(302);
    expect(clipLine('short', 0, 300)).toBe('short');
  });

  test('converts the byte offset of a match to a character index for multi-byte text', () => {
    const c = new SearchCollector();
    const text = 'é'.repeat(600) + 'NEEDLE\n';
    c.add(ev('match', 'u.txt', 1, text, Buffer.byteLength('é'.repeat(600))));
    expect(c.result()[0].lines[0].text).toContain('NEEDLE');
  });
});

describe('tools: search_files arguments and messages', () => {
  test('a plain file pattern becomes a custom type (keeps .gitignore), a path glob stays --glob', () => {
    expect(filePatternArgs('*.{ts,tsx}')).toEqual(['--type-add', 'nativeclaudepattern:*.{ts,tsx}', '--type', 'nativeclaudepattern']);
    expect(filePatternArgs('src/**/*.ts')).toEqual(['--glob', 'src/**/*.ts']);
    expect(filePatternArgs('!*.min.js')).toEqual(['--glob', '!*.min.js']);
    expect(filePatternArgs(undefined)).toEqual([]);
    expect(filePatternArgs('  ')).toEqual([]);
  });

  test('passes the regex with --regexp so one starting with "-" is not an option, and honours .gitignore outside git', () => {
    const args = searchArgs('-foo', undefined, './');
    expect(args.slice(args.indexOf('--regexp'), args.indexOf('--regexp') + 2)).toEqual(['--regexp', '-foo']);
    expect(args).toEqual(expect.arrayContaining(['--json', '--no-require-git', '--no-config', '--context', '1']));
    expect(args.slice(-2)).toEqual(['--', './']);
    expect(args.join(' ')).toContain('--glob !node_modules');
  });

  test('explains an invalid regex and an invalid glob', () => {
    expect(ripgrepErrorMessage('rg: regex parse error:\n    (\n    ^\nerror: unclosed group\n', '(', undefined)).toMatch(
      /^The regex "\(" is not valid:\nregex parse error/,
    );
    expect(ripgrepErrorMessage("rg: error parsing glob '[': unclosed character class", 'x', '[')).toMatch(/file_pattern "\[" is not a valid glob/);
    expect(ripgrepErrorMessage('rg: something else', 'x', undefined)).toMatch(/exit code 2/);
  });

  test('paths: ./ stripped, backslashes only turned on Windows, folder name first with several folders', () => {
    expect(cleanRipgrepPath('./src/a.ts', 'linux')).toBe('src/a.ts');
    expect(cleanRipgrepPath('.\\src\\a.ts', 'win32')).toBe('src/a.ts');
    expect(cleanRipgrepPath('./odd\\name', 'linux')).toBe('odd\\name');
    expect(displayPath('/w/app', 'src/a.ts', 1)).toBe('src/a.ts');
    expect(displayPath('/w/app', 'src/a.ts', 2)).toBe('app/src/a.ts');
    expect(displayPath('/w/app', '', 2)).toBe('app');
  });
});
