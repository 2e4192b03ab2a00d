import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { CaptureMoment, ChangeCapture } from '../host/changeCapture';
import { writeWithoutFollowing, assertNoLinkSwappedIn } from '../workspace/noFollowWrite';
import { looksBinary } from '../workspace/binaryDetection';
import { encodingByBom } from '../workspace/encodings';
import { openRegularFile, readOpenedFile } from '../workspace/readTextIfExists';
import type { BeforeImageStore } from './beforeImageStore';
import { changeHunks, hunkAtLines, hunksEditedSince, keepHunk, undoHunk } from './changeHunks';
import { ChangeLedger, sameImage, type CaptureSource, type FileChange, type Image, type LedgerBound, type LedgerState, type UndoRecord } from './changeLedger';

/** Who a connection is, as the list names it; undefined: not a claude session this window lists. */
export interface TrackedSession {
  /** Stable across a reconnect of the same claude. */
  id: string;
  label: string;
  /** The IDE connection it is on (unique for the window's life, across Restart Server): a new one is a reconnect. */
  connection?: string;
}

export interface ChangeTrackerDeps {
  store: BeforeImageStore;
  /** The session a connection belongs to (the IDE connection of a claude, or its tools route). */
  sessionOf(connectionId: number): TrackedSession | undefined;
  /** The ledger changed: save it (the adapter may batch). */
  save(state: LedgerState): void;
  /** A before-image for a change no call announced: git's committed content, or what the editor last knew (bytes undefined: the file did not exist). */
  fallback?(filePath: string): Promise<{ bytes: Uint8Array | undefined; source: CaptureSource } | undefined>;
  /** Whether the user has unsaved edits to the file in an editor (an undo must not write under them). */
  isDirty?(filePath: string): boolean;
  /** Whether a change no call announced, of a file not listed, is to be left alone unread (a build's output: src/changes/watchFilter.ts). */
  skipsUnannounced?(filePath: string): Promise<boolean>;
  /**
   * Whether a file's content may be kept at all: inside the workspace folders once links are resolved
   * (src/vscode/changes/claudeChanges.ts), so no file outside (`~/.ssh`, `/proc/<pid>/environ`) reaches the store,
   * whichever path a peer names or a link leads to. Absent: every file.
   */
  mayKeep?(filePath: string): Promise<boolean>;
  state?: LedgerState;
  /** The list's bound, which is also the bound of the store on disk (256 MiB, 5,000 files). */
  bound?: LedgerBound;
  now?: () => number;
  /** How long after a baseline or a tools-route capture its write is expected (10 s). */
  expectWithinMs?: number;
  /** How long after a session's last call a change no call announced is still put on it (2 min). */
  uncertainWithinMs?: number;
  /** How long a file named like a writer's temporary file may live before it counts as a file of its own (1 s). */
  tempFileGraceMs?: number;
}

/** Someone must agree before lines edited after claude's change are overwritten. */
export type Confirm = (question: string) => Promise<boolean>;

/** What an undo replaced, so it can be undone in turn ("Redo Claude's change"). */
interface Undone {
  session: string;
  change: FileChange;
  /** The file as it was just before the undo (undefined: did not exist). */
  replaced: Buffer | undefined;
  mode?: number;
  /** What the undo left in the file (its hash, `absent` for no file): Redo writes only over that. */
  left: string;
}

const REVIEW_OPEN_MS = 60 * 60 * 1000;
const MAX_REDO = 50;

/**
 * Claude's changes, wired: takes the before-images at the moments the tools report (ChangeCapture),
 * attributes the changes the file watcher sees through the ledger, and keeps or undoes them, whole or
 * hunk by hunk, byte for byte. Plain TypeScript: the VS Code side (src/vscode/changes/claudeChanges.ts)
 * supplies the watcher events, the session names, git's fallback and the questions.
 */
