import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { lockFileDirectories } from '../otherPrograms/claudeConfigDir';
import { ForeignFileError, readForeignFile } from '../otherPrograms/foreignFile';

/** What the health page needs to know about one `<port>.lock` (docs/protocol.md#lock-file-and-discovery). */
export interface LockFileFacts {
  path: string;
  port: number;
  /** Permission bits, e.g. 0o600. */
  mode: number;
  pid?: number;
  pidAlive?: boolean;
  workspaceFolders: string[];
  ideName?: string;
  /** Set when the file is not a lock file the CLI could use. */
  problem?: string;
}

/** `kill(pid, 0)`: EPERM means alive but another user's (the CLI refuses those too, so: not usable). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readLockFiles(directories: readonly string[], alive: (pid: number) => boolean = processAlive): Promise<LockFileFacts[]> {
  const found: LockFileFacts[] = [];
  for (const dir of directories) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = /^(\d+)\.lock$/.exec(name);
      if (!match) continue;
      found.push(await readLockFile(path.join(dir, name), Number(match[1]), alive));
    }
  }
  return found.sort((a, b) => a.port - b.port);
}

const MAX_LOCK_FILE_BYTES = 1024 * 1024;
const LOCK_FILE_NAME = /^(\d+)\.lock$/;

async function readLockFile(file: string, port: number, alive: (pid: number) => boolean): Promise<LockFileFacts> {
  const facts: LockFileFacts = { path: file, port, mode: 0, workspaceFolders: [] };
  try {
    const read = await readForeignFile(file, MAX_LOCK_FILE_BYTES); // a pipe or device in its place is refused, never read
    if (!read) return { ...facts, problem: 'gone' };
    facts.mode = Number(read.stat.mode) & 0o777;
    const content = JSON.parse(read.text) as Record<string, unknown>;
    if (Array.isArray(content.workspaceFolders)) facts.workspaceFolders = content.workspaceFolders.filter((f): f is string => typeof f === 'string');
    if (typeof content.ideName === 'string') facts.ideName = content.ideName;
    if (typeof content.pid === 'number' && Number.isInteger(content.pid) && content.pid > 0) {
      facts.pid = content.pid;
      facts.pidAlive = alive(content.pid);
    }
    if (typeof content.authToken !== 'string') facts.problem = 'no authToken';
  } catch (error) {
    if (error instanceof ForeignFileError && error.code === 'NOT_REGULAR_FILE') return { ...facts, problem: 'not a regular file' };
    if (error instanceof ForeignFileError && error.code === 'TOO_LARGE') return { ...facts, problem: 'larger than any lock file' };
    facts.problem = `unreadable: ${(error as Error).message}`;
  }
  return facts;
}

/**
 * "Delete it" on the health page, for a stale lock file. The command can be run by any extension with
 * any argument, so it deletes only what it is for: a `<port>.lock` regular file directly inside one of
 * the folders claude reads lock files from (compared after resolving links), whose process is gone.
 * Throws, deleting nothing, with the reason otherwise.
 */
export async function deleteStaleLockFile(
  file: unknown,
  directories: readonly string[] = lockFileDirectories(),
  alive: (pid: number) => boolean = processAlive,
): Promise<void> {
  if (typeof file !== 'string' || !path.isAbsolute(file)) throw new Error(`Not deleted: ${JSON.stringify(file)} is not the absolute path of a lock file.`);
  const name = path.basename(file);
  if (!LOCK_FILE_NAME.test(name)) throw new Error(`Not deleted: ${file} is not a lock file (<port>.lock).`);
  const realDirs = await Promise.all(directories.map((d) => fs.realpath(d).catch(() => path.resolve(d))));
  const dir = await fs.realpath(path.dirname(file)).catch(() => undefined);
  if (!dir || !realDirs.includes(dir)) throw new Error(`Not deleted: ${file} is not in a folder claude reads lock files from (${directories.join(', ')}).`);
  const real = path.join(dir, name);
  const stat = await fs.lstat(real).catch(() => undefined);
  if (!stat) throw new Error(`Not deleted: ${file} does not exist (any more).`);
  if (!stat.isFile()) throw new Error(`Not deleted: ${file} is not a regular file (a link or something else in its place).`);
  const facts = await readLockFile(real, Number(LOCK_FILE_NAME.exec(name)![1]), alive);
  if (facts.pidAlive) throw new Error(`Not deleted: ${file} belongs to a running process (pid ${facts.pid}).`);
  await fs.rm(real);
}

/**
 * Whether `claude` started in one folder would count a lock file listing the other: the CLI tests
 * "the cwd is inside a listed folder" (docs/protocol.md#lock-file-and-discovery), so a folder, its parents and its children all compete.
 */
export function foldersOverlap(a: string, b: string): boolean {
  const x = path.resolve(a);
  const y = path.resolve(b);
  return x === y || x.startsWith(y.endsWith(path.sep) ? y : y + path.sep) || y.startsWith(x.endsWith(path.sep) ? x : x + path.sep);
}
