/**
 * What each claude session changed, as a list the user can review after the fact: per session, per
 * file, the content before the session's first change (a before-image, or "the file did not exist")
 * and the content claude left. Plain data, saved as JSON by the adapter so it survives a window reload;
 * the bytes themselves are in the BeforeImageStore, named by their id.
 *
 * How a change is attributed:
 * - certain: a call of the session named the file just before it was written (claude's baseline
 *   `getDiagnostics {uri}`, its `openDiff`, a write of the tools route); the before-image was taken then.
 * - uncertain: the file changed with no such call (claude's Bash, a formatter, the user); it goes to the
 *   session whose call came last before the change, with a fallback before-image (git's, or the content
 *   VS Code last knew), and the view says it is not attributed with certainty.
 */

/** Stored content: a blob of the BeforeImageStore, or no file at all. */
/** `mode`: the file's permission bits, so a deleted file comes back with them. */
export type Image = { blob: string; size: number; mode?: number } | { absent: true };

export type CaptureSource = 'baseline' | 'openDiff' | 'tools-route' | 'git' | 'last-known';

export interface FileChange {
  path: string;
  /** The file before the session's first change since it was last kept. */
  before: Image;
  /** The file as claude last left it: lines that differ from it now were edited by someone else. */
  claudeLeft?: Image;
  attribution: 'certain' | 'uncertain';
  source: CaptureSource;
  /** When the change was first seen on disk (ms since the epoch). */
  changedAt: number;
  /**
   * Claude wrote the file (or the lines) again after the user undid a change of it: `left` is what that
   * undo had left, which "Undo Again" restores; `undoneAt` names the undo (one warning per undo).
   */
  rewroteUndo?: { left: Image; undoneAt: number };
}

/**
 * The user undid a change of `path` (whole, or hunks of it): a later write of claude's over what the undo
 * restored must not pass unnoticed (docs/changes.md, "After an undo"). Kept until the file is kept or the
 * undo is taken back (Redo).
 */
export interface UndoRecord {
  path: string;
  /** The file as the undo left it. */
  left: Image;
  /** The file as claude had left it when the user started undoing (successive hunk undos share it). */
  undid: Image;
  /** The whole file was undone: any later change of it is a write over the undo; else only one touching the restored lines. */
  whole: boolean;
  at: number;
}

export interface SessionChanges {
  /** Stable across a reconnect of the same claude (the adapter's choice: its process and terminal). */
  id: string;
  /** How the user knows it: its terminal's name. */
  label: string;
  startedAt: number;
  files: FileChange[];
  /** It made a call on this window (so claude had started a turn while connected). */
  called?: true;
  /**
   * When it reconnected after such a call (Restart Server, a window reload): claude then sends no more
   * baselines for its edits until it is restarted (docs/changes.md), so they are listed without certainty.
   */
  unannouncedSince?: number;
}

export interface LedgerState {
  version: 1;
  sessions: SessionChanges[];
  /** Files dropped to stay within the bound, so the view can say so. */
  dropped: { files: number; at: number } | undefined;
  /** The user's undos, newest last (absent in lists saved before they were kept). */
  undos?: UndoRecord[];
}

export interface LedgerBound {
  /** Total bytes of before-images kept (each distinct blob counted once). */
  maxBytes: number;
  /** Files listed over all sessions. */
  maxFiles: number;
}

/** 256 MiB and 5,000 files: room for the 1,000 files and 50 MB the view is built for, with margin. */
const DEFAULT_BOUND: LedgerBound = { maxBytes: 256 * 1024 * 1024, maxFiles: 5000 };

/** Undos remembered (the oldest forgotten first; their blobs count in the bound's bytes, and go first when over it). */
const MAX_UNDOS = 1000;

/** A before-image taken when a call named a file, waiting for the write it announced. */
interface Expected {
  session: string;
  before: Image;
  source: CaptureSource;
  until: number;
}

export class ChangeLedger {
  private readonly sessions = new Map<string, SessionChanges>();
  private dropped: LedgerState['dropped'];
  /** By path: the before-images taken ahead of writes, newest last. */
  private readonly expected = new Map<string, Expected[]>();
  /** By session: when its last call came, for changes no call named. */
  private readonly lastCall = new Map<string, number>();
  /** By path: the user's last undo of a change of the file. */
  private readonly undos = new Map<string, UndoRecord>();