export class ChangeTracker implements ChangeCapture {
  readonly ledger: ChangeLedger;
  /** Per path: the work on it in order (captures, changes seen, undos), so none overtakes another. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Per path: the content this tracker wrote itself (an undo), which the watcher then reports. */
  private readonly ownWrites = new Map<string, string>();
  private readonly redoStack: Undone[] = [];
  /**
   * Per path: the content last seen on disk by this tracker (a capture, a change, a keep, an undo). For a
   * change no call announced it is a better "before" than git's: it holds what was kept since, and the
   * user's uncommitted work. Memory only: after a reload git's content is the fallback again.
   */
  private readonly lastKnown = new Map<string, Image>();
  private readonly listeners = new Set<() => void>();
  private readonly rewriteListeners = new Set<(session: string, change: FileChange) => void>();
  private readonly reconnectListeners = new Set<(session: TrackedSession) => void>();
  /** Per session: the connection it was last seen on. */
  private readonly connectionOf = new Map<string, string>();
  /** Sessions of the saved list (before a reload): seen again on any connection, they reconnected. */
  private readonly saved: Set<string>;
  private readonly now: () => number;
  /** The blobs each running piece of work has stored (not referenced yet: never collected under it). */
  private readonly stored = new AsyncLocalStorage<Set<string>>();
  private readonly running = new Set<Set<string>>();
  private collecting: Promise<void> = Promise.resolve();
  /** Bumped by every change of the list: a piece of work that changed it collects what it no longer needs. */
  private version = 0;
  private readonly droppedAtStart: number;
  private toldDropped = false;
  private readonly dropListeners = new Set<() => void>();

  constructor(private readonly deps: ChangeTrackerDeps) {
    this.now = deps.now ?? Date.now;
    this.ledger = new ChangeLedger(deps.state, deps.bound, deps.uncertainWithinMs ?? 120_000);
    this.saved = new Set(this.ledger.list().map((s) => s.id));
    this.droppedAtStart = this.ledger.droppedNote()?.files ?? 0;
  }

  /**
   * Changes were dropped from the list, or contents last seen forgotten, to keep the store within its
   * bound on disk: the user is to be told (once per window; the status bar's tooltip keeps the count).
   */
  onDidDropOldest(listener: () => void): { dispose(): void } {
    this.dropListeners.add(listener);
    return { dispose: () => this.dropListeners.delete(listener) };
  }

  /** A session reconnected after it had called, so its edits are no longer announced (once per session). */
  onDidLoseAnnouncements(listener: (session: TrackedSession) => void): { dispose(): void } {
    this.reconnectListeners.add(listener);
    return { dispose: () => this.reconnectListeners.delete(listener) };
  }

