import { decodedLosslessly, describeCharacters, encodingByBom, NodeTextCodec, unencodableCharacters, type Transcoder } from '../../../src/workspace/encodings';

/** Encodes like iconv-lite does for VS Code: a character outside Latin-1 silently becomes "?". */
const substituting: Transcoder = {
  decode: async (bytes) => Buffer.from(bytes).toString('latin1'),
  encode: async (text) => Buffer.from(Array.from(text, (c) => (c.codePointAt(0)! <= 0xff ? c : '?')).join(''), 'latin1'),
};

describe('text codec checks', () => {
  test('an encoder that substitutes silently is caught by the round trip, naming each character once', async () => {
    expect(await unencodableCharacters(substituting, 'café naïve', 'iso88591')).toEqual([]);
    expect(await unencodableCharacters(substituting, 'a € b € c 😀', 'iso88591')).toEqual(['€', '😀']);
    // A literal "?" in the text does not hide a substituted one.
    expect(await unencodableCharacters(substituting, '? €', 'iso88591')).toEqual(['€']);
  });

  test("Node's latin1 encoder, which keeps the low byte, is caught too", async () => {
    expect(await unencodableCharacters(new NodeTextCodec(), 'x Ā y', 'iso88591')).toEqual(['Ā']); // U+0100 would be written as 00
  });

  test('UTF-8 and UTF-16 hold everything but a lone surrogate', async () => {
    const codec = new NodeTextCodec();
    expect(await unencodableCharacters(codec, 'é € 😀', 'utf8')).toEqual([]);
    expect(await unencodableCharacters(codec, 'a\udc00b', 'utf16le')).toEqual(['\udc00']);
  });

  test('which characters, with code point and line', () => {
    expect(describeCharacters('a\nb €\n😀', ['€', '😀'])).toBe('"€" (U+20AC, line 2), "😀" (U+1F600, line 3)');
    expect(describeCharacters('abcdefg', ['a', 'b', 'c'], 2)).toBe('"a" (U+0061, line 1), "b" (U+0062, line 1) and 1 more');
  });

  test('a UTF-8 file is lossless unless a byte decoded to U+FFFD that was not U+FFFD on disk', async () => {
    const codec = new NodeTextCodec();
    const check = async (bytes: Buffer, encoding = 'utf8') => decodedLosslessly(codec, bytes, await codec.decode(bytes, encoding), encoding);
    expect(await check(Buffer.from('café'))).toBe(true);
    expect(await check(Buffer.from('a \ufffd b'))).toBe(true); // a real replacement character is content
    expect(await check(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe(false); // Latin-1 é read as UTF-8
    expect(await check(Buffer.from('\ufeffcafé'), 'utf8bom')).toBe(true);
    expect(await check(Buffer.from('\ufeffcafé'), 'utf8')).toBe(false); // saving as utf8 would drop the BOM
    expect(await check(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'iso88591')).toBe(true);
  });

  test('byte order marks', () => {
    expect(encodingByBom(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe('utf8bom');
    expect(encodingByBom(Buffer.from([0xff, 0xfe, 0x61, 0]))).toBe('utf16le');
    expect(encodingByBom(Buffer.from([0xfe, 0xff, 0, 0x61]))).toBe('utf16be');
    expect(encodingByBom(Buffer.from('ab'))).toBeUndefined();
  });

  test('UTF-16 BE round trip through the plain codec', async () => {
    const codec = new NodeTextCodec();
    const bytes = await codec.encode('café', 'utf16be');
    expect(Buffer.from(bytes).toString('hex')).toBe('feff00630061006600e9');
    expect(await codec.decode(bytes, 'utf16be')).toBe('café');
  });
});
