import { promises as fs, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** Exactly the fields the CLI reads from a lock file (docs/protocol.md#lock-file-and-discovery); nothing else. */
export interface LockFileContent {
  pid: number;
  workspaceFolders: string[];
  ideName: string;
  transport: 'ws';
  runningInWindows: boolean;
  authToken: string;
}

/** `<CLAUDE_CONFIG_DIR or ~/.claude>/ide`, normalised to NFC as the CLI does (docs/protocol.md#lock-file-and-discovery). */
export function lockFileDirectory(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  const configDir = configured ? configured : path.join(home, '.claude');
  return path.join(configDir.normalize('NFC'), 'ide');
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
 * One window's lock file. Written atomically (temp file + rename) with mode 0600 in a 0700
 * directory; deleted only while it still holds this window's token, so a file another window
 * has since written for the same port is never touched.
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
    await fs.mkdir(this.directory, { recursive: true, mode: 0o700 });
    const temp = path.join(this.directory, `.${this.port}.lock.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await fs.writeFile(temp, JSON.stringify(content), { mode: 0o600, flag: 'wx' });
      await fs.rename(temp, this.path);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  /** Removes the file if it is still ours. Returns whether it removed it. */
  async deleteIfOwned(authToken: string): Promise<boolean> {
    let current: unknown;
    try {
      current = JSON.parse(await fs.readFile(this.path, 'utf8'));
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
      const current = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<LockFileContent>;
      if (current.authToken !== authToken) return false;
      rmSync(this.path, { force: true });
      return true;
    } catch {
      return false;
    }
  }
}