  /** A claude session is connected (now, or still): names it, and notes a reconnect. */
  sessionConnected(session: TrackedSession): void {
    this.relabel(session);
    if (this.ledger.list().some((s) => s.id === session.id)) this.noteConnection(session);
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** A change was written over the user's undo of the file (flagged `rewroteUndo`): the user must be told at once. */
  onDidRewriteUndo(listener: (session: string, change: FileChange) => void): { dispose(): void } {
    this.rewriteListeners.add(listener);
    return { dispose: () => this.rewriteListeners.delete(listener) };
  }

  noteCall(connectionId: number): void {
    const session = this.session(connectionId);
    if (session) this.ledger.noteCall(session.id, this.now());
  }

  beforeWrite(connectionId: number, filePath: string, moment: CaptureMoment, known?: { bytes: Uint8Array | undefined }): Promise<void> {
    const session = this.session(connectionId);
    if (!session) return Promise.resolve();
    const at = this.now();
    const until = at + (moment === 'openDiff' ? REVIEW_OPEN_MS : (this.deps.expectWithinMs ?? 10_000));
    const read = this.mayKeep(filePath).then((keep): Promise<{ bytes: Uint8Array | undefined; mode?: number }> => {
      if (!keep) throw new Error(`${filePath} is outside the workspace: not kept`);
      return known ? Promise.resolve({ bytes: known.bytes }) : readFileIfExists(filePath);
    });
    const answered = read.then(
      () => undefined,
      () => undefined,
    );
    // The caller waits for the read only. Hashing and storing the blob (milliseconds for a large file,
    // on this thread) start on the next turn, after the caller's answer is on its way, and before any
    // change of the file is looked at (same queue).
    // A failure here (the store full, the file gone) leaves no expectation: the watcher then lists the
    // change as not attributed with certainty, which is the truth.
    void this.enqueue(filePath, async () => {
      await answered;
      await new Promise((resolve) => setImmediate(resolve));
      const { bytes, mode } = await read;
      const before = await this.imageOf(bytes, mode ?? (bytes ? await modeOf(filePath) : undefined));
      this.remember(filePath, before);
      this.ledger.expectWrite(session.id, filePath, before, moment, at, until);
    }).catch(() => undefined);
    return answered;
  }

  writeCancelled(connectionId: number, filePath: string): void {
    const session = this.session(connectionId);
    if (session) void this.enqueue(filePath, async () => this.ledger.cancelExpected(session.id, filePath)).catch(() => undefined);
  }

  /**
   * The watcher saw `filePath` change (created, changed or deleted). `byEditor`: VS Code saved it (the
   * user's own save), which is listed only when a call announced it (the tools route saves through the editor).
   */
  fileChanged(filePath: string, options: { byEditor?: boolean } = {}): Promise<FileChange | undefined> {
    const at = this.now();
    return this.enqueue(filePath, async () => {
      // A writer's temporary file is renamed over its target within milliseconds: one still there after
      // the grace period is a file of its own, and a name must not be a way to hide a change (issue 31).
      if (isWritersTempFile(filePath)) {
        await new Promise((resolve) => setTimeout(resolve, this.deps.tempFileGraceMs ?? 1_000));
        if (
          !(await fs.lstat(filePath).then(
            () => true,
            () => false,
          ))
        )
          return undefined;
      }
      // Asked in the path's queue, so a capture taken just before (its expectation) is seen.
      if (
        this.deps.skipsUnannounced &&
        !this.ledger.isExpected(filePath, at) &&
        !this.ledger.isListed(filePath) &&
        (await this.deps.skipsUnannounced(filePath))
      ) {
        this.ownWrites.delete(filePath);
        return undefined;
      }
      if (!(await this.mayKeep(filePath))) {
        this.lastKnown.delete(filePath);
        return undefined;
      }
      const { bytes, mode } = await readFileIfExists(filePath);
      const own = this.ownWrites.get(filePath);
      if (own !== undefined) {
        this.ownWrites.delete(filePath);
        if (own === hashOf(bytes)) return undefined;
      }
      const known = this.lastKnown.get(filePath);
      const now = await this.imageOf(bytes, mode);
      this.remember(filePath, now);
      if (options.byEditor && !this.ledger.isExpected(filePath, at)) {
        if (this.takenBackInEditor(filePath, now) || this.undoneInEditor(filePath, now)) this.changed();
        return undefined;
      }
      const fallback = this.ledger.needsFallback(filePath, at)
        ? known
          ? { before: known, source: 'last-known' as const }
          : await this.fallbackImage(filePath)
        : undefined;
      const change = this.ledger.fileChanged(filePath, now, at, () => fallback);
      const rewrote = change && (await this.flagIfOverUndo(change, now, bytes));
      this.changed();
      if (rewrote) for (const listener of [...this.rewriteListeners]) listener(rewrote, change);
      return change;
    });
  }

  /**
   * Takes the file's content now (absent when it does not exist) as the content last seen, so a later
   * change no call announced has a "before" (control files, read when the watching starts).
   */
  noteSeen(filePath: string): Promise<void> {
    return this.enqueue(filePath, async () => {
      if (this.lastKnown.has(filePath)) return;
      const { bytes, mode } = await readFileIfExists(filePath);
      this.lastKnown.set(filePath, await this.imageOf(bytes, mode));
    });
  }

  /** Keeps the file as it is now: no longer listed. */
  keepFile(session: string, filePath: string): Promise<void> {
    return this.enqueue(filePath, async () => {
      this.listed(session, filePath);
      const current = await readFileIfExists(filePath);
      this.remember(filePath, await this.imageOf(current.bytes, current.mode));
      this.ledger.settled(session, filePath);
      this.ledger.forgetUndo(filePath);
      this.changed();
    });
  }

  /**
   * Restores the before-image byte for byte (removes a file the session created, restores one it
   * deleted). Lines edited after claude are not overwritten unless `confirm` agrees. Returns false when
   * nothing was done (the user said no).
   */
  undoFile(session: string, filePath: string, confirm: Confirm): Promise<boolean> {
    return this.enqueue(filePath, async () => {
      const change = this.listed(session, filePath);
      this.refuseIfDirty(filePath);
      const current = await readFileIfExists(filePath);
      if (change.claudeLeft && !(await this.sameContent(change.claudeLeft, current.bytes))) {
        const question = `${filePath} was changed after Claude's change (by you or another program). Undo Claude's change anyway? Those later changes are lost too (Redo Claude's change brings them back).`;
        if (!(await confirm(question))) return false;
        await this.refuseIfChangedSince(filePath, current.bytes);
      }
      await this.restore(filePath, change.before);
      this.pushRedo({ session, change: { ...change }, replaced: current.bytes, mode: current.mode, left: imageHash(change.before) });
      this.ledger.noteUndo({ path: filePath, left: change.before, undid: await this.imageOf(current.bytes, current.mode), whole: true, at: this.now() });
      this.ledger.settled(session, filePath);
      this.changed();
      return true;
    });
  }

  /**
   * Undoes one hunk: the one covering the current lines `startLine`..`endLine` (1-based, as the editor
   * counts; `endLine` 0 for lines deleted after `startLine`), or hunk number `index`. Returns false when
   * the user declined to overwrite lines edited after claude.
   */
  undoHunk(session: string, filePath: string, at: HunkSelector, confirm: Confirm): Promise<boolean> {
    return this.enqueue(filePath, async () => {
      const change = this.listed(session, filePath);
      this.refuseIfDirty(filePath);
      const { before, current, mode } = await this.texts(change, filePath);
      const hunks = changeHunks(before, current);
      if (!hunks) throw new Error(`${filePath} changed in too many lines to undo one part: undo or keep it whole.`);
      const index = 'index' in at ? at.index : hunkAtLines(hunks, at.startLine, at.endLine);
      if (index === undefined || !hunks[index])
        throw new Error(`No change of Claude's at those lines of ${filePath} (the file changed since): look at it again.`);
      if (change.claudeLeft && 'blob' in change.claudeLeft) {
        const left = latin1(await this.deps.store.get(change.claudeLeft.blob));
        const touched = hunksEditedSince(left, current, hunks);
        if (!touched || touched.has(index)) {
          const question = `Lines of ${filePath} in this change were edited after Claude's change (by you or another program). Undo it anyway? Those edits are lost too (Redo Claude's change brings them back).`;
          if (!(await confirm(question))) return false;
          await this.refuseIfChangedSince(filePath, Buffer.from(current, 'latin1'));
        }
      }
      const next = undoHunk(before, current, index);
      const currentBytes = Buffer.from(current, 'latin1');
      await this.write(filePath, Buffer.from(next, 'latin1'));
      this.pushRedo({ session, change: { ...change }, replaced: currentBytes, mode, left: hashOf(Buffer.from(next, 'latin1')) });
      const left = await this.imageOf(Buffer.from(next, 'latin1'), mode);
      this.noteHunkUndo(filePath, await this.imageOf(currentBytes, mode), left);
      if (next === before) this.ledger.settled(session, filePath);
      else this.ledger.update(session, filePath, { claudeLeft: left });
      this.changed();
      return true;
    });
  }

  /** Keeps one hunk: the before-image takes its current lines, so it is no longer shown. */
  keepHunk(session: string, filePath: string, at: HunkSelector): Promise<void> {
    return this.enqueue(filePath, async () => {
      const change = this.listed(session, filePath);
      const { before, current, mode } = await this.texts(change, filePath);
      const hunks = changeHunks(before, current);
      if (!hunks) throw new Error(`${filePath} changed in too many lines to keep one part: undo or keep it whole.`);
      const index = 'index' in at ? at.index : hunkAtLines(hunks, at.startLine, at.endLine);
      if (index === undefined || !hunks[index])
        throw new Error(`No change of Claude's at those lines of ${filePath} (the file changed since): look at it again.`);
      const kept = keepHunk(before, current, index);
      // Kept after a look: a later write of these lines is no longer one over the user's undo.
      this.ledger.forgetUndo(filePath);
      this.ledger.markRewrite(session, filePath, undefined);
      if (kept === current) this.ledger.settled(session, filePath);
      else
        this.ledger.update(session, filePath, { before: await this.imageOf(Buffer.from(kept, 'latin1'), 'blob' in change.before ? change.before.mode : mode) });
      this.changed();
    });
  }

  /** Whether an undo can be undone. */
  canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  /** Undoes the last undo: the file gets back what it held just before it, and is listed again. */
  async redo(): Promise<string | undefined> {
    const last = this.redoStack.pop();
    if (!last) return undefined;
    const filePath = last.change.path;
    await this.enqueue(filePath, async () => {
      try {
        this.refuseIfDirty(filePath);
        // Only over what the undo left: a later write (yours, another program's) is not overwritten.
        if (hashOf((await readFileIfExists(filePath)).bytes) !== last.left) {
          throw new Error(
            `${filePath} changed after the undo (by you or another program): Redo would overwrite that change, so nothing was done. Undo your later change first, or edit the file by hand.`,
          );
        }
      } catch (error) {
        this.redoStack.push(last);
        throw error;
      }
      if (last.replaced === undefined) await this.remove(filePath);
      else await this.write(filePath, last.replaced, last.mode);
      this.ledger.forgetUndo(filePath);
      this.ledger.relist(last.session, last.change);
      this.changed();
    });
    return filePath;
  }

  /**
   * A change flagged "Claude wrote this again after you undid it": restores byte for byte what the user's
   * undo had left (lines edited after claude's new write are not overwritten unless `confirm` agrees).
   * Undoable in turn by redo(). Returns false when the user said no.
   */
  undoAgain(session: string, filePath: string, confirm: Confirm): Promise<boolean> {
    return this.enqueue(filePath, async () => {
      const change = this.listed(session, filePath);
      const flag = change.rewroteUndo;
      if (!flag) throw new Error(`${filePath} was not written again after an undo: use Undo.`);
      this.refuseIfDirty(filePath);
      const current = await readFileIfExists(filePath);
      if (change.claudeLeft && !(await this.sameContent(change.claudeLeft, current.bytes))) {
        const question = `${filePath} was changed after Claude wrote it again (by you or another program). Undo again anyway? Those later changes are lost too (Redo Claude's change brings them back).`;
        if (!(await confirm(question))) return false;
        await this.refuseIfChangedSince(filePath, current.bytes);
      }
      await this.restore(filePath, flag.left);
      this.pushRedo({ session, change: { ...change }, replaced: current.bytes, mode: current.mode, left: imageHash(flag.left) });
      const whole = this.ledger.undoOf(filePath)?.whole ?? true;
      this.ledger.noteUndo({ path: filePath, left: flag.left, undid: await this.imageOf(current.bytes, current.mode), whole, at: this.now() });
      if (sameImage(change.before, flag.left)) this.ledger.settled(session, filePath);
      else {
        this.ledger.update(session, filePath, { claudeLeft: flag.left });
        this.ledger.markRewrite(session, filePath, undefined);
      }
      this.changed();
      return true;
    });
  }

  /** The bytes of an image (empty for "no file"). */
  async bytesOf(image: Image): Promise<Buffer> {
    return 'blob' in image ? this.deps.store.get(image.blob) : Buffer.alloc(0);
  }

  /** Sessions with something listed, and the files awaiting a look. */
  list(): ReturnType<ChangeLedger['list']> {
    return this.ledger.list();
  }

  /** Waits until every queued capture and change was handled (tests, and before saving on shutdown). */
  async settled(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()].map((p) => p.catch(() => undefined)));
  }

  /** Deletes blobs no entry needs any more. */
  sweep(): Promise<void> {
    return this.deps.store.sweep(this.ledger.neededBlobs());
  }

  /** A session's name now (its terminal was found after it connected). */
  relabel(session: TrackedSession): void {
    if (this.ledger.relabel(session.id, session.label)) this.changed();
  }

  sessionSeen(session: TrackedSession): void {
    this.ledger.sessionStarted(session.id, session.label, this.now());
  }

  /** The content last seen on disk of a file, kept newest last (the oldest are forgotten first when over the bound). */
  private remember(filePath: string, image: Image): void {
    this.lastKnown.delete(filePath);
    this.lastKnown.set(filePath, image);
  }

  private mayKeep(filePath: string): Promise<boolean> {
    return this.deps.mayKeep ? this.deps.mayKeep(filePath).catch(() => false) : Promise.resolve(true);
  }

  private session(connectionId: number): TrackedSession | undefined {
    const session = this.deps.sessionOf(connectionId);
    if (!session) return undefined;
    if (!this.ledger.list().some((s) => s.id === session.id && s.label === session.label)) this.sessionSeen(session);
    this.noteConnection(session);
    return session;
  }

  /** The same session on another connection than before (or than before a reload) reconnected. */
  private noteConnection(session: TrackedSession): void {
    if (session.connection === undefined) return;
    const before = this.connectionOf.get(session.id);
    if (before === session.connection) return;
    this.connectionOf.set(session.id, session.connection);
    if (before === undefined && !this.saved.has(session.id)) return;
    this.sessionSeen(session); // its last call is now: its unannounced edits come next
    if (!this.ledger.reconnected(session.id, this.now())) return;
    this.changed();
    for (const listener of [...this.reconnectListeners]) listener(session);
  }

  private listed(session: string, filePath: string): FileChange {
    const change = this.ledger
      .list()
      .find((s) => s.id === session)
      ?.files.find((f) => f.path === filePath);
    if (!change) throw new Error(`${filePath} is not in the list of Claude's changes any more.`);
    return change;
  }

  /**
   * After a question: the file must still hold what was read before it (another program, or the user in
   * an editor, may have written it meanwhile), else nothing is written, so that write is not lost and
   * what the question promised (Redo brings back what the undo replaced) holds.
   */
  private async refuseIfChangedSince(filePath: string, read: Buffer | undefined): Promise<void> {
    this.refuseIfDirty(filePath);
    if (hashOf((await readFileIfExists(filePath)).bytes) !== hashOf(read)) {
      throw new Error(
        `${filePath} changed while you were asked (by you or another program): nothing was undone, so that change is kept. Look at the file again, then undo.`,
      );
    }
  }

  private refuseIfDirty(filePath: string): void {
    if (this.deps.isDirty?.(filePath))
      throw new Error(`${filePath} has unsaved changes in the editor: save or revert them first, so undoing Claude's change does not lose them.`);
  }

  /** Both sides as latin1 text: one character per byte, so lines split as the bytes do and join back exactly. */
  private async texts(change: FileChange, filePath: string): Promise<{ before: string; current: string; mode?: number }> {
    const current = await readFileIfExists(filePath);
    const before = await this.bytesOf(change.before);
    for (const bytes of [before, current.bytes ?? Buffer.alloc(0)]) {
      if (!looksLikeLineText(bytes)) throw new Error(`${filePath} is not a text file with lines: keep or undo it whole.`);
    }
    return { before: latin1(before), current: latin1(current.bytes ?? Buffer.alloc(0)), mode: current.mode };
  }

  private async restore(filePath: string, image: Image): Promise<void> {
    if (!('blob' in image)) await this.remove(filePath);
    else await this.write(filePath, await this.deps.store.get(image.blob), image.mode);
  }

  private async write(filePath: string, bytes: Buffer, mode?: number): Promise<void> {
    this.ownWrites.set(filePath, hashOf(bytes));
    this.remember(filePath, await this.imageOf(bytes, mode));
    const how = await writeWithoutFollowing(filePath, bytes);
    if (how === 'created' && mode !== undefined) await fs.chmod(filePath, mode & 0o7777);
  }

  private async remove(filePath: string): Promise<void> {
    if (!(await assertNoLinkSwappedIn(filePath))) return;
    this.ownWrites.set(filePath, hashOf(undefined));
    this.remember(filePath, { absent: true });
    await fs.rm(filePath);
  }

  /**
   * The user's save holds exactly what an undo replaced: the editor's Undo (Ctrl+Z) took that undo back
   * (VS Code puts its reload of a file changed on disk on the editor's undo stack). Same as redo(): the
   * change is listed again.
   */
  private takenBackInEditor(filePath: string, now: Image): boolean {
    if (!('blob' in now)) return false;
    let at = this.redoStack.length - 1;
    while (
      at >= 0 &&
      !(this.redoStack[at].change.path === filePath && this.redoStack[at].replaced !== undefined && hashOf(this.redoStack[at].replaced) === now.blob)
    )
      at--;
    if (at < 0) return false;
    const [taken] = this.redoStack.splice(at, 1);
    for (let i = this.redoStack.length - 1; i >= at; i--) if (this.redoStack[i].change.path === filePath) this.redoStack.splice(i, 1);
    this.ledger.forgetUndo(filePath);
    this.ledger.relist(taken.session, taken.change);
    return true;
  }

  /** The user's save gives a listed file its before-image back (the editor's Redo of an undo, or by hand): an undo like any other. */
  private undoneInEditor(filePath: string, now: Image): boolean {
    for (const session of this.ledger.list()) {
      const change = session.files.find((f) => f.path === filePath);
      if (!change || !sameImage(change.before, now)) continue;
      this.ledger.noteUndo({ path: filePath, left: now, undid: change.claudeLeft ?? now, whole: true, at: this.now() });
      this.ledger.settled(session.id, filePath);
      return true;
    }
    return false;
  }

  /** Successive hunk undos of the same file add up: the lines restored are those differing from what claude had left before the first. */
  private noteHunkUndo(filePath: string, undid: Image, left: Image): void {
    const earlier = this.ledger.undoOf(filePath);
    const continues = earlier !== undefined && sameImage(earlier.left, undid);
    this.ledger.noteUndo({ path: filePath, left, undid: continues ? earlier.undid : undid, whole: continues ? earlier.whole : false, at: this.now() });
  }

  /**
   * Flags `change` when it was written over the user's undo of the file: any change after a whole-file
   * undo, or one touching the lines a hunk undo restored. Returns the session to warn (once per undo).
   */
  private async flagIfOverUndo(change: FileChange, now: Image, bytes: Buffer | undefined): Promise<string | undefined> {
    const undo = this.ledger.undoOf(change.path);
    if (!undo || sameImage(undo.left, now) || change.rewroteUndo?.undoneAt === undo.at) return undefined;
    const session = this.ledger.sessionOf(change);
    if (!session || !(await this.touchesUndo(undo, bytes))) return undefined;
    this.ledger.markRewrite(session, change.path, { left: undo.left, undoneAt: undo.at });
    return session;
  }

  /** Whether content `bytes` changes lines the undo restored (any line, after a whole-file undo or for a file not diffed by lines). */
  private async touchesUndo(undo: UndoRecord, bytes: Buffer | undefined): Promise<boolean> {
    if (undo.whole || !('blob' in undo.left) || !('blob' in undo.undid) || bytes === undefined) return true;
    const [left, undid] = await Promise.all([this.deps.store.get(undo.left.blob), this.deps.store.get(undo.undid.blob)]);
    if (![left, undid, bytes].every(looksLikeLineText)) return true;
    const restored = changeHunks(latin1(undid), latin1(left));
    const written = changeHunks(latin1(left), latin1(bytes));
    if (!restored || !written) return true;
    // Both in the lines of what the undo left: the restored ones, and those the new write replaced.
    return restored.some((r) => written.some((w) => overlaps(r.current.start, r.current.lines.length, w.before.start, w.before.lines.length)));
  }

  private async imageOf(bytes: Uint8Array | undefined, mode?: number): Promise<Image> {
    if (bytes === undefined) return { absent: true };
    const puts = this.stored.getStore();
    const blob = await this.deps.store.put(bytes, (id) => puts?.add(id));
    return mode === undefined ? { blob, size: bytes.byteLength } : { blob, size: bytes.byteLength, mode };
  }

  private async sameContent(image: Image, bytes: Buffer | undefined): Promise<boolean> {
    if (!('blob' in image)) return bytes === undefined;
    return bytes !== undefined && hashOf(bytes) === image.blob;
  }

  private async fallbackImage(filePath: string): Promise<{ before: Image; source: CaptureSource } | undefined> {
    const found = await this.deps.fallback?.(filePath).catch(() => undefined);
    return found && { before: await this.imageOf(found.bytes), source: found.source };
  }

  private pushRedo(undone: Undone): void {
    this.redoStack.push(undone);
    if (this.redoStack.length > MAX_REDO) this.redoStack.shift();
  }

  /**
   * Keeps the store on disk within the bound after every piece of work that stored a blob or changed the
   * list: deletes the blobs nothing refers to any more (a file rewritten 40 times leaves its first and last
   * contents, not 41), then, while still over, forgets the oldest contents last seen that no entry needs
   * (they only serve as "before" of a later unannounced change; git's content does then). The list itself
   * stays within the same bound (ChangeLedger). Serialised; never touches a blob a running piece of work stored.
   */
  private collect(): Promise<void> {
    this.collecting = this.collecting.then(async () => {
      const inUse = this.blobsInUse();
      const referenced = new Map<string, number>();
      for (const image of this.lastKnown.values()) if ('blob' in image) referenced.set(image.blob, (referenced.get(image.blob) ?? 0) + 1);
      const sizes = new Map<string, number>();
      for (const blob of [...inUse, ...referenced.keys()]) sizes.set(blob, this.deps.store.sizeOf(blob) ?? 0);
      let bytes = [...sizes.values()].reduce((sum, size) => sum + size, 0);
      const max = this.ledger.limits().maxBytes;
      let forgot = false;
      for (const [filePath, image] of this.lastKnown) {
        if (bytes <= max) break;
        if (!('blob' in image) || inUse.has(image.blob)) continue;
        this.lastKnown.delete(filePath);
        forgot = true;
        const left = referenced.get(image.blob)! - 1;
        referenced.set(image.blob, left);
        if (left === 0) bytes -= sizes.get(image.blob)!;
      }
      await this.deps.store.collect(() => {
        // Asked again when no put is under way: what a running piece of work stored meanwhile stays.
        const now = this.blobsInUse();
        for (const image of this.lastKnown.values()) if ('blob' in image) now.add(image.blob);
        return now;
      });
      if (forgot || (this.ledger.droppedNote()?.files ?? 0) > this.droppedAtStart) this.tellDropped();
    });
    return this.collecting.catch(() => undefined);
  }

  /** The blobs the list, the running pieces of work and the undos Redo can take back refer to. */
  private blobsInUse(): Set<string> {
    const inUse = this.ledger.neededBlobs();
    for (const puts of this.running) for (const blob of puts) inUse.add(blob);
    for (const undone of this.redoStack)
      for (const image of [undone.change.before, undone.change.claudeLeft]) if (image && 'blob' in image) inUse.add(image.blob);
    return inUse;
  }

  private tellDropped(): void {
    if (this.toldDropped) return;
    this.toldDropped = true;
    for (const listener of [...this.dropListeners]) listener();
  }

  private changed(): void {
    this.version++;
    this.deps.save(this.ledger.toJSON());
    for (const listener of [...this.listeners]) listener();
  }

  private enqueue<T>(filePath: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(filePath) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => {
        const puts = new Set<string>();
        const version = this.version;
        this.running.add(puts);
        return this.stored.run(puts, work).finally(async () => {
          this.running.delete(puts);
          if (puts.size > 0 || this.version !== version) await this.collect();
        });
      });
    const tail = next.catch(() => undefined);
    this.queues.set(filePath, tail);
    void tail.then(() => {
      if (this.queues.get(filePath) === tail) this.queues.delete(filePath);
    });
    return next;
  }
}

