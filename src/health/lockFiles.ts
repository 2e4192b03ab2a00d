import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

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

/**
 * The folders the CLI reads lock files from: `$CLAUDE_CONFIG_DIR/ide` when set, plus `~/.claude/ide`
 * (docs/protocol.md#lock-file-and-discovery), without duplicates.
 */
export function lockFileDirectories(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string[] {
  const dirs = [path.join(home, '.claude', 'ide')];
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  if (configured) dirs.unshift(path.join(configured.normalize('NFC'), 'ide'));
  return [...new Set(dirs.map((d) => path.resolve(d)))];
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

async function readLockFile(file: string, port: number, alive: (pid: number) => boolean): Promise<LockFileFacts> {
  const facts: LockFileFacts = { path: file, port, mode: 0, workspaceFolders: [] };
  try {
    const stat = await fs.stat(file);
    facts.mode = stat.mode & 0o777;
    if (!stat.isFile()) return { ...facts, problem: 'not a regular file' };
    if (stat.size > 1024 * 1024) return { ...facts, problem: 'larger than any lock file' };
    const content = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    if (Array.isArray(content.workspaceFolders)) facts.workspaceFolders = content.workspaceFolders.filter((f): f is string => typeof f === 'string');
    if (typeof content.ideName === 'string') facts.ideName = content.ideName;
    if (typeof content.pid === 'number' && Number.isInteger(content.pid) && content.pid > 0) {
      facts.pid = content.pid;
      facts.pidAlive = alive(content.pid);
    }
    if (typeof content.authToken !== 'string') facts.problem = 'no authToken';
  } catch (error) {
    facts.problem = `unreadable: ${(error as Error).message}`;
  }
  return facts;
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
