import { applyReplacements } from '../../../src/tools/renameSymbol';

const at = (line: number, character: number) => ({ line, character });
const replace = (start: [number, number], end: [number, number], newText: string) => ({ range: { start: at(...start), end: at(...end) }, newText });

describe('applyReplacements (a rename edit applied to the text the provider computed it on)', () => {
  test('replacements in any order, each in its line, the rest byte for byte', () => {
    const text = "import { double } from './math';\nconst x = double(double(1));\n";
    const edits = [replace([1, 17], [1, 23], 'twice'), replace([0, 9], [0, 15], 'twice'), replace([1, 10], [1, 16], 'twice')];
    expect(applyReplacements(text, edits)).toEqual({ text: "import { twice } from './math';\nconst x = twice(twice(1));\n" });
  });

  test('CRLF lines: characters count within the line, the \\r\\n kept', () => {
    expect(applyReplacements('a double\r\ndouble b\r\n', [replace([0, 2], [0, 8], 'twice'), replace([1, 0], [1, 6], 'twice')])).toEqual({
      text: 'a twice\r\ntwice b\r\n',
    });
  });

  test('a replacement across lines, an insertion, characters outside the BMP counted as VS Code counts them (UTF-16)', () => {
    expect(applyReplacements('x😀 old\nend\n', [replace([0, 4], [1, 0], 'new\n'), replace([1, 3], [1, 3], '!')])).toEqual({ text: 'x😀 new\nend!\n' });
  });

  test('a place past a line or the text, an end before its start, or overlapping replacements: an error, nothing applied', () => {
    expect(applyReplacements('ab\ncd\n', [replace([0, 3], [0, 4], 'x')])).toEqual({ error: "the edit names a place past the file's text" });
    expect(applyReplacements('ab\ncd\n', [replace([5, 0], [5, 1], 'x')])).toEqual({ error: "the edit names a place past the file's text" });
    expect(applyReplacements('ab\ncd\n', [replace([0, 2], [0, 1], 'x')])).toEqual({ error: "the edit names a place past the file's text" });
    expect(applyReplacements('abcdef\n', [replace([0, 0], [0, 3], 'x'), replace([0, 2], [0, 4], 'y')])).toEqual({
      error: 'the edit has overlapping replacements',
    });
  });
});
