import * as path from 'node:path';
import picomatch from 'picomatch';

/**
 * Which changes the workspace watcher reports are not worth reading while claude works: a build's output
 * (node_modules, dist/, .venv, __pycache__) can be thousands of files, each read, stored and looked up in
 * git otherwise. Only changes no call announced are filtered (ChangeTracker asks this only for those): a
 * file claude named is listed whether it is ignored or not.
 *
 * A path is skipped when the user's `files.watcherExclude` / `files.exclude` name it (or a folder above
 * it), or when git ignores it. git is asked in batches: every path asked about within `batchMs` goes into
 * one check (one `git check-ignore --stdin` behind VS Code's git extension), and answers are cached until
 * an ignore file changes, so a burst of 2,000 files costs one process, and a second burst none.
 */
export interface WatchFilterDeps {
  /** The exclude settings as VS Code holds them: `{ glob: true | false | { when } }`, one object per setting. */
  excludes: readonly Record<string, unknown>[];
  /** The workspace folders the globs are relative to. */
  folders: readonly string[];
  /** The paths of `paths` git ignores (absent: no git, nothing is ignored by it). */
  checkIgnored?: (paths: readonly string[]) => Promise<ReadonlySet<string>>;
  /** How long asks are gathered into one git check (ms). */
  batchMs?: number;
  /** How long git may take to answer a batch before its paths count as not ignored (5 s). */
  timeoutMs?: number;
  /** Answers kept at most (cleared beyond). */
  maxCached?: number;
}

/** A change to a file of this name forgets every cached answer (`.git/info/exclude` is not watched: the settings' reload or a window reload does). */
const IGNORE_FILES = new Set(['.gitignore']);

export class WatchFilter {
  private readonly matches: (relativePath: string) => boolean;
  private readonly ignored = new Map<string, boolean>();
  private pending: Map<string, ((ignored: boolean) => void)[]> | undefined;
  private generation = 0;
  /** Git checks run so far (the bench and tests count them). */
  checks = 0;

  constructor(private readonly deps: WatchFilterDeps) {
    const globs = deps.excludes.flatMap((setting) => Object.entries(setting ?? {}).filter(([glob, on]) => on === true && glob.trim() !== '').map(([glob]) => glob));
    // `when` conditions (siblings) are not evaluated: such a glob never skips a file.
    this.matches = globs.length ? picomatch(globs, { dot: true, nocase: process.platform === 'win32' }) : () => false;
  }

  /** Whether the exclude settings name the file or a folder above it (as VS Code applies them: to the path relative to its folder). */
  excluded(filePath: string): boolean {
    for (const folder of this.deps.folders) {
      const relative = path.relative(folder, filePath);
      if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const parts = relative.split(path.sep);
      for (let i = 1; i <= parts.length; i++) if (this.matches(parts.slice(0, i).join('/'))) return true;
    }
    return false;
  }

  /** Whether a change of `filePath` no call announced is to be skipped: excluded, or ignored by git. */
  async skips(filePath: string): Promise<boolean> {
    if (this.excluded(filePath)) return true;
    if (!this.deps.checkIgnored) return false;
    const known = this.ignored.get(filePath);
    if (known !== undefined) return known;
    return new Promise<boolean>((resolve) => {
      if (!this.pending) {
        this.pending = new Map();
        setTimeout(() => void this.flush(), this.deps.batchMs ?? 20);
      }
      const waiting = this.pending.get(filePath) ?? [];
      waiting.push(resolve);
      this.pending.set(filePath, waiting);
    });
  }

  /** The watcher saw `filePath` change: an ignore file forgets what git said. */
  noteChange(filePath: string): void {
    if (IGNORE_FILES.has(path.basename(filePath))) this.forget();
  }

  /** Forgets every cached answer (an ignore file or the settings changed). */
  forget(): void {
    this.ignored.clear();
    this.generation++;
  }

  private async flush(): Promise<void> {
    const batch = this.pending!;
    this.pending = undefined;
    const generation = this.generation;
    let ignored: ReadonlySet<string> | undefined;
    try {
      this.checks++;
      let timer: NodeJS.Timeout | undefined;
      // A git busy for long must not hold the tracker's queue: no answer in time is "not ignored".
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('git took too long')), this.deps.timeoutMs ?? 5_000)));
      ignored = await Promise.race([this.deps.checkIgnored!([...batch.keys()]), late]).finally(() => clearTimeout(timer));
    } catch {
      ignored = undefined; // git could not say: nothing is skipped on its word, nothing cached
    }
    if (this.ignored.size + batch.size > (this.deps.maxCached ?? 50_000)) this.ignored.clear();
    for (const [filePath, waiting] of batch) {
      const answer = ignored?.has(filePath) ?? false;
      if (ignored && generation === this.generation) this.ignored.set(filePath, answer);
      for (const resolve of waiting) resolve(answer);
    }
  }
}
