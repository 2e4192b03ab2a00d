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

import { detectEol, hasBom, type Eol } from '../workspace/textFormat';

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

/**
 * Splits a payload into blocks. Text outside blocks (prose, code fences, blank lines) is ignored;
 * CRLF is accepted. Throws {@link SearchReplaceParseError} on a malformed block or when there is
 * no block at all.
 */
export function parseSearchReplaceBlocks(payload: string): SearchReplaceBlock[] {
  const lines = payload.replace(/\r\n/g, '\n').split('\n');
  const blocks: SearchReplaceBlock[] = [];
  let section: 'outside' | 'search' | 'replace' = 'outside';
  let current: SearchReplaceBlock = { index: 0, line: 0, searchLines: [], replaceLines: [] };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const lineNo = i + 1;
    const marker = markerOf(line);
    const where = `block ${current.index} (starting at payload line ${current.line})`;
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
            `${where}: expected "=======" after the SEARCH lines, but found "${line.trim()}" at payload line ${lineNo}.`,
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
            `${where}: expected ">>>>>>> REPLACE" to end the block, but found "${line.trim()}" at payload line ${lineNo}.`,
          );
        }
        break;
    }
  }

  const where = `block ${current.index} (starting at payload line ${current.line})`;
  if (section === 'search') throw parseError(`${where}: the payload ended before the "=======" line.`);
  if (section === 'replace') throw parseError(`${where}: the payload ended before the ">>>>>>> REPLACE" line.`);
  if (blocks.length === 0) throw parseError('no SEARCH/REPLACE block found.');
  return blocks;
}

interface FileLine {
  text: string;
  /** '' only for a last line without final newline. */
  eol: '' | Eol;
}

function splitLines(content: string): FileLine[] {
  const lines: FileLine[] = [];
  let start = 0;
  while (start < content.length) {
    const nl = content.indexOf('\n', start);
    if (nl === -1) {
      lines.push({ text: content.slice(start), eol: '' });
      break;
    }
    const crlf = nl > start && content.charCodeAt(nl - 1) === 0x0d;
    lines.push({ text: content.slice(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
  return lines;
}

function joinLines(lines: readonly FileLine[]): string {
  let out = '';
  for (const line of lines) out += line.text + line.eol;
  return out;
}

/** 0-based start indexes of every (possibly overlapping) place where `search` matches. */
function findMatches(lines: readonly FileLine[], search: readonly string[], same: (a: string, b: string) => boolean): number[] {
  const found: number[] = [];
  for (let i = 0; i + search.length <= lines.length; i++) {
    let j = 0;
    while (j < search.length && same(lines[i + j].text, search[j])) j++;
    if (j === search.length) found.push(i);
  }
  return found;
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

const collapseWhitespace = (s: string): string => s.replace(/\s+/g, ' ').trim();

function lineList(indexes: readonly number[]): string {
  const shown = indexes.slice(0, 10).map((i) => String(i + 1));
  return indexes.length > 10 ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** Applies one block to `lines` in place; returns why it could not, or undefined on success. */
function applyBlock(lines: FileLine[], block: SearchReplaceBlock, newEol: Eol): string | undefined {
  const { index, searchLines, replaceLines } = block;
  if (searchLines.every((l) => l.trim() === '')) {
    return (
      `Block ${index}: the SEARCH section is empty (or only whitespace), so it does not say where to change the file. ` +
      'Put the exact existing lines to replace between "<<<<<<< SEARCH" and "=======" ' +
      '(to create a file or replace all of it, write the whole file instead).'
    );
  }

  const matches = findMatches(lines, searchLines, (a, b) => a === b);
  if (matches.length === 1) {
    const at = matches[0];
    const lastEol = lines[at + searchLines.length - 1].eol;
    // New lines get the file's own line ending; the last one keeps the terminator of the last
    // replaced line, so a match at the end of a file without final newline stays without one.
    const replacement: FileLine[] = replaceLines.map((text, j) => ({
      text,
      eol: j === replaceLines.length - 1 ? lastEol : newEol,
    }));
    lines.splice(at, searchLines.length, ...replacement);
    if (replacement.length === 0 && lastEol === '' && at > 0) lines[at - 1].eol = '';
    return undefined;
  }

  if (matches.length > 1) {
    return (
      `Block ${index}: SEARCH is ambiguous (${matches.length} matches found) at lines ${lineList(matches)}. ` +
      'Add surrounding lines to the SEARCH (and the same lines to the REPLACE) so it matches exactly one place.'
    );
  }

  const loose = findMatches(lines, searchLines, (a, b) => collapseWhitespace(a) === collapseWhitespace(b));
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

/**
 * Applies the blocks in order, each to the result of the previous ones. A block that fails leaves
 * the content unchanged and is reported in `failedBlocks`; the others are still applied.
 * Replacement text is inserted literally (`$&` and friends mean nothing here).
 */
export function applySearchReplaceBlocks(content: string, blocks: readonly SearchReplaceBlock[]): ApplyBlocksResult {
  const bom = hasBom(content) ? '\uFEFF' : '';
  const body = bom ? content.slice(1) : content;
  const lines = splitLines(body);
  const newEol = detectEol(body);
  const failedBlocks: FailedBlock[] = [];
  let applied = 0;

  for (const block of blocks) {
    const reason = applyBlock(lines, block, newEol);
    if (reason === undefined) applied++;
    else failedBlocks.push({ index: block.index, search: block.searchLines.join('\n'), reason });
  }

  return { content: applied === 0 ? content : bom + joinLines(lines), applied, failedBlocks };
}

/** Parses then applies a payload. Throws {@link SearchReplaceParseError} before touching anything. */
export function applyDiffPayload(content: string, payload: string): ApplyBlocksResult {
  return applySearchReplaceBlocks(content, parseSearchReplaceBlocks(payload));
}
