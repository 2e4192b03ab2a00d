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
  /**
   * git's answer for each of `paths` it answered: true ignored, false not (absent function: no git, nothing
   * is ignored by it). A path missing from the answer was not decided: asked again, never taken as "not ignored".
   */
  checkIgnored?: (paths: readonly string[]) => Promise<ReadonlyMap<string, boolean>>;
  /** How long asks are gathered into one git check (ms). */
  batchMs?: number;
  /** How long git may take to answer a batch before its paths count as not ignored (5 s). */
  timeoutMs?: number;
  /** Answers kept at most (cleared beyond). */
  maxCached?: number;
}

/** How many checks a path git leaves unanswered goes through (then it counts as not ignored, uncached). */
const MAX_ATTEMPTS = 3;

/** A caller of {@link WatchFilter.skips} waiting for git, and how often its path went unanswered. */
interface Waiting {
  resolve: (ignored: boolean) => void;
  attempts: number;
}

/** A change to a file of this name forgets every cached answer (so does `.git/info/exclude`; git's global excludes file is outside the workspace: a change of the settings or a window reload forgets). */
const IGNORE_FILES = new Set(['.gitignore']);

export class WatchFilter {
  private readonly matches: (relativePath: string) => boolean;
  private readonly ignored = new Map<string, boolean>();
  private pending: Map<string, Waiting[]> | undefined;
  private generation = 0;
  /** Git checks run so far (the bench and tests count them). */
  checks = 0;

  constructor(private readonly deps: WatchFilterDeps) {
    const globs = deps.excludes.flatMap((setting) =>
      Object.entries(setting ?? {})
        .filter(([glob, on]) => on === true && glob.trim() !== '')
        .map(([glob]) => glob),
    );
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

  /** Whether a change of `filePath` no call announced is to be skipped: excluded, or ignored by git (never a control file). */
  async skips(filePath: string): Promise<boolean> {
    if (isControlFile(filePath)) return false;
    if (this.excluded(filePath)) return true;
    if (!this.deps.checkIgnored) return false;
    const known = this.ignored.get(filePath);
    if (known !== undefined) return known;
    return new Promise<boolean>((resolve) => this.ask(filePath, [{ resolve, attempts: 0 }]));
  }

  /** Puts `filePath` in the next git check (a batch gathered for `batchMs`). */
  private ask(filePath: string, waiting: Waiting[]): void {
    if (!this.pending) {
      this.pending = new Map();
      setTimeout(() => void this.flush(), this.deps.batchMs ?? 20);
    }
    this.pending.set(filePath, [...(this.pending.get(filePath) ?? []), ...waiting]);
  }

  /** The watcher saw `filePath` change: an ignore file (a `.gitignore`, `.git/info/exclude`) forgets what git said. */
  noteChange(filePath: string): void {
    if (IGNORE_FILES.has(path.basename(filePath)) || /[\\/]\.git[\\/]info[\\/]exclude$/.test(filePath)) this.forget();
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
    let ignored: ReadonlyMap<string, boolean> | undefined;
    try {
      this.checks++;
      let timer: NodeJS.Timeout | undefined;
      // A git busy for long must not hold the tracker's queue for ever: no answer in time is no answer.
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('git took too long')), this.deps.timeoutMs ?? 5_000)));
      ignored = await Promise.race([this.deps.checkIgnored!([...batch.keys()]), late]).finally(() => clearTimeout(timer));
    } catch {
      ignored = undefined; // git could not say: no path of the batch answered
    }
    if (this.ignored.size + batch.size > (this.deps.maxCached ?? 50_000)) this.ignored.clear();
    for (const [filePath, waiting] of batch) {
      const answer = ignored?.get(filePath);
      if (answer === undefined) {
        // git did not answer for this path (an error, too late, or left out of its output): asked again
        // before anything is decided on it; after MAX_ATTEMPTS checks without an answer it counts as not
        // ignored for this change (read and listed: the safe side), and nothing is cached.
        const again = waiting.filter((w) => w.attempts < MAX_ATTEMPTS - 1).map((w) => ({ ...w, attempts: w.attempts + 1 }));
        if (again.length) this.ask(filePath, again);
        for (const w of waiting) if (w.attempts >= MAX_ATTEMPTS - 1) w.resolve(false);
        continue;
      }
      if (answer !== undefined && generation === this.generation) this.ignored.set(filePath, answer);
      for (const w of waiting) w.resolve(answer);
    }
  }
}

/**
 * Files whose change makes something run or changes what git and the editor do, so no ignore rule and
 * no exclude setting leaves their change out of Claude's changes (issue 31, finding 8; docs/changes.md):
 * - in a `.git` folder (a repository's, a submodule's under `.git/modules/…`, a worktree's under
 *   `.git/worktrees/…`): `config` and `config.worktree` (`core.fsmonitor`, `core.hooksPath`, `core.pager`,
 *   filters and aliases run programs), `hooks/*` (run by git itself), `info/attributes` (picks the filter
 *   and diff drivers) and `info/exclude` (hides files from `git status`). Not the object store, refs,
 *   index or logs: git writes those itself on every commit;
 * - in a `.vscode` folder: its files (tasks that run on folder open, launch configurations, settings).
 */
export function isControlFile(filePath: string): boolean {
  const parts = filePath.split(/[\\/]/);
  const vscode = parts.lastIndexOf('.vscode');
  if (vscode >= 0 && vscode < parts.length - 1 && !parts.includes('.git')) return true;
  const git = parts.indexOf('.git');
  if (git < 0) return false;
  let rest = parts.slice(git + 1);
  // A submodule's or a worktree's own git folder inside this one: the same files, under it.
  for (;;) {
    if (rest[0] === 'modules' && rest.length > 2) {
      const inner = rest.findIndex((p, i) => i > 0 && ['config', 'config.worktree', 'hooks', 'info'].includes(p));
      if (inner < 0) return false;
      rest = rest.slice(inner);
    } else if (rest[0] === 'worktrees' && rest.length > 2) rest = rest.slice(2);
    else break;
  }
  const [first, second, ...more] = rest;
  if (rest.length === 1) return first === 'config' || first === 'config.worktree';
  if (first === 'hooks') return second !== undefined && more.length === 0;
  return first === 'info' && more.length === 0 && (second === 'attributes' || second === 'exclude');
}

/** Whether `filePath` is inside a `.git` folder (changes there are git's own, but for {@link isControlFile}s). */
export function insideGitFolder(filePath: string): boolean {
  return filePath.split(/[\\/]/).includes('.git');
}
