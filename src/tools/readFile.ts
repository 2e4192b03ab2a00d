// read_file: a window of a text file's lines, numbered, with the file's total line count.
//
// The file is read in 1 MiB chunks with async reads, so a 10 MB file never blocks the extension
// host: lines are found as byte offsets (Buffer.indexOf) and only the requested window is decoded.
// The whole file is still scanned, because `total_lines` needs every line break.

import { promises as fs } from 'fs';
import { z } from 'zod';
import type { WorkspaceHost } from '../host/workspace';
import { BINARY_SNIFF_BYTES, looksBinary } from '../workspace/binaryDetection';
import type { FileHandle } from 'fs/promises';
import type { TextCodec } from '../host/textCodec';
import { MAX_TEXT_FILE_BYTES, openRegularFile, UnreadableFileError } from '../workspace/readTextIfExists';
import { isUtf8, NodeTextCodec } from '../workspace/encodings';
import { displayPath } from '../workspace/displayPaths';
import { defineTool, errorResult, textResult, type ToolDefinition } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';

const READ_DEFAULT_LIMIT = 2000;
const PLAIN_CODEC = new NodeTextCodec();
/** Characters of one line that are shown; the rest is replaced by a note (minified files). */
export const READ_LINE_CHARS = 2000;
/** Above this many characters of output, no further lines are added (the result says where to go on). */
const READ_OUTPUT_CHARS = 250_000;
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;
// A cut at this many bytes decodes to at least READ_LINE_CHARS UTF-16 units (3 bytes per unit at worst).
const KEEP_LINE_BYTES = READ_LINE_CHARS * 3 + 4;

export interface LineWindow {
  /** 1-based number of the first line in `lines`. */
  firstLine: number;
  lines: string[];
  totalLines: number;
  binary: boolean;
}

interface OpenLine {
  parts: Buffer[];
  keptBytes: number;
  /** Code points of the whole line, counted only once it is longer than what is kept. */
  overflowChars: number;
}

function countCodePoints(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if ((bytes[i] & 0xc0) !== 0x80) n++;
  return n;
}

function closeLine(open: OpenLine, isFirstLineOfFile: boolean): string {
  const bytes = Buffer.concat(open.parts);
  let text = bytes.toString('utf8');
  if (isFirstLineOfFile && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith('\r') && open.overflowChars === 0) text = text.slice(0, -1);
  return shownLine(text, () => countCodePoints(bytes, 0, bytes.length) + open.overflowChars, open.overflowChars > 0);
}

/** The line as shown: cut at READ_LINE_CHARS (never inside a surrogate pair), with its length in a note. */
function shownLine(text: string, totalChars: () => number, cutAlready = false): string {
  if (!cutAlready && text.length <= READ_LINE_CHARS) return text;
  let cut = READ_LINE_CHARS;
  if (/[\ud800-\udbff]/.test(text.charAt(cut - 1))) cut--;
  return `${text.slice(0, cut)}… [line truncated: ${totalChars()} characters in total]`;
}

/**
 * Reads lines `firstLine … firstLine + maxLines - 1` (1-based) of a file and counts all its lines.
 * Line breaks are `\n` (a `\r` before it is dropped); a last line without a break counts.
 * Stops early, with `binary: true`, when a NUL byte is among the first 8 KB (or the editor takes
 * the file for binary). UTF-8 files (the codec says so from the settings and the first bytes) are
 * scanned in chunks; a file in another encoding is decoded whole by the codec, as VS Code shows it.
 */
