// Parses and applies the SEARCH/REPLACE blocks of an `apply_diff` payload:
//
//   <<<<<<< SEARCH
//   old lines
//   =======
//   new lines
//   >>>>>>> REPLACE
//
// Matching works on whole lines: a SEARCH of k lines matches k consecutive lines of the file whose
// text (without line terminator) is identical. Line terminators are compared normalised, so a CRLF
// file matches an LF payload; lines the blocks do not touch are kept byte for byte (mixed line
// endings, BOM and final-newline state survive).
//
// This runs in the extension host, which every extension shares, so it must be linear and never
// hold the event loop for long. Every distinct line text gets an integer id (and, for the
// whitespace-insensitive pass, every whitespace-collapsed text); a SEARCH is then found as a
// sequence of ids with Knuth-Morris-Pratt, O(file lines + SEARCH lines) per block whatever the
// text. All work is counted in steps (a line read, compared or copied): the event loop is handed
// back every few milliseconds, and past MAX_APPLY_WORK steps the payload is refused with a message
// saying what to send instead.

import { performance } from 'node:perf_hooks';
import { hasBom, majorityEol, type Eol } from '../workspace/textFormat';

export interface SearchReplaceBlock {
  /** 1-based position of the block in the payload. */
  index: number;
  /** 1-based payload line of the block's `<<<<<<< SEARCH` marker. */
  line: number;
  searchLines: string[];
  /** Empty when the REPLACE section is empty: the matched lines are deleted. */
  replaceLines: string[];
}

export interface FailedBlock {
  /** 1-based position of the block in the payload. */
  index: number;
  /** The block's SEARCH text, lines joined with `\n`. */
  search: string;
  /** Why it was not applied, written for the model: says what to do next. */
  reason: string;
}

export interface ApplyBlocksResult {
  /** The new content; identical to the input when no block applied. */
  content: string;
  /** How many blocks were applied. */
  applied: number;
  failedBlocks: FailedBlock[];
}

/** The payload is not a well-formed list of blocks; nothing was applied. */
export class SearchReplaceParseError extends Error {
  override readonly name = 'SearchReplaceParseError';
}

/** Applying the payload would take more than the allowed work; nothing was applied. */
export class SearchReplaceLimitError extends Error {
  override readonly name = 'SearchReplaceLimitError';
}

/**
 * The most steps (a line read, compared or copied once; a long line counts once per 64 characters)
 * one payload may take: a dozen blocks or so on a 32 MiB file of a million lines, thousands on an
 * ordinary source file. Under a second of work, in slices of a few milliseconds.
 */
export const MAX_APPLY_WORK = 50_000_000;

export interface ApplyOptions {
  /** Steps allowed before {@link SearchReplaceLimitError}; default {@link MAX_APPLY_WORK}. */
  maxWork?: number;
  /** Receives the steps taken (for tests and benchmarks). */
  meter?: { steps: number };
}

// The event loop is handed back at least this often: the extension host runs every extension.
const SLICE_MS = 4;
// Steps gathered between two looks at the clock and the limit.
const CHUNK = 256;
// Reading a line counts one step, plus one per this many characters (a long line costs more).
const CHARS_PER_STEP = 64;

/** Counts steps, yields to the event loop when a slice is used up, and enforces the limit. */
class Work {
  steps = 0;
  private pending = 0;
  private sliceStart = performance.now();

  constructor(
    private readonly limit: number,
    private readonly meter?: { steps: number },
  ) {}

  /** Counts `steps`; true when enough have gathered that the caller should `await flush()`. */
  tally(steps: number): boolean {
    this.pending += steps;
    return this.pending >= CHUNK;
  }

  /** For a line of text: one step, and one more per CHARS_PER_STEP characters. */
  tallyText(text: string): boolean {
    return this.tally(1 + Math.floor(text.length / CHARS_PER_STEP));
  }

  async flush(): Promise<void> {
    this.steps += this.pending;
    this.pending = 0;
    if (this.meter) this.meter.steps = this.steps;
    if (this.steps > this.limit) throw new SearchReplaceLimitError(limitMessage(this.limit));
    if (performance.now() - this.sliceStart >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.sliceStart = performance.now();
    }
  }
}

function limitMessage(limit: number): string {
  return (
    `apply_diff stopped: this payload needs more than ${limit.toLocaleString('en-US')} steps on this file ` +
    '(lines read, compared or copied), the limit that keeps VS Code responsive. Nothing was applied. ' +
    'Send fewer blocks per call (spread them over several apply_diff calls), keep each SEARCH to the few lines ' +
    'that make it unique, or replace the whole file with write_file.'
  );
}

