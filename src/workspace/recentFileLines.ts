// The lines of small files read recently, kept while the file is unchanged: the language tools show one
// line of each referencing file, and a model asks about the same files call after call. A kept copy is
// used only when a `stat` of the file now matches the one taken around the read (inode, size, mtime and
// ctime in nanoseconds), and never for a file changed within the last RACY_MS (a file system with coarse
// timestamps could then hide a change: git's "racily clean" rule). Everything else is read again,
// bounded, as readTextIfExists reads (regular files only). The caller checks the workspace boundary first.

import { promises as fs, type BigIntStats } from 'node:fs';
import { readTextIfExists } from './readTextIfExists';

/** Files larger than this are not kept (read every time). */
const KEEP_FILE_BYTES = 1024 * 1024;
/** Bytes of kept files at most (their sizes on disk). */
const KEEP_TOTAL_BYTES = 16 * 1024 * 1024;
/** A file changed this recently is read again, whatever its stat says. */
const RACY_MS = 2000;

interface Kept {
  stat: BigIntStats;
  lines: string[];
}

const same = (a: BigIntStats, b: BigIntStats) => a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

export class RecentFileLines {
  /** In use order, least recent first. */
  private readonly kept = new Map<string, Kept>();
  private keptBytes = 0;

  constructor(
    private readonly split: (text: string) => string[],
    private readonly limits = { fileBytes: KEEP_FILE_BYTES, totalBytes: KEEP_TOTAL_BYTES, racyMs: RACY_MS },
    private readonly now: () => number = Date.now,
  ) {}

  /** A file's stat as keptIfUnchanged compares it (undefined: none, whatever the reason). */
  static statOf(file: string): Promise<BigIntStats | undefined> {
    return fs.stat(file, { bigint: true }).catch(() => undefined);
  }

  /**
   * The kept lines of the file when a stat shows it unchanged and not just written, else undefined (then
   * `lines` reads it): one stat, nothing read, so callers may check many files at once. `taken`: that
   * stat, taken by the caller while it was still finding the real path (the language tools: the lstat of
   * the file's entry that the workspace resolver's existingFile takes; lines are used only when it is of
   * the very file read before, unchanged).
   */
  async keptIfUnchanged(realPath: string, taken?: Promise<BigIntStats | undefined>): Promise<string[] | undefined> {
    const kept = this.kept.get(realPath);
    if (!kept) return undefined;
    const now = await (taken ?? RecentFileLines.statOf(realPath));
    if (!now || !same(now, kept.stat) || !this.settled(now) || this.kept.get(realPath) !== kept) return undefined;
    this.kept.delete(realPath); // re-inserted last: most recently used
    this.kept.set(realPath, kept);
    return kept.lines;
  }

  /** The file's lines (undefined: no such file); throws as readTextIfExists does (not a regular file, too large). */
  async lines(realPath: string, maxBytes: number): Promise<string[] | undefined> {
    const before = await fs.stat(realPath, { bigint: true }).catch(() => undefined);
    const kept = this.kept.get(realPath);
    if (before && kept && same(before, kept.stat) && this.settled(before)) {
      this.kept.delete(realPath); // re-inserted last: most recently used
      this.kept.set(realPath, kept);
      return kept.lines;
    }
    if (kept) this.forget(realPath);
    const text = await readTextIfExists(realPath, { maxBytes });
    if (text === undefined) return undefined;
    const lines = this.split(text);
    const after = await fs.stat(realPath, { bigint: true }).catch(() => undefined);
    // Kept only when nothing changed during the read and the file is a small regular one, not just written.
    if (before && after && same(before, after) && before.isFile() && before.size > 0n && before.size <= BigInt(this.limits.fileBytes) && this.settled(after)) {
      this.kept.set(realPath, { stat: after, lines });
      this.keptBytes += Number(after.size);
      for (const [oldest] of this.kept) {
        if (this.keptBytes <= this.limits.totalBytes) break;
        this.forget(oldest);
      }
    }
    return lines;
  }

  private settled(stat: BigIntStats): boolean {
    const changedMs = Number((stat.mtimeNs > stat.ctimeNs ? stat.mtimeNs : stat.ctimeNs) / 1_000_000n);
    return this.now() - changedMs >= this.limits.racyMs;
  }

  private forget(realPath: string): void {
    const kept = this.kept.get(realPath);
    if (!kept) return;
    this.kept.delete(realPath);
    this.keptBytes -= Number(kept.stat.size);
  }
}
