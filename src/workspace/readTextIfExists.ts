// Reading a file that a tool names, safely: only regular files, with a size cap.
//
// `fs.readFile` on a named pipe blocks a libuv pool thread in open(2) until a writer appears (four
// such calls stall every fs call of the extension host), and on /dev/zero it reads until V8's
// string limit. So: stat first (never blocks), then open with O_NONBLOCK (a pipe swapped in after
// the stat does not block either) and check the opened file with fstat before reading it.

import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Larger files are not read into memory for a review (VS Code's diff is unusable long before). */
export const MAX_TEXT_FILE_BYTES = 32 * 1024 * 1024;

// O_NONBLOCK does not exist on Windows, where opening a pipe path does not block this way.
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

/** The path names something that is not a regular file, or one too large to read. */
export class UnreadableFileError extends Error {
  override readonly name = 'UnreadableFileError';
  constructor(
    readonly code: 'NOT_REGULAR_FILE' | 'TOO_LARGE',
    message: string,
  ) {
    super(message);
  }
}

/** The file's text as UTF-8, or undefined when there is no such file (a proposal for a new file). */
export async function readTextIfExists(file: string, options: { maxBytes?: number; shown?: string } = {}): Promise<string | undefined> {
  return (await readBytesIfExists(file, options))?.toString('utf8');
}

/** The file's bytes, or undefined when there is no such file; decode them in the file's encoding (TextCodec). */
export async function readBytesIfExists(file: string, options: { maxBytes?: number; shown?: string } = {}): Promise<Buffer | undefined> {
  const maxBytes = options.maxBytes ?? MAX_TEXT_FILE_BYTES;
  const shown = options.shown ?? file;
  try {
    checkRegular(shown, await fs.stat(file), maxBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const handle = await openRegularFile(file, shown, maxBytes).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    return await readOpenedFile(handle, shown, maxBytes);
  } finally {
    await handle.close();
  }
}

/**
 * Opens a file for reading without blocking (a pipe swapped in after a stat would block open(2)) and
 * checks that what was opened is a regular file within the cap; the caller closes it.
 */
export async function openRegularFile(file: string, shown: string = file, maxBytes: number = MAX_TEXT_FILE_BYTES): Promise<FileHandle> {
  const handle = await fs.open(file, OPEN_FLAGS);
  try {
    checkRegular(shown, await handle.stat(), maxBytes); // what was opened, not what the path named a moment ago
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Throws unless `stat` is a regular file within the cap; `file` is the name shown in the message. */
export function checkRegular(file: string, stat: import('node:fs').Stats, maxBytes: number = MAX_TEXT_FILE_BYTES): void {
  if (!stat.isFile()) {
    throw new UnreadableFileError(
      'NOT_REGULAR_FILE',
      `"${file}" is ${kindOf(stat)}, not a regular file, so it is not read (reading it could block or never end). Use a regular file's path.`,
    );
  }
  if (stat.size > maxBytes) throw tooLarge(file, stat.size, maxBytes);
}

function tooLarge(file: string, size: number, maxBytes: number): UnreadableFileError {
  return new UnreadableFileError(
    'TOO_LARGE',
    `"${file}" is larger than ${Math.round(maxBytes / (1024 * 1024))} MiB (${size} bytes or more), too large to review as text. Edit it with a shell command instead.`,
  );
}

function kindOf(stat: import('node:fs').Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of a file opened with {@link openRegularFile}, at most `maxBytes`. A regular file that
 * reports size 0 but yields bytes is a kernel pseudo-file (procfs, sysfs: `/proc/self/pagemap` yields
 * gigabytes, `/proc/<pid>/environ` a process's secrets) and is refused; a file of known size is read
 * in one read of that size (a large capture stays fast), and one that grew meanwhile in chunks up to the cap.
 */
export async function readOpenedFile(handle: FileHandle, shown: string, maxBytes: number = MAX_TEXT_FILE_BYTES): Promise<Buffer> {
  const { size } = await handle.stat();
  if (size === 0) {
    const { bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, null);
    if (bytesRead > 0) {
      throw new UnreadableFileError(
        'NOT_REGULAR_FILE',
        `"${shown}" reports a size of 0 but has content: a kernel pseudo-file (procfs, sysfs), not a regular file, so it is not read. Use a regular file's path.`,
      );
    }
    return Buffer.alloc(0);
  }
  if (size > maxBytes) throw tooLarge(shown, size, maxBytes);
  const first = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(first, filled, size - filled, null);
    if (bytesRead === 0) return first.subarray(0, filled); // shrank meanwhile
    filled += bytesRead;
  }
  const rest = await readToEnd(handle, maxBytes - size, (total) => tooLarge(shown, size + total, maxBytes));
  return rest.byteLength ? Buffer.concat([first, rest]) : first;
}

/**
 * Reads an opened file to its end in chunks, failing with `tooLarge(bytesSoFar)` once past `maxBytes`
 * (a file may grow while it is read, whatever its size was when opened).
 */
export async function readToEnd(handle: FileHandle, maxBytes: number, tooLarge: (total: number) => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw tooLarge(total);
  }
  return Buffer.concat(chunks, total);
}
