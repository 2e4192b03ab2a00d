// The one reader and writer of files that belong to other programs: the claude CLI's ~/.claude.json
// and settings.json (edited), and the lock files in its `ide` folder (written whole). Every program
// that owns such a file may rewrite it at any moment, so:
//
//  - only an absolute path is used (a relative one names another file for every program resolving it);
//  - reads open with O_NONBLOCK and check what was opened with fstat: a named pipe or device is refused
//    at once, never read (a blocking open would hold a thread of the extension host forever); the size
//    is bounded; a UTF-8 BOM is skipped, as claude 2.x does (and it writes the file back without one);
//  - an edit takes the owner's lock where the owner has one (proper-lockfile's `<file>.lock`, which
//    claude takes for ~/.claude.json, and since 2.1.330 for its user settings.json), reads again under
//    it, and never takes an empty or unparsable file for `{}`;
//  - the write goes through symlinks (dangling ones too) to the real file, via a temp file beside it
//    with the file's mode (fsync'd), refused when the file is read-only; immediately before the rename
//    the file is checked again (inode, size, mtime, ctime; the bytes when those moved), so a program
//    that rewrote it meanwhile without the lock is never overwritten: the edit starts again.

import { closeSync, constants as fsConstants, promises as fs, fstatSync, openSync, readSync, renameSync, statSync, type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as lockfile from 'proper-lockfile';
import { checkRegular, readToEnd, UnreadableFileError } from '../workspace/readTextIfExists';

/** Far above any real ~/.claude.json; a bound so that a huge file is refused rather than loaded. */
const MAX_FOREIGN_FILE_BYTES = 64 * 1024 * 1024;

// O_NONBLOCK does not exist on Windows, where opening a pipe path does not block this way.
const READ_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);
const MAX_SYMLINK_HOPS = 40;
/** proper-lockfile's defaults, which are what claude uses: stale after 10 s, refreshed every 5 s. */
const LOCK_STALE_MS = 10_000;
const BOM = '\uFEFF';

/** The file was refused (not a regular file, too large, relative, read-only, kept changing); nothing was changed. */
export class ForeignFileError extends Error {
  override readonly name: string = 'ForeignFileError';
  constructor(
    message: string,
    /** Set when the path names something other than a regular file, or one over the size bound. */
    readonly code?: 'NOT_REGULAR_FILE' | 'TOO_LARGE',
  ) {
    super(message);
  }
}

/** The file exists but is empty, not JSON or not a JSON object: it is left exactly as it is. */
export class UnusableFileError extends ForeignFileError {
  override readonly name = 'UnusableFileError';
}

export interface ForeignText {
  /** The text, a leading BOM removed. */
  text: string;
  /** The bytes as they are on disk (the re-check before a rename compares them). */
  bytes: Buffer;
  /** What was read: the real file, after symlinks. */
  stat: BigIntStats;
}

function assertAbsolute(file: string): void {
  if (path.isAbsolute(file)) return;
  throw new ForeignFileError(
    `"${file}" is not an absolute path, so it names another file for every program that resolves it; nothing was read or written. ` +
      'CLAUDE_CONFIG_DIR set to an empty or relative folder does this: set it to an absolute folder, or unset it.',
  );
}

function refusal(file: string, error: unknown, maxBytes: number): unknown {
  if (!(error instanceof UnreadableFileError)) return error;
  if (error.code === 'TOO_LARGE')
    return new ForeignFileError(`${file} is larger than ${maxBytes} bytes, so it was not read; nothing was changed.`, 'TOO_LARGE');
  return new ForeignFileError(`${error.message.replace(/ Use a regular file's path\.$/, '')} Nothing was changed.`, 'NOT_REGULAR_FILE');
}

