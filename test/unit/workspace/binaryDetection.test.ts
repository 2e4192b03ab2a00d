import { BINARY_SNIFF_BYTES, looksBinary } from '../../../src/workspace/binaryDetection';

describe('looksBinary', () => {
  it('is false for empty and plain text buffers, including non-ASCII UTF-8', () => {
    expect(looksBinary(new Uint8Array())).toBe(false);
    expect(looksBinary(Buffer.from('hello\r\nwörld ✓ 日本\t\x1b[31m', 'utf8'))).toBe(false);
  });

  it('is true for a NUL at the first and at the last inspected byte', () => {
    expect(looksBinary(Uint8Array.from([0, 65, 66]))).toBe(true);
    const buf = new Uint8Array(BINARY_SNIFF_BYTES).fill(65);
    buf[BINARY_SNIFF_BYTES - 1] = 0;
    expect(looksBinary(buf)).toBe(true);
  });

  it('ignores a NUL past the first 8 KB', () => {
    expect(BINARY_SNIFF_BYTES).toBe(8192);
    const buf = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(65);
    buf[BINARY_SNIFF_BYTES] = 0;
    expect(looksBinary(buf)).toBe(false);
  });

  it('treats UTF-16 text as binary (it contains NULs)', () => {
    expect(looksBinary(Buffer.from('\uFEFFhi', 'utf16le'))).toBe(true);
  });
});