export async function readLineWindow(filePath: string, firstLine: number, maxLines: number, shown: string = filePath, codec?: TextCodec): Promise<LineWindow> {
  const lastLine = firstLine + maxLines - 1;
  const handle = await openRegularFile(filePath, shown, Number.POSITIVE_INFINITY); // read in chunks: no size cap
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const lines: string[] = [];
    let lineNo = 1; // the line the next byte belongs to
    let open: OpenLine | undefined; // the current line, when it is inside the window
    let sniffed = 0;
    let lastByte = -1;
    let totalBytes = 0;

    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (totalBytes === 0 && codec) {
        const encoding = codec.quickEncoding(filePath, chunk);
        // Undecided (auto guessing, or set per language): VS Code decides from the whole content, up
        // to the cap; a larger file is scanned as UTF-8, as before.
        const decodeWhole = encoding === undefined ? (await handle.stat()).size <= MAX_TEXT_FILE_BYTES : !isUtf8(encoding);
        if (decodeWhole) return await readDecoded(handle, Buffer.from(chunk), filePath, shown, codec, encoding, firstLine, lastLine);
      }
      if (sniffed < BINARY_SNIFF_BYTES) {
        const end = Math.min(bytesRead, BINARY_SNIFF_BYTES - sniffed);
        if (looksBinary(chunk.subarray(0, end))) return { firstLine, lines: [], totalLines: 0, binary: true };
        sniffed += end;
      }
      totalBytes += bytesRead;
      lastByte = chunk[bytesRead - 1];

      let pos = 0;
      while (pos < bytesRead) {
        const nl = chunk.indexOf(NEWLINE, pos);
        const segmentEnd = nl === -1 ? bytesRead : nl;
        if (lineNo >= firstLine && lineNo <= lastLine) {
          open ??= { parts: [], keptBytes: 0, overflowChars: 0 };
          const room = KEEP_LINE_BYTES - open.keptBytes;
          const keep = Math.min(room, segmentEnd - pos);
          if (keep > 0) {
            open.parts.push(Buffer.from(chunk.subarray(pos, pos + keep))); // copied: the buffer is reused
            open.keptBytes += keep;
          }
          if (keep < segmentEnd - pos) open.overflowChars += countCodePoints(chunk, pos + keep, segmentEnd);
        }
        if (segmentEnd === bytesRead) break; // the line goes on in the next chunk
        if (open) {
          lines.push(closeLine(open, lineNo === 1));
          open = undefined;
        }
        lineNo++;
        pos = segmentEnd + 1;
      }
    }
    // A last line without a final line break.
    if (open) lines.push(closeLine(open, lineNo === 1));
    const totalLines = totalBytes === 0 ? 0 : lastByte === NEWLINE ? lineNo - 1 : lineNo;
    return { firstLine, lines, totalLines, binary: false };
  } finally {
    await handle.close();
  }
}

/**
 * A file not in UTF-8: read whole (up to the size cap of reviews) and decoded in its encoding, which
 * a byte scan cannot do (in UTF-16 a `\n` byte is half of other characters).
 */
async function readDecoded(
  handle: FileHandle,
  head: Buffer,
  filePath: string,
  shown: string,
  codec: TextCodec,
  encoding: string | undefined,
  firstLine: number,
  lastLine: number,
): Promise<LineWindow> {
  const binary = { firstLine, lines: [], totalLines: 0, binary: true };
  const unicode16 = encoding === 'utf16le' || encoding === 'utf16be';
  if (!unicode16 && looksBinary(head)) return binary;
  const chunks = [head];
  let total = head.length;
  for (;;) {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > MAX_TEXT_FILE_BYTES) {
      throw new UnreadableFileError(
        'TOO_LARGE',
        `"${shown}" is larger than ${MAX_TEXT_FILE_BYTES / (1024 * 1024)} MiB and not in UTF-8, too large to decode in its encoding. Use a shell command to read parts of it.`,
      );
    }
  }
  let text: string;
  try {
    const bytes = Buffer.concat(chunks, total);
    text = encoding === undefined ? await codec.readText(bytes, filePath) : await codec.decode(bytes, encoding);
  } catch {
    return binary; // VS Code refuses to decode what it takes for binary
  }
  if (text.length === 0) return { firstLine, lines: [], totalLines: 0, binary: false };
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop(); // the final line break ends the last line
  const lines = all.slice(firstLine - 1, lastLine).map((line) => shownLine(line.endsWith('\r') ? line.slice(0, -1) : line, () => [...line].length));
  return { firstLine, lines, totalLines: all.length, binary: false };
}