const SEARCH_MARKER = /^<{7}[ \t]*SEARCH\s*$/;
const DIVIDER_MARKER = /^={7}\s*$/;
const REPLACE_MARKER = /^>{7}[ \t]*REPLACE\s*$/;
// A content line that is literally a marker is written with a leading backslash.
const ESCAPED_MARKER = /^\\(?=(?:<{7}[ \t]*SEARCH|={7}|>{7}[ \t]*REPLACE)\s*$)/;

const FORMAT_HINT =
  'Each block must look like this:\n' +
  '<<<<<<< SEARCH\n(exact existing lines)\n=======\n(new lines)\n>>>>>>> REPLACE\n' +
  'A content line that is itself a marker line must be escaped with a leading backslash, e.g. "\\=======". ' +
  'No change was applied; fix the payload and retry.';

type Marker = 'search' | 'divider' | 'replace';

function markerOf(line: string): Marker | undefined {
  if (SEARCH_MARKER.test(line)) return 'search';
  if (DIVIDER_MARKER.test(line)) return 'divider';
  if (REPLACE_MARKER.test(line)) return 'replace';
  return undefined;
}

function unescapeLine(line: string): string {
  return ESCAPED_MARKER.test(line) ? line.slice(1) : line;
}

function parseError(message: string): SearchReplaceParseError {
  return new SearchReplaceParseError(`Malformed apply_diff payload: ${message}\n${FORMAT_HINT}`);
}

// A line's terminator as a small code, so a million lines are two typed arrays, not a million objects.
const NO_EOL = 0;
const LF = 1;
const CRLF = 2;
const EOL_TEXT = ['', '\n', '\r\n'] as const;

/**
 * Calls `visit` with each line of `content` and its terminator code; a `\r` before `\n` belongs to
 * the terminator. No empty line after a final newline.
 */
async function forEachLine(content: string, work: Work, visit: (text: string, eol: number) => void): Promise<void> {
  let start = 0;
  while (start < content.length) {
    const nl = content.indexOf('\n', start);
    const end = nl === -1 ? content.length : nl;
    const crlf = nl > start && content.charCodeAt(nl - 1) === 0x0d;
    const text = content.slice(start, crlf ? nl - 1 : end);
    visit(text, nl === -1 ? NO_EOL : crlf ? CRLF : LF);
    start = end + 1;
    if (work.tallyText(text)) await work.flush();
  }
  await work.flush();
}

/**
 * Splits a payload into blocks. Text outside blocks (prose, code fences, blank lines) is ignored;
 * CRLF is accepted. Throws {@link SearchReplaceParseError} on a malformed block or when there is
 * no block at all.
 */
export async function parseSearchReplaceBlocks(payload: string, options: ApplyOptions = {}): Promise<SearchReplaceBlock[]> {
  return parseWithin(payload, new Work(options.maxWork ?? MAX_APPLY_WORK, options.meter));
}

async function parseWithin(payload: string, work: Work): Promise<SearchReplaceBlock[]> {
  const lines: string[] = [];
  await forEachLine(payload, work, (text) => lines.push(text));
  const blocks: SearchReplaceBlock[] = [];
  let section: 'outside' | 'search' | 'replace' = 'outside';
  let current: SearchReplaceBlock = { index: 0, line: 0, searchLines: [], replaceLines: [] };
  const where = () => `block ${current.index} (starting at payload line ${current.line})`;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const lineNo = i + 1;
    const marker = markerOf(line);
    switch (section) {
      case 'outside':
        if (marker === 'search') {
          current = { index: blocks.length + 1, line: lineNo, searchLines: [], replaceLines: [] };
          section = 'search';
        } else if (marker !== undefined) {
          throw parseError(`found "${line.trim()}" at payload line ${lineNo} outside a block; every block must start with "<<<<<<< SEARCH".`);
        }
        break;
      case 'search':
        if (marker === undefined) current.searchLines.push(unescapeLine(line));
        else if (marker === 'divider') section = 'replace';
        else {
          throw parseError(`${where()}: expected "=======" after the SEARCH lines, but found "${line.trim()}" at payload line ${lineNo}.`);
        }
        break;
      case 'replace':
        if (marker === undefined) current.replaceLines.push(unescapeLine(line));
        else if (marker === 'replace') {
          blocks.push(current);
          section = 'outside';
        } else {
          throw parseError(`${where()}: expected ">>>>>>> REPLACE" to end the block, but found "${line.trim()}" at payload line ${lineNo}.`);
        }
        break;
    }
    if (work.tally(1)) await work.flush();
  }
  await work.flush();

  if (section === 'search') throw parseError(`${where()}: the payload ended before the "=======" line.`);
  if (section === 'replace') throw parseError(`${where()}: the payload ended before the ">>>>>>> REPLACE" line.`);
  if (blocks.length === 0) throw parseError('no SEARCH/REPLACE block found.');
  return blocks;
}

