import { promises as fs, rmSync } from 'node:fs';
import * as path from 'node:path';
import { lockFileDirectory } from '../otherPrograms/claudeConfigDir';
import { readForeignFile, readForeignFileSync, replaceFile } from '../otherPrograms/foreignFile';

export { lockFileDirectory };

/** Exactly the fields the CLI reads from a lock file (docs/protocol.md#lock-file-and-discovery); nothing else. */
export interface LockFileContent {
  pid: number;
  workspaceFolders: string[];
  ideName: string;
  transport: 'ws';
  runningInWindows: boolean;
  authToken: string;
}

/** No lock file is near this; a larger file in its place is not read. */
const MAX_LOCK_FILE_BYTES = 64 * 1024;

/**
 * Makes the lock folder, or makes an existing one 0700: the lock file holds the window's token. A
 * folder of another user is refused (that user could read or replace the file), saying so.
 */
async function ensurePrivateDirectory(directory: string): Promise<void> {
  await fs.mkdir(directory, { recursive: true, mode: 0o700 });
  const stat = await fs.stat(directory);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new Error(
      `The lock-file folder ${directory} belongs to another user (uid ${stat.uid}), who could read the window's token from it; no lock file was written. ` +
        `Remove the folder or make it yours (chown), then restart the server.`,
    );
  }
  if (process.platform !== 'win32' && (stat.mode & 0o777) !== 0o700) await fs.chmod(directory, 0o700);
}

/**
 * Workspace folders as the CLI compares them: absolute, symlinks resolved (the CLI does a plain,
 * case-sensitive prefix test against its realpath'd cwd, docs/protocol.md#lock-file-and-discovery). A folder that cannot be resolved
 * (deleted, no permission) is kept as given rather than dropped.
 */
export async function resolveWorkspaceFolders(folders: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(
    folders.map(async (folder) => {
      const absolute = path.resolve(folder);
      try {
        return await fs.realpath(absolute);
      } catch {
        return absolute;
      }
    }),
  );
  return [...new Set(resolved)];
}

/**
 * One window's lock file. Written atomically (temp file + rename, src/otherPrograms/foreignFile.ts)
 * with mode 0600 in a 0700 directory; deleted only while it still holds this window's token, so a
 * file another window has since written for the same port is never touched. Read only as a regular
 * file of bounded size: a pipe or device swapped in is never opened blocking.
 */
export class LockFile {
  readonly path: string;

  constructor(
    readonly port: number,
    private readonly directory: string = lockFileDirectory(),
  ) {
    this.path = path.join(directory, `${port}.lock`);
  }

  async write(content: LockFileContent): Promise<void> {
    await ensurePrivateDirectory(this.directory);
    await replaceFile(this.path, JSON.stringify(content), 0o600);
  }

  /** Removes the file if it is still ours. Returns whether it removed it. */
  async deleteIfOwned(authToken: string): Promise<boolean> {
    let current: unknown;
    try {
      current = JSON.parse((await readForeignFile(this.path, MAX_LOCK_FILE_BYTES))?.text ?? 'null');
    } catch {
      return false; // gone already, or not a file we could have written
    }
    if (!current || (current as Partial<LockFileContent>).authToken !== authToken) return false;
    await fs.rm(this.path, { force: true });
    return true;
  }

  /** Synchronous variant for process exit, when no promise will be awaited. */
  deleteIfOwnedSync(authToken: string): boolean {
    try {
      const current = JSON.parse(readForeignFileSync(this.path, MAX_LOCK_FILE_BYTES) ?? 'null') as Partial<LockFileContent> | null;
      if (current?.authToken !== authToken) return false;
      rmSync(this.path, { force: true });
      return true;
    } catch {
      return false;
    }
  }
}
