import {
  capOutput,
  cleanTerminalOutput,
  collectTerminalOutput,
  HeadTailTextBuffer,
  TerminalOutputCleaner,
} from '../../src/util/terminalOutput';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** Output as VS Code's shell integration stream really looks, with every sequence kind. */
const SAMPLE =
  `${ESC}]633;C${BEL}` + // OSC, BEL-terminated (command executed)
  `${ESC}[1;32mgreen${ESC}[0m text\r\n` + // SGR colours, CRLF
  `${ESC}]8;;https://example.com${ST}link${ESC}]8;;${ST}\r\n` + // OSC 8 hyperlink, ST-terminated
  `${ESC}P1$r0m${ST}dcs-gone\r\n` + // DCS
  `${ESC}_apc payload${ST}${ESC}^pm${ST}${ESC}Xsos${ST}after strings\n` + // APC, PM, SOS
  `${ESC}7${ESC}=${ESC}(Bkeep${ESC}8\n` + // 2-char ESC, ESC with intermediate
  `${ESC}[?25lprogress 10%\rprogress 50%\rprogress 100%${ESC}[?25h\n` + // private CSI + CR overwrite
  `abc\b\bX\n` + // backspace
  `\u009b31mc1-csi\u009b0m\n` + // 8-bit CSI
  `日本 ✓ 😀\n` +
  `${ESC}]633;D;0${BEL}`;

const SAMPLE_CLEAN =
  'green text\nlink\ndcs-gone\nafter strings\nkeep\nprogress 100%\naXc\nc1-csi\n日本 ✓ 😀\n';

function cleanInChunks(chunks: string[]): string {
  const cleaner = new TerminalOutputCleaner();
  for (const chunk of chunks) cleaner.push(chunk);
  return cleaner.finish();
}

describe('TerminalOutputCleaner', () => {
  it('strips every kind of sequence in one chunk', () => {
    expect(cleanTerminalOutput(SAMPLE)).toBe(SAMPLE_CLEAN);
  });

  it('gives the same text for a split at every possible boundary', () => {
    for (let i = 0; i <= SAMPLE.length; i++) {
      expect([i, cleanInChunks([SAMPLE.slice(0, i), SAMPLE.slice(i)])]).toEqual([i, SAMPLE_CLEAN]);
    }
  });

  it('gives the same text for every pair of split points (three chunks)', () => {
    // Sequences shorter than the sample, so the O(n²) loop stays fast but covers each sequence kind.
    const pieces = [
      `${ESC}]633;C${BEL}a${ESC}[31;1mb${ESC}]0;t${ST}c\r\n`,
      `${ESC}P+q${ST}d${ESC}(0e\rE\b\bZ\r\n`,
      `x\u009d0;t\u009cy${ESC}_a${ESC}\\z`,
    ];
    for (const input of pieces) {
      const expected = cleanTerminalOutput(input);
      for (let i = 0; i <= input.length; i++) {
        for (let j = i; j <= input.length; j++) {
          const got = cleanInChunks([input.slice(0, i), input.slice(i, j), input.slice(j)]);
          if (got !== expected) throw new Error(`split at ${i},${j} of ${JSON.stringify(input)}: ${JSON.stringify(got)}`);
        }
      }
    }
    expect(cleanTerminalOutput(pieces[0])).toBe('abc\n');
    expect(cleanTerminalOutput(pieces[1])).toBe('Ze\n');
    expect(cleanTerminalOutput(pieces[2])).toBe('xyz');
  });

  it('gives the same text when fed one character at a time', () => {
    expect(cleanInChunks([...SAMPLE].flatMap((c) => c.split('')))).toBe(SAMPLE_CLEAN);
  });

  it('handles a CRLF split between chunks', () => {
    expect(cleanInChunks(['a\r', '\nb\r', '\n'])).toBe('a\nb\n');
  });

  it('overwrites the line after a lone \\r like a terminal does', () => {
    expect(cleanTerminalOutput('abcdef\rxy\n')).toBe('xycdef\n');
    expect(cleanTerminalOutput('downloading 10%\rdownloading 100%\rdone')).toBe('doneloading 100%');
    expect(cleanTerminalOutput('50%\r')).toBe('50%');
  });

  it('applies erase-in-line and horizontal cursor moves used by progress bars', () => {
    expect(cleanTerminalOutput(`downloading 100%\r${ESC}[Kdone\n`)).toBe('done\n');
    expect(cleanTerminalOutput(`abcdef${ESC}[3G${ESC}[0KX\n`)).toBe('abX\n');
    expect(cleanTerminalOutput(`abcdef${ESC}[2KX`)).toBe('      X');
    expect(cleanTerminalOutput(`abcdef${ESC}[4D${ESC}[1KX`)).toBe('  Xdef'); // erased through the cursor column, X written at it
    expect(cleanTerminalOutput(`a${ESC}[3Cb`)).toBe('a   b');
    expect(cleanTerminalOutput(`a${ESC}[99999999Cb`).length).toBeLessThan(1100);
  });

  it('moves back on backspace without going before the line start', () => {
    expect(cleanTerminalOutput('ab\b\b\b\bX\n')).toBe('Xb\n');
    expect(cleanTerminalOutput('abc\b \b\n')).toBe('ab \n');
  });

  it('drops other control characters but keeps tabs', () => {
    expect(cleanTerminalOutput(`a${BEL}b\x00c\x7fd\te\x0ef\n`)).toBe('abcd\tef\n');
  });

  it('ends an OSC/string on an ESC that is not ST and parses the new sequence', () => {
    expect(cleanTerminalOutput(`${ESC}]0;title${ESC}[31mred`)).toBe('red');
    expect(cleanTerminalOutput(`${ESC}Pdcs${ESC}]0;x${BEL}ok`)).toBe('ok');
  });

  it('cancels a sequence on CAN/SUB and executes newlines inside CSI', () => {
    expect(cleanTerminalOutput(`${ESC}[31\x18m!`)).toBe('m!');
    expect(cleanTerminalOutput(`a${ESC}[3\n1mb`)).toBe('a\nb');
  });

  it('drops a sequence still open at the end', () => {
    expect(cleanTerminalOutput(`text${ESC}]633;E;unterminated`)).toBe('text');
    expect(cleanTerminalOutput(`text${ESC}`)).toBe('text');
  });

  it('streams completed lines through drainCompleted', () => {
    const cleaner = new TerminalOutputCleaner();
    cleaner.push(`one\r\ntw${ESC}[3`);
    expect(cleaner.drainCompleted()).toBe('one\n');
    expect(cleaner.drainCompleted()).toBe('');
    cleaner.push('1mo\nthr');
    expect(cleaner.drainCompleted()).toBe('two\n');
    cleaner.push('ee');
    expect(cleaner.finish()).toBe('three');
  });

  it('refuses input after finish', () => {
    const cleaner = new TerminalOutputCleaner();
    cleaner.finish();
    expect(() => cleaner.push('x')).toThrow(/after finish/);
  });
});

