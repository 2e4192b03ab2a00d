import { existsSync, promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BINARY_SNIFF_BYTES, fileLooksBinary, looksBinary } from '../../../src/workspace/binaryDetection';

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

describe('fileLooksBinary', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-binary-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const write = async (name: string, data: Uint8Array | string): Promise<string> => {
    const file = path.join(dir, name);
    await fs.writeFile(file, data);
    return file;
  };

  it('reports text, binary and empty files', async () => {
    expect(await fileLooksBinary(await write('a.txt', 'plain text\n'))).toBe(false);
    expect(await fileLooksBinary(await write('a.bin', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13])))).toBe(true);
    expect(await fileLooksBinary(await write('empty', ''))).toBe(false);
  });

  it('does not look past the first 8 KB of a file', async () => {
    const data = Buffer.alloc(BINARY_SNIFF_BYTES * 4, 'a');
    data[BINARY_SNIFF_BYTES] = 0;
    expect(await fileLooksBinary(await write('late-nul.txt', data))).toBe(false);
    data[BINARY_SNIFF_BYTES - 1] = 0;
    expect(await fileLooksBinary(await write('edge-nul.bin', data))).toBe(true);
  });

  // An endless device would hang or exhaust memory if the whole file were read.
  (existsSync('/dev/zero') ? it : it.skip)('reads only a bounded prefix (endless /dev/zero)', async () => {
    expect(await fileLooksBinary('/dev/zero')).toBe(true);
  });

  it('rejects for a missing file', async () => {
    await expect(fileLooksBinary(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