/** The file's text and identity, or undefined when there is none (a dangling link included). Never blocks. */
export async function readForeignFile(file: string, maxBytes: number = MAX_FOREIGN_FILE_BYTES): Promise<ForeignText | undefined> {
  assertAbsolute(file);
  let handle: FileHandle;
  try {
    handle = await fs.open(file, READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat({ bigint: true });
    try {
      checkRegular(file, await handle.stat(), maxBytes); // what was opened, not what the path named a moment ago
    } catch (error) {
      throw refusal(file, error, maxBytes);
    }
    const bytes = await readToEnd(handle, maxBytes, () => refusal(file, new UnreadableFileError('TOO_LARGE', ''), maxBytes) as Error);
    return { text: withoutBom(bytes.toString('utf8')), bytes, stat };
  } finally {
    await handle.close();
  }
}

/** {@link readForeignFile} for process exit, when no promise will be awaited. */
export function readForeignFileSync(file: string, maxBytes: number = MAX_FOREIGN_FILE_BYTES): string | undefined {
  assertAbsolute(file);
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    try {
      checkRegular(file, fstatSync(fd), maxBytes);
    } catch (error) {
      throw refusal(file, error, maxBytes);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 16, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw refusal(file, new UnreadableFileError('TOO_LARGE', ''), maxBytes);
    }
    return withoutBom(Buffer.concat(chunks, total).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

function withoutBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(BOM.length) : text;
}

/**
 * Writes a whole file of ours in another program's folder (a lock file): a temp file beside it with
 * `mode`, fsync'd, renamed over the path itself (a link there is replaced, not followed: the name is ours).
 */
export async function replaceFile(file: string, text: string, mode: number): Promise<void> {
  assertAbsolute(file);
  const temp = await writeTemp(file, text, mode);
  try {
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

async function writeTemp(beside: string, text: string, mode: number): Promise<string> {
  const temp = path.join(path.dirname(beside), `.${path.basename(beside)}.tmp.${process.pid}.${randomBytes(6).toString('hex')}`);
  const handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.chmod(mode); // the umask may have narrowed it
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return temp;
}

type Json = Record<string, unknown>;

export interface ForeignJsonFileOptions {
  /** Whether the owner locks the file with proper-lockfile's `<file>.lock` (then so do we). */
  ownerLock: boolean;
  /** How long to wait for the owner's lock. Default 10 s (the lock's stale time). */
  lockWaitMs?: number;
  /** How long an empty or unparsable file is read again before it is reported (a writer may be mid-rewrite). Default 500 ms. */
  unreadableGraceMs?: number;
  /** How long to keep retrying while other programs rewrite the file without the lock. Default 10 s. */
  changingForMs?: number;
  /** What the user can do about an unusable file; follows "<file> is empty, so it was left unchanged." */
  unusableAdvice: string;
  /** Mode of a file that does not exist yet. Default 0600. */
  newFileMode?: number;
  maxBytes?: number;
}

/** A JSON object file of another program, read and edited under its owner's protocol (see the top of this file). */
export class ForeignJsonFile {
  private readonly lockWaitMs: number;
  private readonly unreadableGraceMs: number;
  private readonly changingForMs: number;
  private readonly maxBytes: number;

  constructor(
    readonly file: string,
    private readonly options: ForeignJsonFileOptions,
  ) {
    this.lockWaitMs = options.lockWaitMs ?? LOCK_STALE_MS;
    this.unreadableGraceMs = options.unreadableGraceMs ?? 500;
    this.changingForMs = options.changingForMs ?? 10_000;
    this.maxBytes = options.maxBytes ?? MAX_FOREIGN_FILE_BYTES;
  }

  /** The object in the file, or undefined when there is no file. */
  async read(): Promise<Json | undefined> {
    return (await this.readUsable())?.json;
  }

  /**
   * Lock (when the owner does), read, `change` the object in place (return false to write nothing),
   * write through the link. Resolves whether the file was written.
   */
  async update(change: (json: Json) => boolean): Promise<boolean> {
    assertAbsolute(this.file);
    await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    let compromised: Error | undefined;
    const release = this.options.ownerLock ? await this.lock((error) => (compromised = error)) : async () => undefined;
    try {
      const deadline = Date.now() + this.changingForMs;
      for (let attempt = 1; ; attempt++) {
        const read = await this.readUsable();
        const json = read?.json ?? {};
        if (!change(json)) return false;
        if (await this.writeThrough(`${JSON.stringify(json, null, 2)}\n`, read, () => compromised)) return true;
        if (Date.now() >= deadline) {
          throw new ForeignFileError(
            `${this.file} kept changing while it was being edited (rewritten ${attempt} times by a program that does not use ${this.options.ownerLock ? `its lock ${this.file}.lock` : 'a lock'}); nothing was changed. Try again when claude is idle.`,
          );
        }
        await sleep(Math.min(200, 2 ** Math.min(attempt, 8)) * Math.random());
      }
    } finally {
      await release().catch(() => undefined); // a lock taken over as stale is not ours to remove
    }
  }

  private async lock(onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
    const started = Date.now();
    for (;;) {
      try {
        return await lockfile.lock(this.file, { lockfilePath: `${this.file}.lock`, realpath: false, stale: LOCK_STALE_MS, onCompromised });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ELOCKED') throw lockError(this.file, error as NodeJS.ErrnoException);
        if (Date.now() - started >= this.lockWaitMs) {
          throw new ForeignFileError(
            `${this.file} is locked by another program (${this.file}.lock) for more than ${Math.round(this.lockWaitMs / 1000)} s; nothing was changed. Try again when claude is idle.`,
          );
        }
        await sleep(10 + Math.random() * 40);
      }
    }
  }

  /** The parsed file; an empty or unparsable one is read again for a moment, then reported, never taken for `{}`. */
  private async readUsable(): Promise<(ForeignText & { json: Json }) | undefined> {
    const deadline = Date.now() + this.unreadableGraceMs;
    for (;;) {
      const read = await readForeignFile(this.file, this.maxBytes);
      if (!read) return undefined;
      const parsed = parseObject(read.text);
      if (typeof parsed !== 'string') return { ...read, json: parsed };
      if (Date.now() >= deadline) throw new UnusableFileError(`${this.file} ${parsed}, so it was left unchanged. ${this.options.unusableAdvice}`);
      await sleep(20);
    }
  }

  /**
   * Writes `text` to the file's real target via a temp file and a rename. Resolves false, writing
   * nothing, when the file no longer holds what `basis` read: the caller reads again and redoes its change.
   */
  private async writeThrough(text: string, basis: ForeignText | undefined, compromised: () => Error | undefined): Promise<boolean> {
    const target = await realTarget(this.file);
    const mode = basis ? Number(basis.stat.mode) & 0o7777 : (this.options.newFileMode ?? 0o600);
    if (basis) await assertWritable(target, mode);
    const temp = await writeTemp(target, text, mode);
    try {
      let expected = basis?.stat;
      for (let recheck = 0; recheck < 5; recheck++) {
        const lost = compromised();
        if (lost) throw new ForeignFileError(`The lock on ${this.file} was lost (${lost.message}); nothing was changed. Try again.`);
        // Synchronous from this check to the rename: no other callback of ours runs in between.
        if (sameFile(statSync(target, { bigint: true, throwIfNoEntry: false }), expected)) {
          renameSync(temp, target);
          return true;
        }
        const now = await readForeignFile(target, this.maxBytes);
        if (!sameBytes(now, basis)) break; // rewritten by someone else: start again from what is there now
        expected = now?.stat; // rewritten with the same bytes: nothing would be lost
      }
      await fs.rm(temp, { force: true });
      return false;
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}

/** Why the text is not a JSON object, or the object. */
function parseObject(text: string): Json | string {
  if (text.trim() === '') return 'is empty';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `is not valid JSON (${(error as Error).message})`;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : 'does not hold a JSON object';
}

function sameFile(now: BigIntStats | undefined, expected: BigIntStats | undefined): boolean {
  if (!now || !expected) return now === expected;
  return (
    now.ino === expected.ino && now.dev === expected.dev && now.size === expected.size && now.mtimeNs === expected.mtimeNs && now.ctimeNs === expected.ctimeNs
  );
}

function sameBytes(now: ForeignText | undefined, basis: ForeignText | undefined): boolean {
  if (!now || !basis) return now === basis;
  return now.bytes.equals(basis.bytes);
}

/** A rename would replace a read-only file; the user made it read-only, so it is left (also when running as root). */
async function assertWritable(target: string, mode: number): Promise<void> {
  const problem =
    (mode & 0o222) === 0
      ? 'no write permission for anyone'
      : await fs.access(target, fsConstants.W_OK).then(
          () => undefined,
          (error: NodeJS.ErrnoException) => error.code,
        );
  if (problem)
    throw new ForeignFileError(`${target} is read-only (${problem}), so it was left unchanged. Make it writable (chmod u+w "${target}"), then try again.`);
}

/** The file a write must replace: symlinks followed (a dangling link's target too), as claude writes through them. */
async function realTarget(file: string): Promise<string> {
  let current = file;
  for (let hop = 0; hop < MAX_SYMLINK_HOPS; hop++) {
    const stat = await fs.lstat(current).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
    if (!stat?.isSymbolicLink()) {
      // Resolve links among the folders too, so the temp file is beside the real file.
      const dir = await fs.realpath(path.dirname(current)).catch(() => path.dirname(current));
      return path.join(dir, path.basename(current));
    }
    current = path.resolve(path.dirname(current), await fs.readlink(current));
  }
  throw new ForeignFileError(`${file} is a loop of symbolic links; nothing was changed. Point it at a real file.`);
}

function lockError(file: string, error: NodeJS.ErrnoException): Error {
  if (error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS') {
    return new ForeignFileError(
      `Cannot create claude's lock ${file}.lock (${error.code}): the folder ${path.dirname(file)} is not writable; nothing was changed. Make it writable, then try again.`,
    );
  }
  return new ForeignFileError(`Cannot lock ${file} (${error.message}); nothing was changed.`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