  constructor(
    state?: LedgerState,
    private readonly bound: LedgerBound = DEFAULT_BOUND,
    /** A change no call announced goes to the last caller only if its call came this recently (a session idle for long did not make it). */
    private readonly uncertainWithinMs = Number.POSITIVE_INFINITY,
  ) {
    if (state?.version === 1) {
      for (const session of state.sessions) this.sessions.set(session.id, { ...session, files: session.files.map((f) => ({ ...f })) });
      this.dropped = state.dropped;
      for (const undo of Array.isArray(state.undos) ? state.undos : []) this.undos.set(undo.path, { ...undo });
    }
  }

  /** A session connected (again): it is listed from now on, under its terminal's name. */
  sessionStarted(id: string, label: string, at: number): void {
    const known = this.sessions.get(id);
    if (known) known.label = label;
    else this.sessions.set(id, { id, label, startedAt: at, files: [] });
    this.lastCall.set(id, at);
  }

  /** The session's name changed (its terminal was found); false when it is not listed or already so named. */
  relabel(id: string, label: string): boolean {
    const known = this.sessions.get(id);
    if (!known || known.label === label) return false;
    known.label = label;
    return true;
  }

  /** Any call of the session: the latest one is whom an unannounced change is attributed to. */
  noteCall(session: string, at: number): void {
    this.lastCall.set(session, at);
    const entry = this.sessions.get(session);
    if (entry) entry.called = true;
  }

  /**
   * The session came back on a new connection. True when this newly means its edits are no longer
   * announced: it had called before (claude keeps the connection it had at its first turn for its
   * baselines, and that one is gone).
   */
  reconnected(session: string, at: number): boolean {
    const entry = this.sessions.get(session);
    if (!entry?.called || entry.unannouncedSince !== undefined) return false;
    entry.unannouncedSince = at;
    return true;
  }

  /**
   * A call of `session` named `path` ahead of writing it, and `before` is the file as it was then.
   * The next change of the file until `until` is the session's, with this before-image.
   */
  expectWrite(session: string, path: string, before: Image, source: CaptureSource, at: number, until: number): void {
    this.noteCall(session, at);
    // A baseline came: this claude announces its edits again.
    const entry = this.sessions.get(session);
    if (source === 'baseline' && entry) delete entry.unannouncedSince;
    const list = (this.expected.get(path) ?? []).filter((e) => e.until >= at && e.session !== session);
    list.push({ session, before, source, until });
    this.expected.set(path, list);
  }

  /** Whether `fileChanged(path, …, at)` would ask for a fallback before-image (a change no call announced, of a file not listed yet). */
  needsFallback(path: string, at: number): boolean {
    if (this.expected.get(path)?.some((e) => e.until >= at)) return false;
    const session = this.lastCaller(at);
    return session !== undefined && !this.sessions.get(session)?.files.some((f) => f.path === path);
  }

  /** Whether any call of a session named `path` ahead of a write that has not come yet. */
  isExpected(path: string, at: number): boolean {
    return this.expected.get(path)?.some((e) => e.until >= at) ?? false;
  }

  /** Whether a session lists `path` (its later changes are followed whatever the watcher filter says). */
  isListed(path: string): boolean {
    for (const session of this.sessions.values()) if (session.files.some((f) => f.path === path)) return true;
    return false;
  }

  /** An entry listed again as it was (an undo was itself undone). */
  relist(session: string, change: FileChange): void {
    const entry = this.sessions.get(session);
    if (!entry) return;
    entry.files = entry.files.filter((f) => f.path !== change.path);
    entry.files.push({ ...change });
  }

  /** The announced write will not come (a review was rejected). */
  cancelExpected(session: string, path: string): void {
    const list = this.expected.get(path)?.filter((e) => e.session !== session);
    if (list?.length) this.expected.set(path, list);
    else this.expected.delete(path);
  }

