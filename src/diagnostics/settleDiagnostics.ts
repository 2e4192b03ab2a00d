// Waiting until the Problems panel reflects files as they are on disk.
//
// Language servers check only documents VS Code has loaded, and report some time after each change
// (TypeScript: syntax first, then types, as separate reports). No server says "done", so a file counts
// as settled when VS Code's copy matches the disk and its problems were reported after its last change
// and then stayed quiet for a moment; or when its last change is old enough that a report would have
// come; silence counts as "no problems" only once a language server has answered about the file.
// Everything is bounded by the caller's budget (docs/diagnostics.md has the table).

import type { DiagnosticsSource } from '../host/diagnostics';

/** Problems unchanged this long after a report count as settled (TypeScript's type report follows its syntax report). */
const SETTLE_QUIET_MS = 250;
/** A change with no report this long after it: the language server has nothing to say about it. */
export const ASSUME_CHECKED_AFTER_MS = 1000;
/** A checker that answers this fast had the file already (it is not busy with a first check). */
const ANSWERED_AT_ONCE_MS = 250;
/** How often time-based conditions (quiet periods, VS Code reloading from disk) are re-checked. */
const POLL_MS = 50;
/** How often a long wait tells the caller which files are still being checked (MCP progress). */
const WAITING_REPORT_MS = 1000;

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
  /** Called about every second while files are still being checked (for MCP progress). */
  onWaiting?: (unsettled: readonly string[], waitedMs: number) => void;
  now?: () => number;
}

export interface SettleReport {
  /** How long the call waited (ms). */
  waitedMs: number;
  /** Files whose problems had not settled when the time was up. */
  unsettled: string[];
  /** Other files whose problems changed during the wait. */
  othersChanged: string[];
  /** Of `unsettled`, those with no report since their change whose language server had not answered about them yet (a first check still running). */
  unanswered: string[];
}

// Long (~150 lines) because one wait's state (reports, checker answers, the wake-up) is shared by its closures.
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
  /**
   * Since when each file's checker is known to have had it ('none': nothing checks it): the moment it
   * answered, or -Infinity when it answered at once (it had the file already, silence counts from the change).
   */
  const checkerHadFileSince = new Map<string, number | 'none' | 'asked'>();
  const askChecker = (file: string) => {
    if (!docs || checkerHadFileSince.has(file)) return;
    checkerHadFileSince.set(file, 'asked');
    const askedAt = now();
    void docs.checkerAnswered(file).then(
      (answered) => {
        const at = now();
        checkerHadFileSince.set(file, !answered ? 'none' : at - askedAt <= ANSWERED_AT_ONCE_MS ? -Infinity : at);
        wake?.();
      },
      () => checkerHadFileSince.set(file, 'none'),
    );
  };

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

  /**
   * Where a file stands: settled, still being checked, or still being checked with no report since its
   * change (a first check still running, or its checker's silence not yet a second old: not yet "clean").
   * Claude's own {} says "Not checked yet" for the last kind: its answer never carries nothing for a
   * file whose problems may still come.
   */
  type FileState = 'settled' | 'pending' | 'unanswered';
  /** The part that needs no look at the disk: whether the file was reported on, or its checker answered. */
  const stateSinceChange = (file: string, t: number): FileState => {
    const change = docs!.lastChange(file);
    const changedAt = Math.max(change.document ?? -Infinity, options.since ?? -Infinity);
    if (changedAt === -Infinity) return 'settled'; // unchanged since before anyone watched
    const reported = change.diagnostics ?? reportedAt.get(file);
    if (reported !== undefined && reported >= changedAt) return t - reported >= quietMs ? 'settled' : 'pending';
    // No report since the change: the file is clean (TypeScript then says nothing) or its checker is still
    // busy (a project's first check in a fresh window takes seconds). Only once a language server has
    // answered about the file does silence mean "clean".
    askChecker(file);
    const hadFileSince = checkerHadFileSince.get(file);
    if (hadFileSince === 'none') return 'settled';
    if (hadFileSince === 'asked' || hadFileSince === undefined) return 'unanswered';
    return t - Math.max(changedAt, hadFileSince) >= ASSUME_CHECKED_AFTER_MS ? 'settled' : 'unanswered';
  };
  const stateOf = async (file: string, t: number): Promise<FileState> => {
    if (!docs) {
      if (options.since === undefined) return 'settled';
      const at = reportedAt.get(file);
      return at !== undefined && t - at >= quietMs ? 'settled' : 'pending';
    }
    if (docs.isDirty(file)) return 'settled'; // its problems describe the unsaved buffer; nothing on disk to wait for
    const inSync = await docs.matchesDisk(file);
    if (inSync === undefined) return 'settled'; // not loaded: nothing will report
    if (!inSync) return 'pending'; // VS Code has not reloaded the change made on disk yet
    return stateSinceChange(file, now());
  };
  /**
   * A file no look of this wait got through when the time was up (its document still loading, or the
   * reads queued behind a busy extension host): still being checked, and "unanswered" unless it was
   * reported on since its change or its checker answered.
   */
  const stateUnseen = (file: string): FileState => {
    if (!docs) return 'pending';
    const change = docs.lastChange(file);
    const changedAt = Math.max(change.document ?? -Infinity, options.since ?? -Infinity);
    const reported = change.diagnostics ?? reportedAt.get(file);
    if (reported !== undefined && reported >= changedAt) return 'pending';
    const hadFileSince = checkerHadFileSince.get(file);
    return hadFileSince === 'none' ? 'pending' : 'unanswered';
  };

  /**
   * Each file's state as last seen. The files are looked at together, and the answer goes when the time
   * is up even while a look is still under way (reading a document back from the disk can wait behind
   * a busy extension host): what that look had not reached yet counts as still being checked.
   */
  const states = new Map<string, FileState>();
  let expiredTimer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => (expiredTimer = setTimeout(() => resolve('expired'), Math.max(0, deadline - now()))));
  const stateNow = (file: string) => states.get(file) ?? stateUnseen(file);
  try {
    if (docs && options.load && options.load !== 'none' && paths.length) {
      const show = options.load === 'show';
      await Promise.race([Promise.all(paths.map((p) => docs.load(p, { show }).catch(() => 'skipped'))), expired]);
    }
    let ownSettledAt: number | undefined;
    let lastWaitingReport = start;
    for (;;) {
      const t = now();
      const look = Promise.all(paths.map(async (file) => states.set(file, await stateOf(file, t))));
      if ((await Promise.race([look, expired])) === 'expired') break;
      const pending = paths.filter((file) => states.get(file) !== 'settled');
      if (pending.length === 0) {
        ownSettledAt ??= t;
        const othersQuiet = !options.othersQuietMs || t - Math.max(ownSettledAt, lastOtherReport) >= options.othersQuietMs;
        if (othersQuiet) break;
      } else {
        ownSettledAt = undefined;
      }
      if (now() >= deadline) break;
      if (options.onWaiting && pending.length && t - lastWaitingReport >= WAITING_REPORT_MS) {
        lastWaitingReport = t;
        options.onWaiting(pending, t - start);
      }
      if ((await Promise.race([sleep(Math.min(POLL_MS, deadline - now())), expired])) === 'expired') break;
    }
  } finally {
    clearTimeout(expiredTimer);
    for (const s of subscriptions) s.dispose();
    wake = undefined;
  }
  const unsettled = paths.filter((file) => stateNow(file) !== 'settled');
  return { waitedMs: now() - start, unsettled, othersChanged: [...othersChanged], unanswered: unsettled.filter((file) => stateNow(file) === 'unanswered') };
}