// Whitespace other than a single plain space: what collapsing would change inside a trimmed line.
const UNCOLLAPSED = /[^\S ]| {2}/;

/** Runs of whitespace as one space, none at the ends (trim and \s take the same characters). */
function collapseWhitespace(s: string): string {
  const trimmed = s.trim();
  return UNCOLLAPSED.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
}

/**
 * Every start index (0-based, overlapping ones included) where `needle` occurs in `hay`, by
 * Knuth-Morris-Pratt: at most 2 × (hay + needle) comparisons, whatever the input.
 */
async function findOccurrences(hay: Int32Array, needle: Int32Array, work: Work): Promise<number[]> {
  const found: number[] = [];
  const k = needle.length;
  if (k === 0 || k > hay.length) return found;
  // border[i]: the length of the longest proper prefix of needle[0..i] that is also a suffix of it.
  const border = new Int32Array(k);
  for (let i = 1, b = 0; i < k; i++) {
    while (b > 0 && needle[i] !== needle[b]) b = border[b - 1];
    if (needle[i] === needle[b]) b++;
    border[i] = b;
    if (work.tally(1)) await work.flush();
  }
  for (let i = 0, m = 0; i < hay.length; i++) {
    while (m > 0 && hay[i] !== needle[m]) m = border[m - 1];
    if (hay[i] === needle[m]) m++;
    if (m === k) {
      found.push(i - k + 1);
      m = border[k - 1];
    }
    if (work.tally(1)) await work.flush();
  }
  await work.flush();
  return found;
}

/**
 * The file as one id per line (lines with the same text have the same id) and a terminator code per
 * line, in typed arrays; each distinct text is kept once. A million-line file is then a few arrays
 * rather than a million live strings for the garbage collector to copy. The arrays are rebuilt as
 * blocks apply, never spliced with a spread (200,000 arguments overflow the call stack).
 */
class LineDocument {
  private readonly exactIds = new Map<string, number>();
  /** The text of each exact id. */
  private readonly texts: string[] = [];
  private readonly looseIds = new Map<string, number>();
  /** Whitespace-collapsed id by exact id; -1 until the whitespace-insensitive pass needs it. */
  private looseByExact = new Int32Array(0);
  private ids = new Int32Array(1024);
  eols = new Uint8Array(1024);
  length = 0;

  constructor(private readonly work: Work) {}

  /** Line breaks of the lines pushed, for the file's own line ending. */
  private readonly breaks = { crlf: 0, lf: 0 };

  /** Appends a line while loading. */
  push(text: string, eol: number): void {
    if (this.length === this.ids.length) {
      const ids = new Int32Array(Math.max(1024, this.length * 2));
      ids.set(this.ids);
      this.ids = ids;
      const eols = new Uint8Array(ids.length);
      eols.set(this.eols);
      this.eols = eols;
    }
    this.ids[this.length] = this.idOf(text);
    this.eols[this.length++] = eol;
    if (eol === CRLF) this.breaks.crlf++;
    else if (eol === LF) this.breaks.lf++;
  }

  /** The line ending of most lines pushed ('\n' when tied or none), as detectEol decides it for text. */
  majorityEol(): Eol {
    return majorityEol(this.breaks);
  }

