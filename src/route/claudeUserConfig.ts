// The CLI's own state file (~/.claude.json), edited the way the CLI itself edits it
// (docs/protocol.md#the-tools-route-entry): every running `claude` rewrites this file, so an edit here must never
// lose what another writer put there, never wipe it, and never replace a symlink with a copy.
//
//  - path: `<config dir>/.config.json` when that legacy file is in use, else
//    `$CLAUDE_CONFIG_DIR/.claude.json` or `~/.claude.json` (as claudeUserConfigPath decides);
//  - lock: the `proper-lockfile` protocol the CLI uses, on `<file>.lock` (a directory made with
//    mkdir, stale after 10 s, its mtime refreshed while held), so the CLI waits for us and we for it;
//  - read again under the lock; an empty or unparsable file is never taken for `{}`: nothing is
//    written and the user is told what to do;
//  - write a temp file beside the real target (through symlinks), with the file's mode, fsync it,
//    check the file did not change meanwhile (writers that ignore the lock), then rename.

import { constants as fsConstants, promises as fs, statSync, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as lockfile from 'proper-lockfile';

/** The CLI's config folder (backups, settings): `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  return env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude');
}

/**
 * Where the CLI keeps its user state, decided as claude 2.1.x does: the legacy
 * `<config dir>/.config.json` while it holds data (or is an empty, writable file and the new file
 * does not exist), else `.claude.json` in `$CLAUDE_CONFIG_DIR` or the home folder (`-custom-oauth`
 * added to the name when CLAUDE_CODE_CUSTOM_OAUTH_URL is set). 2.0.x used the legacy file whenever
 * it existed; the two agree except for an empty legacy file.
 */
export function claudeUserConfigPath(
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
  stat: (file: string) => Stats | undefined = statOrUndefinedSync,
): string {
  const suffix = env.CLAUDE_CODE_CUSTOM_OAUTH_URL ? '-custom-oauth' : '';
  const current = path.join(env.CLAUDE_CONFIG_DIR || home, `.claude${suffix}.json`);
  const legacy = path.join(claudeConfigDir(env, home), '.config.json');
  const legacyStat = stat(legacy);
  if (!legacyStat?.isFile()) return current;
  if (legacyStat.size > 0) return legacy;
  const writable = (legacyStat.mode & 0o222) !== 0;
  return writable && stat(current) === undefined ? legacy : current;
}

/** The file exists but is empty, not JSON or not an object: it is left exactly as it is. */
export class UnreadableConfigError extends Error {
  override readonly name = 'UnreadableConfigError';
}

type Json = Record<string, unknown>;

/** User-scope MCP servers in the CLI's state, however they are stored (the CLI's command or this file). */
export interface UserMcpServers {
  /** The file shown to the user. */
  readonly file: string;
  getServer(name: string): Promise<unknown>;
  /** Adds or replaces `mcpServers[name]`. Resolves false when it was already exactly that. */
  setServer(name: string, entry: Json): Promise<boolean>;
  /** Removes `mcpServers[name]`. Resolves false when there was none. */
  removeServer(name: string): Promise<boolean>;
}

export interface ClaudeUserConfigOptions {
  /** How long to wait for another writer's lock before giving up. Default 10 s (the lock's stale time). */
  lockWaitMs?: number;
  /** How long an empty or unparsable file is re-read before it is reported (a writer may be mid-rewrite). */
  unreadableGraceMs?: number;
}

/** proper-lockfile's defaults, which are what the CLI uses: stale after 10 s, refreshed every 5 s. */
const LOCK_STALE_MS = 10_000;
const MAX_SYMLINK_HOPS = 40;

export class ClaudeUserConfig implements UserMcpServers {
  private readonly lockWaitMs: number;
  private readonly unreadableGraceMs: number;

  constructor(
    readonly file: string = claudeUserConfigPath(),
    options: ClaudeUserConfigOptions = {},
  ) {
    this.lockWaitMs = options.lockWaitMs ?? LOCK_STALE_MS;
    this.unreadableGraceMs = options.unreadableGraceMs ?? 500;
  }

  async getServer(name: string): Promise<unknown> {
    const config = (await this.readUsable())?.config;
    const servers = config?.mcpServers;
    return isObject(servers) ? servers[name] : undefined;
  }

  setServer(name: string, entry: Json): Promise<boolean> {
    return this.update((config) => {
      const servers = isObject(config.mcpServers) ? config.mcpServers : {};
      if (JSON.stringify(servers[name]) === JSON.stringify(entry)) return false;
      config.mcpServers = { ...servers, [name]: entry };
      return true;
    });
  }

  removeServer(name: string): Promise<boolean> {
    return this.update((config) => {
      if (!isObject(config.mcpServers) || !(name in config.mcpServers)) return false;
      const { [name]: _removed, ...rest } = config.mcpServers;
      config.mcpServers = rest;
      return true;
    });
  }

  /** Lock, read again, change, write through the link, unlock. */
  private async update(change: (config: Json) => boolean): Promise<boolean> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    let compromised: Error | undefined;
    const release = await this.lock((error) => (compromised = error));
    try {
      for (let attempt = 0; ; attempt++) {
        const read = await this.readUsable();
        const config = read?.config ?? {};
        if (!change(config)) return false;
        const written = await this.writeThrough(config, read?.text, () => compromised);
        if (written) return true;
        if (attempt >= 20) {
          throw new Error(`${this.file} kept being rewritten by a program that does not use claude's lock; nothing was changed. Try again when claude is idle.`);
        }
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
          throw new Error(`${this.file} is locked by another program (${this.file}.lock) for more than ${Math.round(this.lockWaitMs / 1000)} s; nothing was changed. Try again when claude is idle.`);
        }
        await sleep(10 + Math.random() * 40);
      }
    }
  }

  /**
   * The parsed file, or undefined when it does not exist. An empty or unparsable file is read again
   * for a moment (another program may be rewriting it in place), then reported; never taken for `{}`.
   */
  private async readUsable(): Promise<{ text: string; config: Json } | undefined> {
    const deadline = Date.now() + this.unreadableGraceMs;
    for (;;) {
      let text: string;
      try {
        text = await fs.readFile(this.file, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return undefined;
        if (code === 'EISDIR') throw new UnreadableConfigError(`${this.file} is a folder, not claude's config file; nothing was changed.`);
        throw error;
      }
      const problem = unusable(text);
      if (!problem) return { text, config: JSON.parse(text) as Json };
      if (Date.now() >= deadline) throw new UnreadableConfigError(this.unreadableMessage(problem));
      await sleep(20);
    }
  }

  private unreadableMessage(problem: string): string {
    const backups = path.join(claudeConfigDir(), 'backups');
    return (
      `${this.file} ${problem}, so it was left unchanged (treating it as empty would wipe claude's settings, projects and account). ` +
      `Run claude once: it reports the problem and keeps a copy of the damaged file; or restore the file from a backup in ${backups}. Then try again.`
    );
  }

  /**
   * Writes `config` to the file's real target via a temp file and a rename. Returns false, writing
   * nothing, when the file no longer holds `basis` (someone rewrote it without the lock): the caller
   * reads again and redoes its change.
   */
  private async writeThrough(config: Json, basis: string | undefined, compromised: () => Error | undefined): Promise<boolean> {
    const target = await realTarget(this.file);
    const mode = await fs.stat(target).then((s) => s.mode & 0o7777, () => 0o600);
    // A rename would replace a read-only file; the user made it read-only, so leave it (as the CLI asks to).
    await fs.access(target, fsConstants.W_OK).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return;
      throw new Error(`${target} is read-only (${error.code}), so it was left unchanged. Make it writable (chmod u+w "${target}"), then try again.`);
    });
    const temp = path.join(path.dirname(target), `${path.basename(target)}.tmp.${process.pid}.${randomBytes(6).toString('hex')}`);
    const handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, mode);
    try {
      try {
        await handle.writeFile(`${JSON.stringify(config, null, 2)}\n`, 'utf8');
        await handle.chmod(mode); // the umask may have narrowed it
        await handle.sync();
      } finally {
        await handle.close();
      }
      const now = await fs.readFile(target, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
      if (now !== basis) {
        await fs.rm(temp, { force: true });
        return false;
      }
      const lost = compromised();
      if (lost) throw new Error(`The lock on ${this.file} was lost (${lost.message}); nothing was changed. Try again.`);
      await fs.rename(temp, target);
      return true;
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}

/** Why the text cannot be used as the config, or undefined when it can. */
function unusable(text: string): string | undefined {
  if (text.trim() === '') return 'is empty';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `is not valid JSON (${(error as Error).message})`;
  }
  return isObject(parsed) ? undefined : 'does not hold a JSON object';
}

/** The file a write must replace: symlinks followed (a dangling link's target too), as the CLI writes through them. */
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
  throw new Error(`${file} is a loop of symbolic links; nothing was changed. Point it at a real file.`);
}

function lockError(file: string, error: NodeJS.ErrnoException): Error {
  if (error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS') {
    return new Error(`Cannot create claude's lock ${file}.lock (${error.code}): the folder ${path.dirname(file)} is not writable; nothing was changed. Make it writable, then try again.`);
  }
  return new Error(`Cannot lock ${file} (${error.message}); nothing was changed.`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function statOrUndefinedSync(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
