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
// text. All work is counted in line steps: the event loop is handed back every few milliseconds,
// and past MAX_APPLY_WORK steps the payload is refused with a message saying what to send instead.

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
 * The most line steps (a line split, interned, copied or compared once) one payload may take: a
 * dozen blocks or so on a 32 MiB file of a million lines, thousands on an ordinary source file.
 * About a second of work on this project's CI machines, in slices of a few milliseconds.
 */
export const MAX_APPLY_WORK = 50_000_000;

export interface ApplyOptions {
  /** Line steps allowed before {@link SearchReplaceLimitError}; default {@link MAX_APPLY_WORK}. */
  maxWork?: number;
  /** Receives the line steps taken (for tests and benchmarks). */
  meter?: { steps: number };
}

// The event loop is handed back at least this often: the extension host runs every extension.
const SLICE_MS = 4;
// Line steps between two looks at the clock.
const CHUNK = 1024;
const CHUNK_MASK = CHUNK - 1;

/** Counts line steps, yields to the event loop when a slice is used up, and enforces the limit. */
class Work {
  steps = 0;
  private sliceStart = performance.now();

  constructor(
    private readonly limit: number,
    private readonly meter?: { steps: number },
  ) {}

  async add(steps: number): Promise<void> {
    this.steps += steps;
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
    `apply_diff stopped: this payload needs more than ${limit.toLocaleString('en-US')} line steps on this file ` +
    '(lines split, compared or copied), the limit that keeps VS Code responsive. Nothing was applied. ' +
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

type LineEnd = '' | Eol;

/** Text split into lines, kept as parallel arrays: no object per line for the collector to chase. */
interface Lines {
  texts: string[];
  /** Each line's terminator; '' only for a last line without final newline. */
  eols: LineEnd[];
  crlf: number;
  lf: number;
}

/** The lines of `content`; a `\r` before `\n` belongs to the terminator. No empty line after a final newline. */
async function splitLines(content: string, work: Work): Promise<Lines> {
  const texts: string[] = [];
  const eols: LineEnd[] = [];
  let crlf = 0;
  let start = 0;
  while (start < content.length) {
    const nl = content.indexOf('\n', start);
    if (nl === -1) {
      texts.push(content.slice(start));
      eols.push('');
      break;
    }
    if (nl > start && content.charCodeAt(nl - 1) === 0x0d) {
      texts.push(content.slice(start, nl - 1));
      eols.push('\r\n');
      crlf++;
    } else {
      texts.push(content.slice(start, nl));
      eols.push('\n');
    }
    start = nl + 1;
    if ((texts.length & CHUNK_MASK) === 0) await work.add(CHUNK);
  }
  await work.add(texts.length & CHUNK_MASK);
  const lf = eols.length - crlf - (eols[eols.length - 1] === '' ? 1 : 0);
  return { texts, eols, crlf, lf };
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
  const lines = (await splitLines(payload, work)).texts;
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
          throw parseError(
            `found "${line.trim()}" at payload line ${lineNo} outside a block; every block must start with "<<<<<<< SEARCH".`,
          );
        }
        break;
      case 'search':
        if (marker === undefined) current.searchLines.push(unescapeLine(line));
        else if (marker === 'divider') section = 'replace';
        else {
          throw parseError(
            `${where()}: expected "=======" after the SEARCH lines, but found "${line.trim()}" at payload line ${lineNo}.`,
          );
        }
        break;
      case 'replace':
        if (marker === undefined) current.replaceLines.push(unescapeLine(line));
        else if (marker === 'replace') {
          blocks.push(current);
          section = 'outside';
        } else {
          throw parseError(
            `${where()}: expected ">>>>>>> REPLACE" to end the block, but found "${line.trim()}" at payload line ${lineNo}.`,
          );
        }
        break;
    }
    if ((i & CHUNK_MASK) === CHUNK_MASK) await work.add(CHUNK);
  }
  await work.add(lines.length & CHUNK_MASK);

  if (section === 'search') throw parseError(`${where()}: the payload ended before the "=======" line.`);
  if (section === 'replace') throw parseError(`${where()}: the payload ended before the ">>>>>>> REPLACE" line.`);
  if (blocks.length === 0) throw parseError('no SEARCH/REPLACE block found.');
  return blocks;
}

const collapseWhitespace = (s: string): string => s.replace(/\s+/g, ' ').trim();

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
    if ((i & CHUNK_MASK) === CHUNK_MASK) await work.add(CHUNK);
  }
  for (let i = 0, m = 0; i < hay.length; i++) {
    while (m > 0 && hay[i] !== needle[m]) m = border[m - 1];
    if (hay[i] === needle[m]) m++;
    if (m === k) {
      found.push(i - k + 1);
      m = border[k - 1];
    }
    if ((i & CHUNK_MASK) === CHUNK_MASK) await work.add(CHUNK);
  }
  await work.add((k & CHUNK_MASK) + (hay.length & CHUNK_MASK));
  return found;
}

function idOf(ids: Map<string, number>, text: string): number {
  let id = ids.get(text);
  if (id === undefined) {
    id = ids.size;
    ids.set(text, id);
  }
  return id;
}

