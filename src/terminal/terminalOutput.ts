// Turns raw terminal output (VS Code's `execution.read()` stream) into the text a user saw on the
// screen, and caps it keeping head and tail (docs/vscode-traps.md, traps 14-15).
//
// Rendering is done by @xterm/headless, the terminal emulator VS Code's own terminal is built on: it
// handles every escape sequence, `\r` progress bars, and output that redraws several lines (pv,
// apt's progress line, docker/npm/cargo multi-line bars) exactly as the user saw them, chunk-safe.
// It replaced a hand-written one-line "screen" that garbled multi-line redraws (issue 15; recordings
// in test/fixtures/terminal-recordings). Lines are taken out of the emulator as soon as they scroll
// above its viewport, where no cursor movement can reach them any more, so memory stays bounded.

import type { Terminal as HeadlessTerminal } from '@xterm/headless';
import { capOutput, HeadTailTextBuffer } from '../util/headTailText';

// The cap lives in util (executeCode's notebook outputs use it too); re-exported for this room's users.
export { capOutput, HeadTailTextBuffer };

// Wider than any real terminal, so a line the program drew for the user's width never wraps here
// (a `\r` would then go back to the wrong row); wrapped rows are joined into one line anyway.
const SCREEN_COLUMNS = 300;
// Taller than most real terminals: programs position the cursor in absolute rows of the user's screen.
const SCREEN_ROWS = 100;
// Input is written in slices of at most this many characters and drained after each, so at most this
// many rows can scroll into the scrollback between two drains: nothing is trimmed before it is read.
const WRITE_SLICE = 1024;
const SCROLLBACK_ROWS = 2 * WRITE_SLICE;
const FLUSH_EVERY_CHARS = 64 * 1024;

let loadedTerminalClass: Promise<typeof HeadlessTerminal> | undefined;
/** Loaded on the first command run, not at activation (it is ~180 KB). */
function loadTerminalClass(): Promise<typeof HeadlessTerminal> {
  loadedTerminalClass ??= import(/* webpackChunkName: "terminal" */ '@xterm/headless').then((m) => m.Terminal);
  return loadedTerminalClass;
}

/**
 * A headless terminal screen fed with raw output. `drainCompleted()` hands out the lines that can no
 * longer change; `finish()` the rest, as the screen shows it.
 */
export class TerminalScreen {
  private completed: string[] = [];
  /** Index of the first buffer row not drained yet (rows shift down as the scrollback is trimmed). */
  private drainMarker: { readonly line: number; readonly isDisposed: boolean; dispose(): void } | undefined;
  private finished = false;

  private constructor(private readonly terminal: HeadlessTerminal) {}

  static async create(): Promise<TerminalScreen> {
    const Terminal = await loadTerminalClass();
    // convertEol: a bare \n starts a new line, as the pty's onlcr would have made it.
    return new TerminalScreen(
      new Terminal({ cols: SCREEN_COLUMNS, rows: SCREEN_ROWS, scrollback: SCROLLBACK_ROWS, convertEol: true, allowProposedApi: true, logLevel: 'off' }),
    );
  }

  /**
   * Feeds a chunk of raw output; may end in the middle of an escape sequence or a character. The
   * emulator parses it in the background; lines that scroll off are drained right after each slice.
   */
  write(chunk: string): void {
    if (this.finished) {
      throw new Error('TerminalScreen.write() was called after finish(); use a new screen for new output.');
    }
    for (let i = 0; i < chunk.length; i += WRITE_SLICE) {
      this.terminal.write(chunk.slice(i, i + WRITE_SLICE), () => this.drainScrolledOff());
    }
  }

  /** Resolves once everything written so far has been parsed (and drained where it scrolled off). */
  flush(): Promise<void> {
    return new Promise((resolve) => this.terminal.write('', resolve));
  }

  /** Removes and returns the lines completed so far (each ending in `\n`). */
  drainCompleted(): string {
    const text = this.completed.join('');
    this.completed = [];
    return text;
  }