  /**
   * `path` changed on disk at `at` and now holds `now`. Returns the entry it was listed under, or undefined
   * when no session is to be credited with it. `fallback` gives a before-image for a change no call announced
   * (undefined: none to be had, the change is not listed).
   */
  fileChanged(path: string, now: Image, at: number, fallback: () => { before: Image; source: CaptureSource } | undefined): FileChange | undefined {
    // A late report of an earlier change (the file still holds the before-image) leaves the announcement for the write to come.
    const pending = this.peekExpected(path, at);
    const announced = pending && !sameImage(pending.before, now) ? this.takeExpected(path, at) : undefined;
    if (pending && !announced) return undefined;
    const session = announced?.session ?? this.lastCaller(at);
    if (!session) return undefined;
    const entry = this.sessions.get(session);
    if (!entry) return undefined;
    const listed = entry.files.find((f) => f.path === path);
    if (listed) {
      // Later changes keep the first before-image (and its attribution: the view says how sure the start is).
      if (sameImage(listed.before, now)) {
        this.settled(session, path);
        return undefined;
      }
      listed.claudeLeft = now;
      return listed;
    }
    const before = announced ? { before: announced.before, source: announced.source } : fallback();
    if (!before) return undefined;
    if (sameImage(before.before, now)) return undefined;
    const change: FileChange = {
      path,
      before: before.before,
      claudeLeft: now,
      attribution: announced ? 'certain' : 'uncertain',
      source: before.source,
      changedAt: at,
    };
    entry.files.push(change);
    this.keepWithinBound();
    return change;
  }

  /** Part of the file kept or undone: the before-image is now `before` (a hunk kept), claude's content `claudeLeft`. */
  update(session: string, path: string, change: { before?: Image; claudeLeft?: Image }): void {
    const listed = this.sessions.get(session)?.files.find((f) => f.path === path);
    if (!listed) return;
    if (change.before) listed.before = change.before;
    if (change.claudeLeft) listed.claudeLeft = change.claudeLeft;
  }

  /** The file was kept as it is, or restored to its before-image: no longer a change to look at. */
  settled(session: string, path: string): void {
    const entry = this.sessions.get(session);
    if (entry) entry.files = entry.files.filter((f) => f.path !== path);
  }

  /** The user undid (part of) a change of the file: remembered, so claude writing over it again is flagged. */
  noteUndo(record: UndoRecord): void {
    this.undos.delete(record.path);
    this.undos.set(record.path, { ...record });
    if (this.undos.size > MAX_UNDOS) this.undos.delete(this.undos.keys().next().value!);
    this.keepWithinBound();
  }

  undoOf(path: string): UndoRecord | undefined {
    return this.undos.get(path);
  }

  /** The file was kept, or its undo taken back: a later write is no longer one over the user's undo. */
  forgetUndo(path: string): void {
    this.undos.delete(path);
  }

  /** Sets (or clears) the flag "claude wrote this again after you undid it" on the listed change. */
  markRewrite(session: string, path: string, flag: FileChange['rewroteUndo']): void {
    const listed = this.sessions.get(session)?.files.find((f) => f.path === path);
    if (!listed) return;
    if (flag) listed.rewroteUndo = flag;
    else delete listed.rewroteUndo;
  }

  /** The session listing `change` (the object fileChanged returned). */
  sessionOf(change: FileChange): string | undefined {
    for (const session of this.sessions.values()) if (session.files.includes(change)) return session.id;
    return undefined;
  }

  /** A session and its list are dismissed. */
  forgetSession(session: string): void {
    this.sessions.delete(session);
    this.lastCall.delete(session);
  }

  list(): readonly SessionChanges[] {
    return [...this.sessions.values()];
  }

  /** Every blob an entry still needs (the store may delete the others). */
  neededBlobs(): Set<string> {
    const needed = new Set<string>();
    for (const session of this.sessions.values()) {
      for (const file of session.files) {
        for (const image of imagesOf(file)) needed.add(image.blob);
        // Undo Again restores it, also once the undo itself was forgotten.
        if (file.rewroteUndo && 'blob' in file.rewroteUndo.left) needed.add(file.rewroteUndo.left.blob);
      }
    }
    for (const list of this.expected.values()) for (const e of list) if ('blob' in e.before) needed.add(e.before.blob);
    for (const undo of this.undos.values()) for (const image of [undo.left, undo.undid]) if ('blob' in image) needed.add(image.blob);
    return needed;
  }

