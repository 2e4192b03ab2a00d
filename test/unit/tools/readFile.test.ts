import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { formatLineWindow, READ_LINE_CHARS, readLineWindow } from '../../../src/tools/readFile';
import { NodeTextCodec } from '../../../src/workspace/encodings';

describe('tools: read_file line window', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-read-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  const write = async (name: string, content: string | Buffer) => {
    const p = path.join(dir, name);
    await fs.writeFile(p, content);
    return p;
  };

  test('counts lines with and without a final newline; empty file has 0', async () => {
    expect(await readLineWindow(await write('a', 'one\ntwo\n'), 1, 10)).toEqual({ firstLine: 1, lines: ['one', 'two'], totalLines: 2, binary: false });
    expect(await readLineWindow(await write('b', 'one\ntwo'), 1, 10)).toEqual({ firstLine: 1, lines: ['one', 'two'], totalLines: 2, binary: false });
    expect(await readLineWindow(await write('c', ''), 1, 10)).toEqual({ firstLine: 1, lines: [], totalLines: 0, binary: false });
    expect(await readLineWindow(await write('d', '\n\n'), 1, 10)).toMatchObject({ lines: ['', ''], totalLines: 2 });
  });

  test('drops \\r of CRLF line ends and a leading BOM, keeps a lone \\r', async () => {
    const w = await readLineWindow(await write('crlf', '\ufeffa\r\nb\rc\r\n'), 1, 10);
    expect(w.lines).toEqual(['a', 'b\rc']);
  });

  test('returns only the window, counting every line', async () => {
    const content = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const w = await readLineWindow(await write('window', content), 40, 3);
    expect(w).toEqual({ firstLine: 40, lines: ['line 40', 'line 41', 'line 42'], totalLines: 100, binary: false });
    expect((await readLineWindow(path.join(dir, 'window'), 200, 3)).lines).toEqual([]);
  });

  test('lines crossing the 1 MiB chunk boundary are whole, a multi-byte character split by it too', async () => {
    const first = 'x'.repeat((1 << 20) - 2); // with its \n, line 2 starts 1 byte before the boundary
    const p = await write('boundary', `${first}\néàtail\nnext\n`);
    expect(await readLineWindow(p, 2, 2)).toEqual({ firstLine: 2, lines: ['éàtail', 'next'], totalLines: 3, binary: false });
    const w = await readLineWindow(p, 1, 1);
    expect(w.lines[0]).toBe(`${'x'.repeat(READ_LINE_CHARS)}… [line truncated: ${(1 << 20) - 2} characters in total]`);
  });

  test(`cuts lines longer than ${READ_LINE_CHARS} characters and says how long they are`, async () => {
    const w = await readLineWindow(await write('long', `${'é'.repeat(5000)}\nshort\n`), 1, 2);
    expect(w.lines[0]).toBe(`${'é'.repeat(READ_LINE_CHARS)}… [line truncated: 5000 characters in total]`);
    expect(w.lines[1]).toBe('short');
  });

  test('a NUL byte in the first 8 KB means binary; one after it does not', async () => {
    expect((await readLineWindow(await write('bin', Buffer.from([0x41, 0x00, 0x42])), 1, 10)).binary).toBe(true);
    const late = Buffer.concat([Buffer.alloc(9000, 0x61), Buffer.from([0]), Buffer.from('\n')]);
    expect((await readLineWindow(await write('late', late), 1, 10)).binary).toBe(false);
  });

  test('a 10 MB file is read in turns: the event loop runs between its chunks', async () => {
    const line = 'const value = "some ordinary source text";\n';
    const p = await write('big', line.repeat(Math.ceil((10 * 1024 * 1024) / line.length)));
    // Timers that fire while the read is under way: a read done in one synchronous block lets none
    // fire (no timing is asserted; how long it takes is the tools bench's business).
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const w = await readLineWindow(p, 1, 2000);
    clearInterval(ticker);
    expect(w.totalLines).toBe(Math.ceil((10 * 1024 * 1024) / line.length));
    expect(w.lines).toHaveLength(2000);
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  describe('a file in another encoding (decoded whole by the codec)', () => {
    const latin1 = new NodeTextCodec(() => 'iso88591');

    test('the window, the count and CRLF as for UTF-8; a NUL byte still means binary', async () => {
      const p = await write('latin1', Buffer.from('caf\xe9\r\nna\xefve\r\nthird', 'latin1'));
      expect(await readLineWindow(p, 2, 5, p, latin1)).toEqual({ firstLine: 2, lines: ['naïve', 'third'], totalLines: 3, binary: false });
      expect(await readLineWindow(await write('latin1-empty', ''), 1, 5, p, latin1)).toEqual({ firstLine: 1, lines: [], totalLines: 0, binary: false });
      expect((await readLineWindow(await write('latin1-bin', Buffer.from([0x41, 0, 0xe9])), 1, 5, p, latin1)).binary).toBe(true);
    });

    test('UTF-16 (by its BOM) is text, its NUL bytes included, and long lines are cut as in UTF-8', async () => {
      const p = await write('utf16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${'é'.repeat(5000)}\nshort\n`, 'utf16le')]));
      const w = await readLineWindow(p, 1, 2, p, new NodeTextCodec());
      expect(w.lines).toEqual([`${'é'.repeat(READ_LINE_CHARS)}… [line truncated: 5000 characters in total]`, 'short']);
      expect(w.totalLines).toBe(2);
    });
  });
});

describe('tools: read_file formatting', () => {
  test('numbers lines right-aligned, then total_lines', () => {
    expect(formatLineWindow({ firstLine: 9, lines: ['a', 'b'], totalLines: 10, binary: false })).toBe(' 9 | a\n10 | b\ntotal_lines: 10 (lines 9-10 shown)');
    expect(formatLineWindow({ firstLine: 1, lines: ['a'], totalLines: 1, binary: false })).toBe('1 | a\ntotal_lines: 1');
  });

  test('says which offset to pass when more lines follow', () => {
    expect(formatLineWindow({ firstLine: 1, lines: ['a', 'b'], totalLines: 5000, binary: false })).toBe(
      '1 | a\n2 | b\ntotal_lines: 5000 (lines 1-2 shown; to read on, call read_file with offset: 3)',
    );
  });

  test('stops adding lines at the output budget, and says where to go on', () => {
    const text = formatLineWindow({ firstLine: 1, lines: ['x'.repeat(60), 'y'.repeat(60), 'z'], totalLines: 3, binary: false }, 100);
    expect(text).toBe(`1 | ${'x'.repeat(60)}\ntotal_lines: 3 (lines 1-1 shown; to read on, call read_file with offset: 2)`);
  });

  test('an empty file', () => {
    expect(formatLineWindow({ firstLine: 1, lines: [], totalLines: 0, binary: false })).toBe('(the file is empty)\ntotal_lines: 0');
  });
});
