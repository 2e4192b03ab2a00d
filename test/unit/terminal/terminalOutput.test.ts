import {
  capOutput,
  collectTerminalOutput,
  HeadTailTextBuffer,
  renderTerminalOutput as cleanTerminalOutput,
  TerminalScreen,
} from '../../../src/terminal/terminalOutput';

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

const SAMPLE_CLEAN = 'green text\nlink\ndcs-gone\nafter strings\nkeep\nprogress 100%\naXc\nc1-csi\n日本 ✓ 😀\n';

async function cleanInChunks(chunks: string[]): Promise<string> {
  const screen = await TerminalScreen.create();
  for (const chunk of chunks) screen.write(chunk);
  return screen.finish();
}

describe('TerminalScreen (@xterm/headless)', () => {
  it('strips every kind of sequence in one chunk', async () => {
    expect(await cleanTerminalOutput(SAMPLE)).toBe(SAMPLE_CLEAN);
  });

  it('gives the same text for a split at every possible boundary', async () => {
    for (let i = 0; i <= SAMPLE.length; i++) {
      expect([i, await cleanInChunks([SAMPLE.slice(0, i), SAMPLE.slice(i)])]).toEqual([i, SAMPLE_CLEAN]);
    }
  }, 60_000); // hundreds of headless terminals: seconds on a loaded 2-core machine (it once passed jest's 5 s)

  it('gives the same text for every pair of split points (three chunks)', async () => {
    // Sequences shorter than the sample, so the O(n²) loop stays fast but covers each sequence kind.
    const pieces = [`${ESC}]633;C${BEL}a${ESC}[31;1mb${ESC}]0;t${ST}c\r\n`, `${ESC}P+q${ST}d${ESC}(0e\rE\b\bZ\r\n`, `x\u009d0;t\u009cy${ESC}_a${ESC}\\z`];
    for (const input of pieces) {
      const expected = await cleanTerminalOutput(input);
      for (let i = 0; i <= input.length; i++) {
        for (let j = i; j <= input.length; j++) {
          const got = await cleanInChunks([input.slice(0, i), input.slice(i, j), input.slice(j)]);
          if (got !== expected) throw new Error(`split at ${i},${j} of ${JSON.stringify(input)}: ${JSON.stringify(got)}`);
        }
      }
    }
    expect(await cleanTerminalOutput(pieces[0])).toBe('abc\n');
    expect(await cleanTerminalOutput(pieces[1])).toBe('Z␊\n'); // ESC ( 0: DEC line drawing, as on screen
    expect(await cleanTerminalOutput(pieces[2])).toBe('xyz');
  }, 120_000); // ~2,500 emulator runs: a correctness sweep, not a timing

  it('gives the same text when fed one character at a time', async () => {
    expect(await cleanInChunks([...SAMPLE].flatMap((c) => c.split('')))).toBe(SAMPLE_CLEAN);
  });

  it('handles a CRLF split between chunks', async () => {
    expect(await cleanInChunks(['a\r', '\nb\r', '\n'])).toBe('a\nb\n');
  });

  it('overwrites the line after a lone \\r like a terminal does', async () => {
    expect(await cleanTerminalOutput('abcdef\rxy\n')).toBe('xycdef\n');
    expect(await cleanTerminalOutput('downloading 10%\rdownloading 100%\rdone')).toBe('doneloading 100%');
    expect(await cleanTerminalOutput('50%\r')).toBe('50%');
  });

  it('applies erase-in-line and horizontal cursor moves used by progress bars', async () => {
    expect(await cleanTerminalOutput(`downloading 100%\r${ESC}[Kdone\n`)).toBe('done\n');
    expect(await cleanTerminalOutput(`abcdef${ESC}[3G${ESC}[0KX\n`)).toBe('abX\n');
    expect(await cleanTerminalOutput(`abcdef${ESC}[2KX`)).toBe('      X');
    expect(await cleanTerminalOutput(`abcdef${ESC}[4D${ESC}[1KX`)).toBe('  Xdef'); // erased through the cursor column, X written at it
    expect(await cleanTerminalOutput(`a${ESC}[3Cb`)).toBe('a   b');
    expect((await cleanTerminalOutput(`a${ESC}[99999999Cb`)).length).toBeLessThan(1100);
  });

  it('moves back on backspace without going before the line start', async () => {
    expect(await cleanTerminalOutput('ab\b\b\b\bX\n')).toBe('Xb\n');
    expect(await cleanTerminalOutput('abc\b \b\n')).toBe('ab \n');
  });

  it('drops other control characters; a tab moves to the next tab stop, as on screen', async () => {
    expect(await cleanTerminalOutput(`a${BEL}b\x00c\x7fd\te\x0ef\n`)).toBe('abcd    ef\n');
  });

  it('ends an OSC/string on an ESC that is not ST and parses the new sequence', async () => {
    expect(await cleanTerminalOutput(`${ESC}]0;title${ESC}[31mred`)).toBe('red');
    expect(await cleanTerminalOutput(`${ESC}Pdcs${ESC}]0;x${BEL}ok`)).toBe('ok');
  });

  it('cancels a sequence on CAN/SUB and executes newlines inside CSI', async () => {
    expect(await cleanTerminalOutput(`${ESC}[31\x18m!`)).toBe('m!');
    expect(await cleanTerminalOutput(`a${ESC}[3\n1mb`)).toBe('a\nb');
  });

  it('drops a sequence still open at the end', async () => {
    expect(await cleanTerminalOutput(`text${ESC}]633;E;unterminated`)).toBe('text');
    expect(await cleanTerminalOutput(`text${ESC}`)).toBe('text');
  });

  it('streams lines out once they scroll off the screen, in order, none lost or doubled', async () => {
    const screen = await TerminalScreen.create();
    const drained: string[] = [];
    const lines = Array.from({ length: 5000 }, (_, i) => `row ${i} ${'x'.repeat(i % 700)}`); // some wrap
    for (let i = 0; i < lines.length; i += 37) {
      screen.write(
        lines
          .slice(i, i + 37)
          .map((l) => `${ESC}[3${i % 8}m${l}${ESC}[0m\r\n`)
          .join(''),
      );
      await screen.flush();
      drained.push(screen.drainCompleted());
    }
    expect(drained.join('').split('\n').length).toBeGreaterThan(4800); // most left before the end
    expect(drained.join('') + (await screen.finish())).toBe(lines.join('\n') + '\n');
  });

  it('keeps a multi-line redraw as its last frame (cursor up and absolute rows)', async () => {
    const frame = (n: number) => `${ESC}[2A\r${ESC}[Kpkg-a ${n}%\n\r${ESC}[Kpkg-b ${n * 2}%\n`;
    const raw = 'start\npkg-a 0%\npkg-b 0%\n' + [10, 20, 50].map(frame).join('') + 'done\n';
    expect(await cleanTerminalOutput(raw)).toBe('start\npkg-a 50%\npkg-b 100%\ndone\n');
  });

  it('refuses input after finish', async () => {
    const screen = await TerminalScreen.create();
    await screen.finish();
    expect(() => screen.write('x')).toThrow(/after finish/);
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
      for (let i = 0; i < text.length;) {
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
    let askedForMore!: () => void;
    const firstChunkTaken = new Promise<void>((r) => (askedForMore = r));
    async function* endless(): AsyncGenerator<string> {
      try {
        yield 'first line\r\nsecond';
        askedForMore(); // the collector took the first chunk and asks for the next
        await new Promise(() => undefined); // no end marker, ever
      } finally {
        returned = true;
      }
    }
    const pending = collectTerminalOutput(endless(), { maxChars: 100, signal: controller.signal });
    await firstChunkTaken;
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
