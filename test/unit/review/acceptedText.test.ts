import { acceptedText, isClaudesWriteOf } from '../../../src/review/acceptedText';

describe('acceptedText (the answer of an accepted review, docs/vscode-traps.md, trap 2)', () => {
  test("openDiff on a CRLF file: the CLI's \\n proposal is answered with \\n, whatever the editor holds", () => {
    const request = { originalText: 'one\r\ntwo\r\n', proposedText: 'one\nTWO\n' };
    expect(acceptedText(request, 'one\nTWO\n')).toBe('one\nTWO\n');
    expect(acceptedText(request, 'one\r\nTWO\r\n')).toBe('one\nTWO\n');
    // The user's own edits too.
    expect(acceptedText(request, 'one\r\nTWO\r\nadded\r\n')).toBe('one\nTWO\nadded\n');
  });

  test("write_file: the proposal already has the file's CRLF, so the answer does too", () => {
    const request = { originalText: '\uFEFFone\r\ntwo', proposedText: 'one\r\nTWO' };
    expect(acceptedText(request, 'one\nTWO\nthree')).toBe('one\r\nTWO\r\nthree');
  });

  test("a proposal without a line break takes the file's; a new file keeps its own; no BOM", () => {
    expect(acceptedText({ originalText: 'a\r\nb\r\n', proposedText: 'x' }, 'x\ny')).toBe('x\r\ny');
    expect(acceptedText({ originalText: undefined, proposedText: 'a\r\nb\r\n' }, 'a\nb\nc\n')).toBe('a\r\nb\r\nc\r\n');
    expect(acceptedText({ originalText: undefined, proposedText: 'a' }, '\uFEFFa\nb')).toBe('a\nb');
  });
});

describe("isClaudesWriteOf (the buffer over unsaved edits takes claude's write of the accepted merge)", () => {
  test('the same text, or the same without its last newline (claude 2.1.328 on a Write accepted with other text)', () => {
    expect(isClaudesWriteOf('one\nall new\n', 'one\nall new\n')).toBe(true);
    expect(isClaudesWriteOf('one\nall new', 'one\nall new\n')).toBe(true);
  });

  test("anything else is not claude's write of it: another text, a lost line, an added newline", () => {
    expect(isClaudesWriteOf('one\n', 'one\nall new\n')).toBe(false);
    expect(isClaudesWriteOf('one\nall ne', 'one\nall new')).toBe(false);
    expect(isClaudesWriteOf('one\nall new\n\n', 'one\nall new\n')).toBe(false);
    expect(isClaudesWriteOf('', '\n')).toBe(true);
    expect(isClaudesWriteOf('', 'x')).toBe(false);
  });
});
