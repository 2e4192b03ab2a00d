// Text of any length capped to a number of characters by keeping its start and end, with a marker
// line saying how much was left out: for a command's output (src/terminal/terminalOutput.ts) and a
// notebook cell's (src/tools/notebookOutput.ts).

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
