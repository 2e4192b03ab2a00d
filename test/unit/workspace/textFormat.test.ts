import { countLineBreaks, detectEol, hasBom, hasFinalNewline, matchOriginalFormat, stripBom, toLf, withEol } from '../../../src/workspace/textFormat';

const BOM = '\uFEFF';

describe('BOM helpers', () => {
  it('detects and strips only a leading BOM', () => {
    expect(hasBom(`${BOM}a`)).toBe(true);
    expect(hasBom(`a${BOM}`)).toBe(false);
    expect(hasBom('')).toBe(false);
    expect(stripBom(`${BOM}a${BOM}`)).toBe(`a${BOM}`);
    expect(stripBom('abc')).toBe('abc');
    expect(stripBom(`${BOM}${BOM}x`)).toBe(`${BOM}x`); // only one is a BOM; a second one is content
  });
});

describe('detectEol', () => {
  it('counts CRLF and bare LF separately', () => {
    expect(countLineBreaks('a\r\nb\nc\r\n')).toEqual({ crlf: 2, lf: 1 });
    expect(countLineBreaks('\n\r\n')).toEqual({ crlf: 1, lf: 1 });
    expect(countLineBreaks('a\rb')).toEqual({ crlf: 0, lf: 0 });
  });

  it('returns the majority line ending', () => {
    expect(detectEol('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(detectEol('a\nb\nc\r\n')).toBe('\n');
    expect(detectEol('a\r\n')).toBe('\r\n');
  });

  it('returns the fallback with no line break or a tie', () => {
    expect(detectEol('abc')).toBe('\n');
    expect(detectEol('abc', '\r\n')).toBe('\r\n');
    expect(detectEol('a\r\nb\n', '\r\n')).toBe('\r\n');
    expect(detectEol('a\r\nb\n', '\n')).toBe('\n');
  });
});

describe('toLf / withEol', () => {
  it('toLf turns CRLF into LF and leaves a lone CR', () => {
    expect(toLf('a\r\nb\rc\n')).toBe('a\nb\rc\n');
  });

  it('withEol converts every line break, including mixed input', () => {
    expect(withEol('a\nb\r\nc', '\r\n')).toBe('a\r\nb\r\nc');
    expect(withEol('a\r\nb\nc\r\n', '\n')).toBe('a\nb\nc\n');
    expect(withEol('a\r\n', '\r\n')).toBe('a\r\n'); // no \r\r\n
  });

  it('hasFinalNewline', () => {
    expect(hasFinalNewline('a\n')).toBe(true);
    expect(hasFinalNewline('a\r\n')).toBe(true);
    expect(hasFinalNewline('a')).toBe(false);
    expect(hasFinalNewline('')).toBe(false);
  });
});

describe('matchOriginalFormat', () => {
  it('round-trips a CRLF + BOM file byte for byte when the proposal is its LF, BOM-less text', () => {
    const original = `${BOM}first line\r\nsecond line\r\n\r\nlast line\r\n`;
    const asAModelSeesIt = 'first line\nsecond line\n\nlast line'; // no BOM, LF, final newline trimmed
    const result = matchOriginalFormat(original, asAModelSeesIt);
    expect(Buffer.from(result, 'utf8').equals(Buffer.from(original, 'utf8'))).toBe(true);
    // The unchanged original itself also round-trips.
    expect(Buffer.from(matchOriginalFormat(original, original), 'utf8')).toEqual(Buffer.from(original, 'utf8'));
  });

  it('converts a changed proposal to the original EOL and restores the BOM', () => {
    expect(matchOriginalFormat(`${BOM}a\r\nb\r\n`, 'a\nB\nc\n')).toBe(`${BOM}a\r\nB\r\nc\r\n`);
  });

  it('strips a BOM the proposal brings when the original has none', () => {
    expect(matchOriginalFormat('a\n', `${BOM}a\nb\n`)).toBe('a\nb\n');
  });

  it('keeps LF for an LF original even if the proposal uses CRLF', () => {
    expect(matchOriginalFormat('x\ny\n', 'x\r\ny\r\nz\r\n')).toBe('x\ny\nz\n');
  });

  it('uses the proposal line ending when the original has no line break', () => {
    expect(matchOriginalFormat('single line', 'one\r\ntwo\r\n')).toBe('one\r\ntwo\r\n');
    expect(matchOriginalFormat('', 'one\ntwo')).toBe('one\ntwo');
  });

  it('restores a final newline the proposal dropped', () => {
    expect(matchOriginalFormat('a\nb\n', 'a\nc')).toBe('a\nc\n');
    expect(matchOriginalFormat('a\r\nb\r\n', 'a\nc')).toBe('a\r\nc\r\n');
  });

  it('honours a final newline the proposal adds', () => {
    expect(matchOriginalFormat('a\nb', 'a\nb\n')).toBe('a\nb\n');
  });

  it('keeps the missing final newline when the proposal also has none', () => {
    expect(matchOriginalFormat('a\r\nb', 'a\nc')).toBe('a\r\nc');
  });

  it('keeps an emptied file empty (no newline, but the BOM is kept)', () => {
    expect(matchOriginalFormat('a\n', '')).toBe('');
    expect(matchOriginalFormat(`${BOM}a\n`, '')).toBe(BOM);
  });

  it('keeps extra trailing blank lines as content', () => {
    expect(matchOriginalFormat('a\n', 'a\n\n\n')).toBe('a\n\n\n');
  });
});