/**
 * The file's lines with an id for each: lines with the same text have the same id. The arrays are
 * replaced as blocks apply, never spliced with a spread (200,000 arguments overflow the call stack).
 */
class LineDocument {
  private readonly exactIds = new Map<string, number>();
  private readonly looseIds = new Map<string, number>();
  /** Whitespace-collapsed id by exact id; -1 until the whitespace-insensitive pass needs it. */
  private looseByExact = new Int32Array(0);

  private constructor(
    public texts: string[],
    public eols: LineEnd[],
    private ids: Int32Array,
    private readonly work: Work,
  ) {}

  static async load(texts: string[], eols: LineEnd[], work: Work): Promise<LineDocument> {
    const doc = new LineDocument(texts, eols, new Int32Array(0), work);
    doc.ids = await doc.intern(texts);
    return doc;
  }

  private async intern(texts: readonly string[]): Promise<Int32Array> {
    const ids = new Int32Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      ids[i] = idOf(this.exactIds, texts[i]);
      if ((i & CHUNK_MASK) === CHUNK_MASK) await this.work.add(CHUNK);
    }
    await this.work.add(texts.length & CHUNK_MASK);
    return ids;
  }

  /** 0-based start indexes of every (possibly overlapping) place where `search` matches. */
  async find(search: readonly string[], mode: 'exact' | 'loose'): Promise<number[]> {
    if (mode === 'exact') {
      const needle = await this.needle(search, this.exactIds, (s) => s);
      return needle ? findOccurrences(this.ids, needle, this.work) : [];
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
      if ((j & CHUNK_MASK) === CHUNK_MASK) await this.work.add(CHUNK);
    }
    await this.work.add(search.length & CHUNK_MASK);
    return needle;
  }

  /** The lines' whitespace-collapsed ids; each distinct text is collapsed once. */
  private async looseHay(): Promise<Int32Array> {
    if (this.looseByExact.length < this.exactIds.size) {
      const grown = new Int32Array(this.exactIds.size).fill(-1);
      grown.set(this.looseByExact);
      this.looseByExact = grown;
    }
    const hay = new Int32Array(this.ids.length);
    for (let i = 0; i < hay.length; i++) {
      const id = this.ids[i];
      let loose = this.looseByExact[id];
      if (loose === -1) {
        loose = idOf(this.looseIds, collapseWhitespace(this.texts[i]));
        this.looseByExact[id] = loose;
      }
      hay[i] = loose;
      if ((i & CHUNK_MASK) === CHUNK_MASK) await this.work.add(CHUNK);
    }
    await this.work.add(hay.length & CHUNK_MASK);
    return hay;
  }

  /** Replaces `count` lines at `at` with the given ones. */
  async replace(at: number, count: number, texts: string[], eols: LineEnd[]): Promise<void> {
    const newIds = await this.intern(texts);
    await this.work.add(this.texts.length);
    const end = at + count;
    this.texts = this.texts.slice(0, at).concat(texts, this.texts.slice(end));
    this.eols = this.eols.slice(0, at).concat(eols, this.eols.slice(end));
    const ids = new Int32Array(this.ids.length - count + newIds.length);
    ids.set(this.ids.subarray(0, at));
    ids.set(newIds, at);
    ids.set(this.ids.subarray(end), at + newIds.length);
    this.ids = ids;
  }

  /** The lines joined back, each with its own terminator. */
  async text(): Promise<string> {
    const parts: string[] = [];
    let part = '';
    for (let i = 0; i < this.texts.length; i++) {
      part += this.texts[i] + this.eols[i];
      if ((i & CHUNK_MASK) === CHUNK_MASK) {
        parts.push(part);
        part = '';
        await this.work.add(CHUNK);
      }
    }
    parts.push(part);
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
    line.length > QUOTE_MAX_LINE_CHARS
      ? `${line.slice(0, QUOTE_MAX_LINE_CHARS)}… (${line.length - QUOTE_MAX_LINE_CHARS} more characters)`
      : line;
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
async function applyBlock(doc: LineDocument, block: SearchReplaceBlock, newEol: Eol): Promise<string | undefined> {
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
    const eols = replaceLines.map((_, j): LineEnd => (j === replaceLines.length - 1 ? lastEol : newEol));
    await doc.replace(at, searchLines.length, replaceLines, eols);
    if (replaceLines.length === 0 && lastEol === '' && at > 0) doc.eols[at - 1] = '';
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
  const lines = await splitLines(body, work);
  const doc = await LineDocument.load(lines.texts, lines.eols, work);
  const newEol = majorityEol(lines);
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
export async function applySearchReplaceBlocks(
  content: string,
  blocks: readonly SearchReplaceBlock[],
  options: ApplyOptions = {},
): Promise<ApplyBlocksResult> {
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
  const doc = await LineDocument.load([...lines], Array<LineEnd>(lines.length).fill('\n'), work);
  return { exact: await doc.find(search, 'exact'), loose: await doc.find(search, 'loose') };
}