  private idOf(text: string): number {
    let id = this.exactIds.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.exactIds.set(text, id);
      this.texts.push(text);
    }
    return id;
  }

  /** 0-based start indexes of every (possibly overlapping) place where `search` matches. */
  async find(search: readonly string[], mode: 'exact' | 'loose'): Promise<number[]> {
    if (mode === 'exact') {
      const needle = await this.needle(search, this.exactIds, (s) => s);
      return needle ? findOccurrences(this.ids.subarray(0, this.length), needle, this.work) : [];
    }
    // The file's whitespace-collapsed ids first: the SEARCH's are looked up among them.
    const hay = await this.looseHay();
    const needle = await this.needle(search, this.looseIds, collapseWhitespace);
    return needle ? findOccurrences(hay, needle, this.work) : [];
  }

  /** The SEARCH as ids, or undefined when a line of it is on no line of the file (then nothing matches). */
  private async needle(search: readonly string[], ids: Map<string, number>, key: (s: string) => string): Promise<Int32Array | undefined> {
    const needle = new Int32Array(search.length);
    for (let j = 0; j < search.length; j++) {
      const id = ids.get(key(search[j]));
      if (id === undefined) return undefined;
      needle[j] = id;
      if (this.work.tallyText(search[j])) await this.work.flush();
    }
    await this.work.flush();
    return needle;
  }

  /** The lines' whitespace-collapsed ids; each distinct text is collapsed once. */
  private async looseHay(): Promise<Int32Array> {
    if (this.looseByExact.length < this.texts.length) {
      const grown = new Int32Array(this.texts.length).fill(-1);
      grown.set(this.looseByExact);
      this.looseByExact = grown;
    }
    const hay = new Int32Array(this.length);
    for (let i = 0; i < this.length; i++) {
      const id = this.ids[i];
      let loose = this.looseByExact[id];
      let due: boolean;
      if (loose === -1) {
        const key = collapseWhitespace(this.texts[id]);
        loose = this.looseIds.get(key) ?? this.looseIds.size;
        if (loose === this.looseIds.size) this.looseIds.set(key, loose);
        this.looseByExact[id] = loose;
        due = this.work.tallyText(this.texts[id]);
      } else due = this.work.tally(1);
      hay[i] = loose;
      if (due) await this.work.flush();
    }
    await this.work.flush();
    return hay;
  }

  /** Replaces `count` lines at `at` with `texts`, terminated by `eols` (codes). */
  async replace(at: number, count: number, texts: readonly string[], eols: readonly number[]): Promise<void> {
    const length = this.length - count + texts.length;
    const ids = new Int32Array(length);
    const codes = new Uint8Array(length);
    ids.set(this.ids.subarray(0, at));
    codes.set(this.eols.subarray(0, at));
    for (let j = 0; j < texts.length; j++) {
      ids[at + j] = this.idOf(texts[j]);
      codes[at + j] = eols[j];
      if (this.work.tallyText(texts[j])) await this.work.flush();
    }
    ids.set(this.ids.subarray(at + count, this.length), at + texts.length);
    codes.set(this.eols.subarray(at + count, this.length), at + texts.length);
    this.work.tally(length); // the copies
    await this.work.flush();
    this.ids = ids;
    this.eols = codes;
    this.length = length;
  }

  /** The lines joined back, each with its own terminator. */
  async text(): Promise<string> {
    const parts: string[] = [];
    let part = '';
    for (let i = 0; i < this.length; i++) {
      part += this.texts[this.ids[i]] + EOL_TEXT[this.eols[i]];
      if (this.work.tally(1)) {
        parts.push(part);
        part = '';
        await this.work.flush();
      }
    }
    parts.push(part);
    await this.work.flush();
    return parts.join('');
  }
}

const QUOTE_MAX_LINES = 12;
const QUOTE_HEAD_LINES = 8;
const QUOTE_TAIL_LINES = 3;
const QUOTE_MAX_LINE_CHARS = 200;

/** The SEARCH text for an error message, shortened so a huge block cannot flood the reply. */
export function quoteSearchForMessage(searchLines: readonly string[]): string {
  const clip = (line: string): string =>
    line.length > QUOTE_MAX_LINE_CHARS ? `${line.slice(0, QUOTE_MAX_LINE_CHARS)}… (${line.length - QUOTE_MAX_LINE_CHARS} more characters)` : line;
  const shown =
    searchLines.length > QUOTE_MAX_LINES
      ? [
          ...searchLines.slice(0, QUOTE_HEAD_LINES).map(clip),
          `… (${searchLines.length - QUOTE_HEAD_LINES - QUOTE_TAIL_LINES} more lines) …`,
          ...searchLines.slice(-QUOTE_TAIL_LINES).map(clip),
        ]
      : searchLines.map(clip);
  return shown.join('\n');
}

