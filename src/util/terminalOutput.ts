// Turns raw terminal output (VS Code's `execution.read()` stream) into plain text for the model,
// and caps it keeping head and tail (vscode-pitfalls.md items 14-15).
//
// The cleaner is a small VT-style state machine fed one UTF-16 unit at a time, so an escape
// sequence split across chunks is stripped exactly like an unsplit one. It keeps a one-line
// "screen" with a cursor so that `\r` (progress bars), backspace, erase-in-line and horizontal
// cursor moves give what a terminal would show on that line.

type ParserState =
  | 'ground'
  | 'escape' // after ESC
  | 'escapeIntermediate' // ESC followed by 0x20-0x2F, e.g. ESC ( B
  | 'csi' // ESC [ … final byte
  | 'osc' // ESC ] … BEL or ST
  | 'string' // DCS (ESC P), SOS (ESC X), PM (ESC ^), APC (ESC _) … ST
  | 'stringEscape'; // ESC inside an OSC/string: ST if the next char is '\'

const ESC = 0x1b;
// Runs of these are written straight to the line; anything else goes through the state machine.
const NOT_PLAIN_TEXT = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
// Cursor moves are bounded so `ESC [ 99999999 C` cannot allocate a huge line of padding.
const MAX_CURSOR_JUMP_COLUMN = 1000;

export class TerminalOutputCleaner {
  private state: ParserState = 'ground';
  private csiParams = '';
  private csiHasIntermediate = false;
  private line = '';
  private cursor = 0;
  private completed: string[] = [];
  private finished = false;

  /** Feeds a chunk of raw output; may end in the middle of an escape sequence or a `\r\n`. */
  push(chunk: string): void {
    if (this.finished) {
      throw new Error('TerminalOutputCleaner.push() was called after finish(); use a new cleaner for new output.');
    }
    let i = 0;
    while (i < chunk.length) {
      if (this.state === 'ground') {
        NOT_PLAIN_TEXT.lastIndex = i;
        const special = NOT_PLAIN_TEXT.exec(chunk);
        const end = special ? special.index : chunk.length;
        if (end > i) {
          this.write(chunk.slice(i, end));
          i = end;
          continue;
        }
      }
      this.handle(chunk.charCodeAt(i));
      i++;
    }
  }

  /**
   * Removes and returns the lines completed so far (each ending in `\n`). Lets a caller stream the
   * text into a bounded buffer instead of keeping all of it here.
   */
  drainCompleted(): string {
    const text = this.completed.join('');
    this.completed = [];
    return text;
  }

  /**
   * Ends the output: returns everything not drained yet, including the last, unterminated line.
   * An escape sequence still open at this point is dropped.
   */
  finish(): string {
    this.finished = true;
    const text = this.drainCompleted() + this.line;
    this.line = '';
    this.cursor = 0;
    return text;
  }

  private handle(code: number): void {
    switch (this.state) {
      case 'ground':
        this.handleGround(code);
        return;
      case 'escape':
        if (code === 0x5b) this.startCsi();
        else if (code === 0x5d) this.state = 'osc';
        else if (code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) this.state = 'string';
        else if (code === ESC) this.state = 'escape';
        else if (code >= 0x20 && code <= 0x2f) this.state = 'escapeIntermediate';
        else if (code >= 0x30 && code <= 0x7e) this.state = 'ground'; // two-char sequence: ESC 7, ESC =, ESC M…
        else this.abortSequenceAndReprocess(code);
        return;
      case 'escapeIntermediate':
        if (code >= 0x20 && code <= 0x2f) return;
        if (code >= 0x30 && code <= 0x7e) this.state = 'ground';
        else this.abortSequenceAndReprocess(code);
        return;
      case 'csi':
        if (code >= 0x30 && code <= 0x3f) this.csiParams += String.fromCharCode(code);
        else if (code >= 0x20 && code <= 0x2f) this.csiHasIntermediate = true;
        else if (code >= 0x40 && code <= 0x7e) {
          this.state = 'ground';
          if (!this.csiHasIntermediate) this.applyCsi(String.fromCharCode(code), this.csiParams);
        } else if (code === ESC) this.state = 'escape';
        else if (code === 0x18 || code === 0x1a) this.state = 'ground'; // CAN / SUB cancel a sequence
        else if (code < 0x20) this.handleControl(code); // a terminal executes C0 controls inside CSI
        else if (code !== 0x7f) this.abortSequenceAndReprocess(code);
        return;
      case 'osc':
        if (code === 0x07 || code === 0x9c || code === 0x18 || code === 0x1a) this.state = 'ground';
        else if (code === ESC) this.state = 'stringEscape';
        return;
      case 'string':
        if (code === 0x9c || code === 0x18 || code === 0x1a) this.state = 'ground';
        else if (code === ESC) this.state = 'stringEscape';
        return;
      case 'stringEscape':
        if (code === 0x5c) this.state = 'ground'; // ESC \ = ST
        else {
          // Any other ESC ends the string and starts a new sequence.
          this.state = 'escape';
          this.handle(code);
        }
        return;
    }
  }

