// Waiting until the Problems panel reflects files as they are on disk.
//
// Language servers check only documents VS Code has loaded, and report some time after each change
// (TypeScript: syntax first, then types, as separate reports). No server says "done", so a file counts
// as settled when VS Code's copy matches the disk and its problems were reported after its last change
// and then stayed quiet for a moment; or when its last change is old enough that a report would have
// come. Everything is bounded by the caller's budget (the CLI gives up after 500 ms / 2 s, §3.4).

import type { DiagnosticsSource } from '../host/diagnostics';

/** Problems unchanged this long after a report count as settled (TypeScript's type report follows its syntax report). */
export const SETTLE_QUIET_MS = 250;
/** A change with no report this long after it: the language server has nothing to say about it. */
export const ASSUME_CHECKED_AFTER_MS = 1000;
/** How often time-based conditions (quiet periods, VS Code reloading from disk) are re-checked. */
const POLL_MS = 50;

export interface SettleOptions {
  /** The most this may take. */
  timeoutMs: number;
  /** Load files VS Code has not loaded: 'show' also allows a preview tab where the checker needs one. Default 'none'. */
  load?: 'none' | 'load' | 'show';
  quietMs?: number;
  /**
   * Also wait, after the files settled, until no other file's problems changed for this long:
   * a change re-checks the files that use it (importers), which report after it.
   */
  othersQuietMs?: number;
  /**
   * A change is known to have happened just now (a write): wait for a report after `since` even where
   * the source cannot tell when the document changed (plain-Node fakes).
   */
  since?: number;
  now?: () => number;
}

export interface SettleReport {
  /** How long the call waited (ms). */
  waitedMs: number;
  /** Files whose problems had not settled when the time was up. */
  unsettled: string[];
  /** Other files whose problems changed during the wait. */
  othersChanged: string[];
}

export async function settleDiagnostics(source: DiagnosticsSource, paths: readonly string[], options: SettleOptions): Promise<SettleReport> {
  const now = options.now ?? Date.now;
  const quietMs = options.quietMs ?? SETTLE_QUIET_MS;
  const start = now();
  const deadline = start + options.timeoutMs;
  const docs = source.documents;
  const wanted = new Set(paths);
  const reportedAt = new Map<string, number>();
  const othersChanged = new Set<string>();
  let lastOtherReport = -Infinity;
  let wake: (() => void) | undefined;

  const subscriptions = [
    source.onDidChange((changed) => {
      const at = now();
      for (const p of changed) {
        reportedAt.set(p, at);
        if (!wanted.has(p)) {
          othersChanged.add(p);
          lastOtherReport = at;
        }
      }
      wake?.();
    }),
    ...(docs ? [docs.onDidChangeDocument(() => wake?.())] : []),
  ];
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), Math.max(0, ms));
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      wake = done;
    });

  const settled = async (file: string, t: number): Promise<boolean> => {
    if (!docs) {
      if (options.since === undefined) return true;
      const at = reportedAt.get(file);
      return at !== undefined && t - at >= quietMs;
    }
    if (docs.isDirty(file)) return true; // its problems describe the unsaved buffer; nothing on disk to wait for
    const inSync = await docs.matchesDisk(file);
    if (inSync === undefined) return true; // not loaded: nothing will report
    if (!inSync) return false; // VS Code has not reloaded the change made on disk yet
    const change = docs.lastChange(file);
    const changedAt = Math.max(change.document ?? -Infinity, options.since ?? -Infinity);
    if (changedAt === -Infinity) return true; // unchanged since before anyone watched
    const reported = change.diagnostics ?? reportedAt.get(file);
    if (reported !== undefined && reported >= changedAt) return t - reported >= quietMs;
    return t - changedAt >= ASSUME_CHECKED_AFTER_MS;
  };

  let unsettled: string[] = [...paths];
  try {
    if (docs && options.load && options.load !== 'none' && paths.length) {
      const show = options.load === 'show';
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(paths.map((p) => docs.load(p, { show }).catch(() => 'skipped'))),
        new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - now())))),
      ]);
      clearTimeout(timer);
    }
    let ownSettledAt: number | undefined;
    for (;;) {
      const t = now();
      const pending: string[] = [];
      for (const file of paths) if (!(await settled(file, t))) pending.push(file);
      unsettled = pending;
      if (pending.length === 0) {
        ownSettledAt ??= t;
        const othersQuiet = !options.othersQuietMs || t - Math.max(ownSettledAt, lastOtherReport) >= options.othersQuietMs;
        if (othersQuiet) break;
      } else {
        ownSettledAt = undefined;
      }
      if (t >= deadline) break;
      await sleep(Math.min(POLL_MS, deadline - t));
    }
  } finally {
    for (const s of subscriptions) s.dispose();
    wake = undefined;
  }
  return { waitedMs: now() - start, unsettled, othersChanged: [...othersChanged] };
}