/**
 * The temporary files claude writes and renames over its target (`<name>.tmp.<pid>.<12 hex digits or a
 * ms timestamp>`, docs/changes.md) and `sed -i`'s (`sedXXXXXX`): never a change of their own.
 */
export function isWritersTempFile(filePath: string): boolean {
  const name = filePath.slice(Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\')) + 1);
  return /\.tmp\.\d+\.[0-9a-f]+$/.test(name) || /^sed[A-Za-z0-9]{6}$/.test(name);
}

export type HunkSelector = { index: number } | { startLine: number; endLine: number };

/** An image's content hash as {@link hashOf} gives it (a blob is named by its SHA-256). */
function imageHash(image: Image): string {
  return 'blob' in image ? image.blob : hashOf(undefined);
}

function hashOf(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? 'absent' : createHash('sha256').update(bytes).digest('hex');
}

/** Line ranges [start, start+count): overlapping, or (an insertion or deletion, count 0) at or next to the other. */
function overlaps(aStart: number, aCount: number, bStart: number, bCount: number): boolean {
  const aEnd = aStart + aCount;
  const bEnd = bStart + bCount;
  return aCount && bCount ? aStart < bEnd && bStart < aEnd : aStart <= bEnd && bStart <= aEnd;
}

function latin1(bytes: Buffer): string {
  return bytes.toString('latin1');
}

/** Text whose lines end in `\n` byte for byte: not binary (the project's one sniff) and not UTF-16 (its `\n` is two bytes). */
function looksLikeLineText(bytes: Buffer): boolean {
  const bom = encodingByBom(bytes);
  return bom !== 'utf16le' && bom !== 'utf16be' && !looksBinary(bytes);
}

/**
 * The file's bytes and mode; undefined bytes when it does not exist. Opened and read as the tools read
 * files (a pipe, a device or a procfs file is refused, never read; 32 MiB at most), so a capture can
 * neither block nor balloon.
 */
export async function readFileIfExists(filePath: string): Promise<{ bytes: Buffer | undefined; mode?: number }> {
  let handle: FileHandle;
  try {
    handle = await openRegularFile(filePath);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return { bytes: undefined };
    throw error;
  }
  let bytes: Buffer;
  let mode: number;
  try {
    mode = (await handle.stat()).mode & 0o7777;
    // One read of the size checked on open (readToEnd's chunked reads tripled the p99 of a 1 MB
    // capture, bench/changeCapture.bench.ts); a file that grew past the cap meanwhile is refused.
    bytes = await readOpenedFile(handle, filePath);
  } catch (error) {
    await handle.close();
    throw error;
  }
  // Closed behind the caller: the bytes are what it waits for.
  void handle.close().catch(() => undefined);
  return { bytes, mode };
}

async function modeOf(filePath: string): Promise<number | undefined> {
  return fs.lstat(filePath).then(
    (stat) => stat.mode & 0o7777,
    () => undefined,
  );
}