function lineList(indexes: readonly number[]): string {
  const shown = indexes.slice(0, 10).map((i) => String(i + 1));
  return indexes.length > 10 ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** Applies one block to the document; returns why it could not, or undefined on success. */
async function applyBlock(doc: LineDocument, block: SearchReplaceBlock, newEol: number): Promise<string | undefined> {
  const { index, searchLines, replaceLines } = block;
  if (searchLines.every((l) => l.trim() === '')) {
    return (
      `Block ${index}: the SEARCH section is empty (or only whitespace), so it does not say where to change the file. ` +
      'Put the exact existing lines to replace between "<<<<<<< SEARCH" and "=======" ' +
      '(to create a file or replace all of it, write the whole file instead).'
    );
  }

  const matches = await doc.find(searchLines, 'exact');
  if (matches.length === 1) {
    const at = matches[0];
    const lastEol = doc.eols[at + searchLines.length - 1];
    // New lines get the file's own line ending; the last one keeps the terminator of the last
    // replaced line, so a match at the end of a file without final newline stays without one.
    const eols = replaceLines.map((_, j) => (j === replaceLines.length - 1 ? lastEol : newEol));
    await doc.replace(at, searchLines.length, replaceLines, eols);
    if (replaceLines.length === 0 && lastEol === NO_EOL && at > 0) doc.eols[at - 1] = NO_EOL;
    return undefined;
  }

  if (matches.length > 1) {
    return (
      `Block ${index}: SEARCH is ambiguous (${matches.length} matches found) at lines ${lineList(matches)}. ` +
      'Add surrounding lines to the SEARCH (and the same lines to the REPLACE) so it matches exactly one place.'
    );
  }

  const loose = await doc.find(searchLines, 'loose');
  const hint =
    loose.length === 1
      ? ` Lines that differ only in whitespace exist at line ${loose[0] + 1}: copy them exactly, including indentation.`
      : loose.length > 1
        ? ` (${loose.length} places match when whitespace is ignored, at lines ${lineList(loose)}.)`
        : '';
  return (
    `Block ${index}: SEARCH text not found. It must match whole existing lines exactly, including whitespace and indentation.${hint}\n` +
    `SEARCH was:\n${quoteSearchForMessage(searchLines)}\n` +
    'The file may have changed since you read it: re-read the file, then retry this block with its current text.'
  );
}

async function applyWithin(content: string, blocks: readonly SearchReplaceBlock[], work: Work): Promise<ApplyBlocksResult> {
  const bom = hasBom(content) ? '\uFEFF' : '';
  const body = bom ? content.slice(1) : content;
  const doc = new LineDocument(work);
  await forEachLine(body, work, (text, eol) => doc.push(text, eol));
  const newEol = doc.majorityEol() === '\r\n' ? CRLF : LF;
  const failedBlocks: FailedBlock[] = [];
  let applied = 0;

  for (const block of blocks) {
    const reason = await applyBlock(doc, block, newEol);
    if (reason === undefined) applied++;
    else failedBlocks.push({ index: block.index, search: block.searchLines.join('\n'), reason });
  }

  return { content: applied === 0 ? content : bom + (await doc.text()), applied, failedBlocks };
}

/**
 * Applies the blocks in order, each to the result of the previous ones. A block that fails leaves
 * the content unchanged and is reported in `failedBlocks`; the others are still applied.
 * Replacement text is inserted literally (`$&` and friends mean nothing here). Throws
 * {@link SearchReplaceLimitError} (nothing applied) past the work limit.
 */
export async function applySearchReplaceBlocks(content: string, blocks: readonly SearchReplaceBlock[], options: ApplyOptions = {}): Promise<ApplyBlocksResult> {
  return applyWithin(content, blocks, new Work(options.maxWork ?? MAX_APPLY_WORK, options.meter));
}

/**
 * Parses then applies a payload, within one work limit. Throws {@link SearchReplaceParseError}
 * before touching anything, or {@link SearchReplaceLimitError} with nothing applied.
 */
export async function applyDiffPayload(content: string, payload: string, options: ApplyOptions = {}): Promise<ApplyBlocksResult> {
  const work = new Work(options.maxWork ?? MAX_APPLY_WORK, options.meter);
  return applyWithin(content, await parseWithin(payload, work), work);
}

/**
 * Where `search` matches among `lines` (texts without terminators), exactly and ignoring whitespace,
 * found the way apply_diff finds a block: 0-based starts, overlapping ones included.
 */
export async function findLineMatches(
  lines: readonly string[],
  search: readonly string[],
  options: ApplyOptions = {},
): Promise<{ exact: number[]; loose: number[] }> {
  const work = new Work(options.maxWork ?? MAX_APPLY_WORK, options.meter);
  const doc = new LineDocument(work);
  for (const text of lines) doc.push(text, LF);
  return { exact: await doc.find(search, 'exact'), loose: await doc.find(search, 'loose') };
}