  /** Ends the output: everything not drained yet, as the screen shows it. */
  async finish(): Promise<string> {
    if (this.finished) throw new Error('TerminalScreen.finish() was called twice.');
    this.finished = true;
    await this.flush();
    const buffer = this.terminal.buffer.normal;
    // Up to the cursor's row (a blank cursor row = the output ended with a newline), or further down
    // when something was drawn below it; the untouched rows of the screen are not output.
    let lastRow = buffer.baseY + buffer.cursorY;
    for (let row = buffer.length - 1; row > lastRow; row--) {
      if (buffer.getLine(row)?.translateToString(true)) {
        lastRow = row;
        break;
      }
    }
    const rest = this.logicalLines(this.firstUndrainedRow(), lastRow + 1);
    const text = this.drainCompleted() + rest.join('\n');
    this.drainMarker?.dispose();
    this.terminal.dispose();
    return text;
  }

  private firstUndrainedRow(): number {
    if (!this.drainMarker) return 0;
    // Disposed = trimmed away: cannot happen with WRITE_SLICE <= SCROLLBACK_ROWS / 2, but never re-read.
    return this.drainMarker.isDisposed ? 0 : this.drainMarker.line;
  }

  /** Moves the whole logical lines that lie entirely in the scrollback into `completed`. */
  private drainScrolledOff(): void {
    const buffer = this.terminal.buffer.normal;
    const from = this.firstUndrainedRow();
    // A row at or above baseY - 1 can still be continued by an auto-wrap into the viewport's first row.
    let end = from;
    for (let row = from; row < buffer.baseY; row++) {
      if (!buffer.getLine(row + 1)?.isWrapped) end = row + 1;
    }
    if (end === from) return;
    for (const line of this.logicalLines(from, end)) this.completed.push(line + '\n');
    this.drainMarker?.dispose();
    // Markers are placed relative to the cursor row and follow their row as the scrollback is trimmed.
    this.drainMarker = this.terminal.registerMarker(end - (buffer.baseY + buffer.cursorY));
  }

  private logicalLines(from: number, to: number): string[] {
    const buffer = this.terminal.buffer.normal;
    const lines: string[] = [];
    for (let row = from; row < to; row++) {
      const line = buffer.getLine(row);
      if (!line) break;
      const continues = buffer.getLine(row + 1)?.isWrapped === true && row + 1 < to;
      const text = line.translateToString(!continues);
      if (line.isWrapped && row > from && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines;
  }
}

/** One-shot form of {@link TerminalScreen}. */
export async function renderTerminalOutput(raw: string): Promise<string> {
  const screen = await TerminalScreen.create();
  screen.write(raw);
  return screen.finish();
}

export interface CollectedTerminalOutput {
  /** Cleaned output, capped with {@link capOutput}'s rules. */
  text: string;
  /** Length of the cleaned output before capping. */
  totalChars: number;
  truncated: boolean;
  /** True when `signal` stopped the collection before the stream ended. */
  aborted: boolean;
}

/**
 * Reads a chunk stream (e.g. `execution.read()`) to its end, or until `signal` aborts: that
 * stream has no end marker and may never finish, so the caller bounds it (trap 14). Output is
 * rendered as it arrives and kept in a {@link HeadTailTextBuffer}, so memory stays bounded.
 */
export async function collectTerminalOutput(
  chunks: AsyncIterable<string>,
  options: { maxChars: number; signal?: AbortSignal },
): Promise<CollectedTerminalOutput> {
  const { maxChars, signal } = options;
  const screen = await TerminalScreen.create();
  const buffer = new HeadTailTextBuffer(maxChars);
  const result = async (aborted: boolean): Promise<CollectedTerminalOutput> => {
    buffer.append(await screen.finish());
    return { text: buffer.toString(), totalChars: buffer.totalChars, truncated: buffer.truncated, aborted };
  };
  if (signal?.aborted) return result(true);

  const iterator = chunks[Symbol.asyncIterator]();
  let unparsed = 0;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted') {
        // Not awaited: a generator suspended in an await only returns once that await settles.
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
        return await result(true);
      }
      if (next.done) return await result(false);
      screen.write(next.value);
      unparsed += next.value.length;
      // Let the emulator catch up now and then, so a fast producer cannot queue megabytes in it.
      if (unparsed >= FLUSH_EVERY_CHARS) {
        await screen.flush();
        unparsed = 0;
      }
      buffer.append(screen.drainCompleted());
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