  private abortSequenceAndReprocess(code: number): void {
    this.state = 'ground';
    this.handleGround(code);
  }

  private handleGround(code: number): void {
    if (code === ESC) this.state = 'escape';
    else if (code === 0x9b) this.startCsi(); // C1 forms of CSI, OSC, DCS, SOS, PM, APC
    else if (code === 0x9d) this.state = 'osc';
    else if (code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f) this.state = 'string';
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) this.handleControl(code);
    else this.write(String.fromCharCode(code));
  }

  private handleControl(code: number): void {
    if (code === 0x0a) this.commitLine();
    else if (code === 0x0d) this.cursor = 0;
    else if (code === 0x08) this.cursor = Math.max(0, this.cursor - 1);
    else if (code === 0x09) this.write('\t');
    // Other controls (BEL, NUL, DEL, stray C1…) are invisible: dropped.
  }

  private startCsi(): void {
    this.state = 'csi';
    this.csiParams = '';
    this.csiHasIntermediate = false;
  }

  /** Only the sequences that change what the current line shows; the rest are just removed. */
  private applyCsi(final: string, params: string): void {
    if (/^[<=>?]/.test(params)) return; // private modes (cursor visibility, bracketed paste…)
    const first = params.split(';')[0];
    const n = first === '' ? 0 : Number.parseInt(first, 10);
    const jumpLimit = Math.max(this.line.length, MAX_CURSOR_JUMP_COLUMN);
    switch (final) {
      case 'K': // erase in line: 0 = to end, 1 = to start, 2 = whole line
        if (n === 0) this.line = this.line.slice(0, this.cursor);
        else if (n === 1) this.line = ' '.repeat(Math.min(this.cursor + 1, this.line.length)) + this.line.slice(this.cursor + 1);
        else if (n === 2) this.line = '';
        break;
      case 'G': // cursor to column n (1-based)
      case '`':
        this.cursor = Math.min(Math.max(0, (n || 1) - 1), jumpLimit);
        break;
      case 'C': // cursor forward
        this.cursor = Math.min(this.cursor + (n || 1), jumpLimit);
        break;
      case 'D': // cursor back
        this.cursor = Math.max(0, this.cursor - (n || 1));
        break;
    }
  }

  private write(text: string): void {
    if (this.cursor > this.line.length) this.line += ' '.repeat(this.cursor - this.line.length);
    if (this.cursor === this.line.length) this.line += text;
    else this.line = this.line.slice(0, this.cursor) + text + this.line.slice(this.cursor + text.length);
    this.cursor += text.length;
  }

  private commitLine(): void {
    this.completed.push(this.line + '\n');
    this.line = '';
    this.cursor = 0;
  }
}