  /** The bound the list is kept within. */
  limits(): LedgerBound {
    return this.bound;
  }

  droppedNote(): LedgerState['dropped'] {
    return this.dropped;
  }

  toJSON(): LedgerState {
    return { version: 1, sessions: this.list().map((s) => ({ ...s, files: [...s.files] })), dropped: this.dropped, undos: [...this.undos.values()] };
  }

  private peekExpected(path: string, at: number): Expected | undefined {
    return this.expected
      .get(path)
      ?.filter((e) => e.until >= at)
      .at(-1);
  }

  private takeExpected(path: string, at: number): Expected | undefined {
    const list = this.expected.get(path)?.filter((e) => e.until >= at);
    const taken = list?.pop();
    if (list?.length) this.expected.set(path, list);
    else this.expected.delete(path);
    return taken;
  }

  /**
   * Who an unannounced change goes to: the session that called last (recently enough); but a session whose
   * edits are no longer announced goes first, as any other session's Edit or Write would have been announced.
   */
  private lastCaller(at: number): string | undefined {
    let best: [string, number, boolean] | undefined;
    for (const [session, when] of this.lastCall) {
      if (when > at || at - when > this.uncertainWithinMs) continue;
      const unannounced = this.sessions.get(session)?.unannouncedSince !== undefined;
      if (!best || (unannounced && !best[2]) || (unannounced === best[2] && when > best[1])) best = [session, when, unannounced];
    }
    return best?.[0];
  }

  /** Drops the oldest changes (over all sessions) until the list fits the bound, and notes how many. */
  private keepWithinBound(): void {
    const all = [...this.sessions.values()].flatMap((s) => s.files.map((file) => ({ session: s, file })));
    let files = all.length;
    // Each distinct blob counts once, for as long as one entry still uses it.
    const uses = new Map<string, { size: number; count: number }>();
    for (const { file } of all) {
      for (const image of imagesOf(file)) {
        const use = uses.get(image.blob) ?? { size: image.size, count: 0 };
        use.count++;
        uses.set(image.blob, use);
      }
    }
    for (const undo of this.undos.values()) {
      for (const image of [undo.left, undo.undid]) {
        if (!('blob' in image)) continue;
        const use = uses.get(image.blob) ?? { size: image.size, count: 0 };
        use.count++;
        uses.set(image.blob, use);
      }
    }
    let bytes = [...uses.values()].reduce((sum, use) => sum + use.size, 0);
    if (files <= this.bound.maxFiles && bytes <= this.bound.maxBytes) return;
    // The oldest undos go first: forgetting one only loses the warning for a later write over it.
    for (const undo of [...this.undos.values()]) {
      if (bytes <= this.bound.maxBytes) break;
      this.undos.delete(undo.path);
      for (const image of [undo.left, undo.undid]) {
        if ('blob' in image && --uses.get(image.blob)!.count === 0) bytes -= image.size;
      }
    }
    if (files <= this.bound.maxFiles && bytes <= this.bound.maxBytes) return;
    all.sort((a, b) => a.file.changedAt - b.file.changedAt);
    const drop = new Set<FileChange>();
    for (const { file } of all) {
      if (files <= this.bound.maxFiles && bytes <= this.bound.maxBytes) break;
      drop.add(file);
      files--;
      for (const image of imagesOf(file)) {
        const use = uses.get(image.blob)!;
        if (--use.count === 0) bytes -= use.size;
      }
    }
    for (const session of this.sessions.values()) session.files = session.files.filter((f) => !drop.has(f));
    this.dropped = { files: (this.dropped?.files ?? 0) + drop.size, at: Date.now() };
  }
}

/** The stored blobs an entry refers to. */
function imagesOf(file: FileChange): { blob: string; size: number }[] {
  return [file.before, file.claudeLeft].filter((image): image is { blob: string; size: number } => image !== undefined && 'blob' in image);
}

export function sameImage(a: Image, b: Image): boolean {
  return 'blob' in a ? 'blob' in b && a.blob === b.blob : !('blob' in b);
}