/**
 * ```
 *  9 | first shown line
 * 10 | …
 * total_lines: 120 (lines 9-10 shown; to read on, call read_file with offset: 11)
 * ```
 */
export function formatLineWindow(window: LineWindow, maxOutputChars = READ_OUTPUT_CHARS): string {
  if (window.totalLines === 0) return '(the file is empty)\ntotal_lines: 0';
  const width = String(window.firstLine + window.lines.length - 1).length;
  const out: string[] = [];
  let chars = 0;
  for (let i = 0; i < window.lines.length; i++) {
    const line = `${String(window.firstLine + i).padStart(width)} | ${window.lines[i]}`;
    if (i > 0 && chars + line.length > maxOutputChars) break;
    out.push(line);
    chars += line.length + 1;
  }
  const last = window.firstLine + out.length - 1;
  const more = last < window.totalLines;
  const range = `lines ${window.firstLine}-${last} shown`;
  out.push(
    `total_lines: ${window.totalLines}${more ? ` (${range}; to read on, call read_file with offset: ${last + 1})` : window.firstLine > 1 ? ` (${range})` : ''}`,
  );
  return out.join('\n');
}

const inputSchema = z
  .object({
    path: z.string().min(1).describe('File to read, relative to the workspace folder (e.g. "src/index.ts") or absolute inside it.'),
    offset: z.number().int().min(1).optional().describe('1-based line number to start at. Default 1.'),
    limit: z.number().int().min(1).max(READ_DEFAULT_LIMIT).optional().describe(`How many lines to return. Default and maximum ${READ_DEFAULT_LIMIT}.`),
  })
  .strict();

export function readFileTool(host: WorkspaceHost): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'read_file',
    title: 'Read file',
    description:
      'Read a text file of the workspace. Returns its lines as "line_number | content" (line numbers are 1-based) and a last line "total_lines: N"; ' +
      `by default the first ${READ_DEFAULT_LIMIT} lines. For a longer file, the last line says which offset to pass to read on. ` +
      `Lines longer than ${READ_LINE_CHARS} characters are cut. Binary files (a NUL byte in the first 8 KB) are refused; use a shell tool for them. ` +
      'It reads the file on disk, as the built-in Read does; either is fine.',
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ path: input, offset = 1, limit = READ_DEFAULT_LIMIT }) => {
      const folders = host.folders();
      const target = await workspaceTarget(host, input, { mustExist: true });
      if ('error' in target) return errorResult(target.error);
      const shown = displayPath(target.folder, target.relative, folders.length);
      const stat = await fs.stat(target.realPath);
      if (stat.isDirectory()) return errorResult(`"${shown || input}" is a folder, not a file. Use list_files to see what is in it.`);
      if (!stat.isFile())
        return errorResult(
          `"${shown}" is not a regular file (a device, socket or pipe), so it is not read (reading it could block or never end). Use a regular file's path.`,
        );

      let window: LineWindow;
      try {
        window = await readLineWindow(target.realPath, offset, limit, shown, host.codec ?? PLAIN_CODEC);
      } catch (error) {
        if (error instanceof UnreadableFileError) return errorResult(error.message); // swapped for a pipe after the stat
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EPERM') return errorResult(`"${shown}" cannot be read: permission denied.`);
        throw error;
      }
      if (window.binary) {
        return errorResult(
          `"${shown}" is a binary file (it has a NUL byte in its first 8 KB), so it is not shown as text. Use a shell command to inspect it if needed.`,
        );
      }
      if (offset > 1 && offset > window.totalLines) {
        return errorResult(
          window.totalLines === 0
            ? `"${shown}" is empty, so there is no line ${offset}.`
            : `offset ${offset} is past the end of "${shown}": it has ${window.totalLines} lines. Use an offset from 1 to ${window.totalLines}.`,
        );
      }
      return textResult(formatLineWindow(window));
    },
  });
}