/** One-shot form of {@link TerminalOutputCleaner}. */
export function cleanTerminalOutput(raw: string): string {
  const cleaner = new TerminalOutputCleaner();
  cleaner.push(raw);
  return cleaner.finish();
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function omissionMarker(omittedChars: number, omittedLines: number): string {
  return `[... output truncated: ${omittedChars} characters (${omittedLines} lines) omitted ...]`;
}

// The tail usually holds the result (errors, summary), so it gets the larger share.
const HEAD_SHARE = 0.4;

/**
 * Builds the capped text from the first and last `maxChars` characters of a longer text plus its
 * totals, so a streaming buffer never needs the middle. Cuts at line breaks when that keeps at
 * least half of the budget, otherwise mid-line.
 */
function capFromEnds(prefix: string, suffix: string, totalChars: number, totalNewlines: number, maxChars: number): string {
  // Reserve room for the longest marker these totals can produce, plus the line breaks around it.
  const budget = Math.max(0, maxChars - omissionMarker(totalChars, totalNewlines).length - 2);
  const headBudget = Math.floor(budget * HEAD_SHARE);
  const tailBudget = budget - headBudget;

  let head = prefix.slice(0, headBudget);
  const lastBreak = head.lastIndexOf('\n');
  if (lastBreak !== -1 && lastBreak + 1 >= headBudget / 2) head = head.slice(0, lastBreak + 1);

  let tail = tailBudget > 0 ? suffix.slice(suffix.length - tailBudget) : '';
  const startsAtLine = tail.length === suffix.length || suffix[suffix.length - tail.length - 1] === '\n';
  if (!startsAtLine) {
    const firstBreak = tail.indexOf('\n');
    if (firstBreak !== -1 && tail.length - (firstBreak + 1) >= tailBudget / 2) tail = tail.slice(firstBreak + 1);
  }

  const omittedChars = totalChars - head.length - tail.length;
  const omittedLines = totalNewlines - countNewlines(head) - countNewlines(tail);
  const separator = head === '' || head.endsWith('\n') ? '' : '\n';
  return `${head}${separator}${omissionMarker(omittedChars, omittedLines)}\n${tail}`;
}

function assertValidMax(maxChars: number): void {
  if (!Number.isInteger(maxChars) || maxChars < 0) {
    throw new RangeError(`maxChars must be a non-negative integer, got ${maxChars}`);
  }
}

/**
 * Returns `text` unchanged when it fits in `maxChars`; otherwise about 40% head and 60% tail with a
 * marker line between them saying how many characters and lines were omitted. The result is at
 * most `maxChars` long as long as `maxChars` exceeds the marker line (~70 characters); below that
 * only the marker is returned.
 */
export function capOutput(text: string, maxChars: number): string {
  assertValidMax(maxChars);
  if (text.length <= maxChars) return text;
  return capFromEnds(text.slice(0, maxChars), text.slice(text.length - maxChars), text.length, countNewlines(text), maxChars);
}

/**
 * Accumulates text of unknown length in bounded memory: the first `maxChars` characters and a
 * rolling window of the last ones (at most ~3 × maxChars retained). `toString()` equals
 * `capOutput(allAppendedText, maxChars)`.
 */
export class HeadTailTextBuffer {
  private head = '';
  private tailChunks: string[] = [];
  private tailLength = 0;
  private total = 0;
  private newlines = 0;

  constructor(readonly maxChars: number) {
    assertValidMax(maxChars);
  }

  append(text: string): void {
    if (text === '') return;
    this.total += text.length;
    this.newlines += countNewlines(text);
    let rest = text;
    if (this.head.length < this.maxChars) {
      const room = this.maxChars - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest === '') return;
    this.tailChunks.push(rest);
    this.tailLength += rest.length;
    // Compact only when well over the window, so the cost stays amortised O(1) per character.
    if (this.tailLength > 2 * this.maxChars) {
      const joined = this.tailChunks.join('');
      const window = joined.slice(joined.length - this.maxChars);
      this.tailChunks = [window];
      this.tailLength = window.length;
    }
  }

  /** Characters appended so far. */
  get totalChars(): number {
    return this.total;
  }

  get truncated(): boolean {
    return this.total > this.maxChars;
  }

  /** Characters currently held in memory (for diagnostics and tests). */
  get retainedChars(): number {
    return this.head.length + this.tailLength;
  }

  toString(): string {
    if (!this.truncated) return this.head;
    const tail = this.tailChunks.join('');
    const all = tail.length >= this.maxChars ? tail : this.head + tail;
    const suffix = all.slice(all.length - this.maxChars);
    return capFromEnds(this.head, suffix, this.total, this.newlines, this.maxChars);
  }
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
 * stream has no end marker and may never finish, so the caller bounds it (pitfall 14). Output is
 * cleaned as it arrives and kept in a {@link HeadTailTextBuffer}, so memory stays bounded.
 */
export async function collectTerminalOutput(
  chunks: AsyncIterable<string>,
  options: { maxChars: number; signal?: AbortSignal },
): Promise<CollectedTerminalOutput> {
  const { maxChars, signal } = options;
  const cleaner = new TerminalOutputCleaner();
  const buffer = new HeadTailTextBuffer(maxChars);
  const result = (aborted: boolean): CollectedTerminalOutput => {
    buffer.append(cleaner.finish());
    return { text: buffer.toString(), totalChars: buffer.totalChars, truncated: buffer.truncated, aborted };
  };
  if (signal?.aborted) return result(true);

  const iterator = chunks[Symbol.asyncIterator]();
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
        return result(true);
      }
      if (next.done) return result(false);
      cleaner.push(next.value);
      buffer.append(cleaner.drainCompleted());
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
