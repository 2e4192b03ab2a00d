import { linesOf, nameAtOrAfter, oneNamed, positionOnLine, symbolInOutline, wholeWordMatches, wordAt } from '../../../src/tools/symbolPosition';
import type { OutlineSymbol } from '../../../src/host/languageFeatures';

const text = 'import { double } from "./math";\r\nconst doubled = double(2); // double it\nexport const d = doubleAll([1]);\n';

describe('symbol positions: line plus column or name', () => {
  test('lines without their breaks, CRLF or LF', () => {
    expect(linesOf(text).slice(0, 2)).toEqual(['import { double } from "./math";', 'const doubled = double(2); // double it']);
  });

  test('whole-word matches skip names the symbol is part of', () => {
    expect(wholeWordMatches('const doubled = double(2); // double it', 'double')).toEqual([16, 30]);
    expect(wholeWordMatches('doubleAll(double)', 'double')).toEqual([10]);
    expect(wholeWordMatches('a.$x + $x', '$x')).toEqual([2, 7]);
    expect(wholeWordMatches('operator+ x', 'operator+')).toEqual([0]);
  });

  test('the first whole-word match of the name on the line, 0-based', () => {
    expect(positionOnLine(text, 'a.ts', 2, { symbol: 'double' })).toEqual({ position: { line: 1, character: 16 }, word: 'double' });
  });

  test('a 1-based column, and the word under it', () => {
    expect(positionOnLine(text, 'a.ts', 2, { column: 20 })).toEqual({ position: { line: 1, character: 19 }, word: 'double' });
    expect(positionOnLine(text, 'a.ts', 2, { column: 7 })).toEqual({ position: { line: 1, character: 6 }, word: 'doubled' });
  });

  test('a name not on the line lists the names that are', () => {
    const r = positionOnLine(text, 'a.ts', 3, { symbol: 'double' });
    expect(r).toEqual({ error: '`double` is not on line 3 of a.ts as a whole word. Names on that line: export, const, d, doubleAll.' });
  });

  test('a line past the end, a column past the line, neither column nor name', () => {
    expect(positionOnLine(text, 'a.ts', 9, { symbol: 'x' })).toEqual({ error: 'a.ts has 3 lines; line 9 does not exist.' });
    expect(positionOnLine(text, 'a.ts', 1, { column: 40 })).toEqual({ error: expect.stringContaining('column 40 is past its end') });
    expect(positionOnLine(text, 'a.ts', 1, {})).toEqual({ error: expect.stringContaining('Give a column') });
  });

  test("a declaration's start (TypeScript's workspace symbol location) to its name", () => {
    const source = 'import { Box } from "./box";\n/** doc */\nexport class Box {\n  box = 1;\n}\n';
    expect(nameAtOrAfter(source, { line: 2, character: 0 }, 'Box')).toEqual({ line: 2, character: 13 });
    expect(nameAtOrAfter(source, { line: 1, character: 0 }, 'Box')).toEqual({ line: 2, character: 13 });
    expect(nameAtOrAfter(source, { line: 3, character: 0 }, 'Box')).toBeUndefined();
  });

  test('the word at a character', () => {
    expect(wordAt('  foo(bar)', 5)).toBe('foo');
    expect(wordAt('  foo(bar)', 1)).toBeUndefined();
  });

  const sym = (name: string, kind: string, line: number, children: OutlineSymbol[] = []): OutlineSymbol => {
    const range = { start: { line, character: 2 }, end: { line, character: 2 + name.length } };
    return { name, kind, range, selectionRange: range, children };
  };

  test('a name in the outline: one match is its name position; several are an error listing them', () => {
    const outline = [sym('Box', 'Class', 0, [sym('size', 'Method', 1)]), sym('size', 'Function', 9), sym('main', 'Function', 12)];
    expect(symbolInOutline(outline, 'main', 'a.ts')).toEqual({ position: { line: 12, character: 2 }, word: 'main' });
    expect(symbolInOutline(outline, 'size', 'a.ts')).toEqual({
      error: '2 symbols named `size` in a.ts: method at line 2, function at line 10. Give the line (line and symbol).',
    });
    expect(symbolInOutline(outline, 'nope', 'a.ts')).toEqual({ error: expect.stringContaining('No symbol named `nope`') });
  });

  test('a name in the workspace: exactly one, or an error with every candidate', () => {
    const items = [
      { name: 'double', at: 'src/math.ts:3:17' },
      { name: 'double', at: 'lib/other.ts:1:17' },
      { name: 'doubleAll', at: 'src/math.ts:7:17' },
    ];
    expect(oneNamed(items, 'doubleAll', (i) => i.at)).toBe(items[2]);
    expect(oneNamed(items, 'double', (i) => i.at)).toEqual({
      error: '2 symbols named `double`: src/math.ts:3:17, lib/other.ts:1:17. Give the file and line (path, line and symbol).',
    });
  });
});