/** Parses the numbers out of the marker line, to check them against the text. */
function markerCounts(capped: string): { chars: number; lines: number } {
  const m = /\[\.\.\. output truncated: (\d+) characters \((\d+) lines\) omitted \.\.\.\]/.exec(capped);
  if (!m) throw new Error(`no marker in ${JSON.stringify(capped)}`);
  return { chars: Number(m[1]), lines: Number(m[2]) };
}

/** The kept head and tail of a capped text (the line break added before the marker removed). */
function splitCapped(original: string, capped: string): { head: string; tail: string } {
  const markerStart = capped.indexOf('[... output truncated:');
  const markerEnd = capped.indexOf(']\n', markerStart) + 2;
  let head = capped.slice(0, markerStart);
  if (!original.startsWith(head)) head = head.slice(0, -1);
  return { head, tail: capped.slice(markerEnd) };
}

describe('capOutput', () => {
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}`);
  const text = lines.join('\n') + '\n';

  it('returns short text unchanged', () => {
    expect(capOutput('abc\n', 4)).toBe('abc\n');
    expect(capOutput('', 0)).toBe('');
  });

  it('keeps head and tail at line boundaries with exact omitted counts, within maxChars', () => {
    const capped = capOutput(text, 2000);
    expect(capped.length).toBeLessThanOrEqual(2000);
    expect(capped.startsWith('line 0000\nline 0001\n')).toBe(true);
    expect(capped.endsWith('line 0998\nline 0999\n')).toBe(true);
    const { head, tail } = splitCapped(text, capped);
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(head.endsWith('\n')).toBe(true);
    expect(lines).toContain(tail.split('\n')[0]); // the tail starts on a whole line
    const { chars, lines: omittedLines } = markerCounts(capped);
    expect(chars).toBe(text.length - head.length - tail.length);
    const omitted = text.slice(head.length, text.length - tail.length);
    expect(omittedLines).toBe(omitted.split('\n').length - 1);
    expect(tail.length).toBeGreaterThan(head.length); // the tail gets the larger share
  });

  it('cuts a single huge line in the middle', () => {
    const huge = 'x'.repeat(10_000);
    const capped = capOutput(huge, 500);
    expect(capped.length).toBeLessThanOrEqual(500);
    const { head, tail } = splitCapped(huge, capped);
    expect(huge.startsWith(head) && huge.endsWith(tail)).toBe(true);
    expect(head.length).toBeGreaterThan(100);
    expect(tail.length).toBeGreaterThan(200);
    expect(markerCounts(capped)).toEqual({ chars: 10_000 - head.length - tail.length, lines: 0 });
  });

  it('returns only the marker when maxChars is too small for it', () => {
    expect(capOutput('y'.repeat(100), 10)).toMatch(/^\[\.\.\. output truncated: 100 characters \(0 lines\) omitted \.\.\.\]\n$/);
    expect(capOutput('y'.repeat(100), 0)).toContain('100 characters');
  });

  it('rejects a bad maxChars', () => {
    expect(() => capOutput('a', -1)).toThrow(RangeError);
    expect(() => capOutput('a', 1.5)).toThrow(RangeError);
  });
});

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('HeadTailTextBuffer', () => {
  it('equals capOutput of the whole text for random texts, chunkings and caps', () => {
    const random = prng(42);
    for (let round = 0; round < 300; round++) {
      const length = Math.floor(random() * 3000);
      let text = '';
      while (text.length < length) text += random() < 0.08 ? '\n' : String.fromCharCode(97 + Math.floor(random() * 26));
      const maxChars = Math.floor(random() * 1500);
      const buffer = new HeadTailTextBuffer(maxChars);
      for (let i = 0; i < text.length; ) {
        const size = Math.floor(random() * 400);
        buffer.append(text.slice(i, i + size));
        i += size;
      }
      const expected = capOutput(text, maxChars);
      if (buffer.toString() !== expected) throw new Error(`round ${round}: maxChars ${maxChars}, length ${text.length}`);
      expect(buffer.totalChars).toBe(text.length);
      expect(buffer.truncated).toBe(text.length > maxChars);
    }
  });

  it('keeps bounded memory however much is appended', () => {
    const buffer = new HeadTailTextBuffer(1000);
    const chunk = 'z'.repeat(99) + '\n';
    let maxRetained = 0;
    for (let i = 0; i < 100_000; i++) {
      buffer.append(chunk);
      maxRetained = Math.max(maxRetained, buffer.retainedChars);
    }
    expect(maxRetained).toBeLessThanOrEqual(3 * 1000 + chunk.length);
    expect(buffer.totalChars).toBe(10_000_000);
    expect(markerCounts(buffer.toString()).lines).toBeGreaterThan(99_000);
  });

  it('keeps bounded memory with a zero cap', () => {
    const buffer = new HeadTailTextBuffer(0);
    for (let i = 0; i < 100; i++) buffer.append('abc');
    expect(buffer.retainedChars).toBeLessThanOrEqual(3);
  });
});

async function* chunksOf(parts: string[]): AsyncGenerator<string> {
  for (const part of parts) {
    await Promise.resolve();
    yield part;
  }
}

describe('collectTerminalOutput', () => {
  it('cleans a stream whose sequences are split across chunks', async () => {
    const parts = SAMPLE.match(/[\s\S]{1,3}/g)!;
    const result = await collectTerminalOutput(chunksOf(parts), { maxChars: 10_000 });
    expect(result).toEqual({ text: SAMPLE_CLEAN, totalChars: SAMPLE_CLEAN.length, truncated: false, aborted: false });
  });

  it('caps long output keeping head and tail', async () => {
    const parts = Array.from({ length: 5000 }, (_, i) => `${ESC}[32mrow ${i}${ESC}[0m\r\n`);
    const result = await collectTerminalOutput(chunksOf(parts), { maxChars: 1000 });
    const clean = Array.from({ length: 5000 }, (_, i) => `row ${i}\n`).join('');
    expect(result.truncated).toBe(true);
    expect(result.totalChars).toBe(clean.length);
    expect(result.text).toBe(capOutput(clean, 1000));
    expect(result.text.startsWith('row 0\n')).toBe(true);
    expect(result.text.endsWith('row 4999\n')).toBe(true);
  });

  it('stops on abort for a stream that never ends, returning what arrived', async () => {
    const controller = new AbortController();
    let returned = false;
    async function* endless(): AsyncGenerator<string> {
      try {
        yield 'first line\r\nsecond';
        await new Promise(() => undefined); // no end marker, ever
      } finally {
        returned = true;
      }
    }
    const pending = collectTerminalOutput(endless(), { maxChars: 100, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(pending).resolves.toEqual({ text: 'first line\nsecond', totalChars: 17, truncated: false, aborted: true });
    expect(returned).toBe(false); // still suspended; return() is queued, not awaited
  });

  it('returns at once for an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await collectTerminalOutput(chunksOf(['x']), { maxChars: 10, signal: controller.signal });
    expect(result).toEqual({ text: '', totalChars: 0, truncated: false, aborted: true });
  });
});
