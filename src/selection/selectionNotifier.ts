import type { Disposable, IdeSession, IdeSessionSource } from '../server/sessionSource';
import type { Logger } from '../util/logger';

/** 0-based, as VS Code and the CLI both count (docs/protocol.md#selection_changed). */
export type Position = { line: number; character: number };
export type Range = { start: Position; end: Position };

/** What the editor shows right now: the active real file and its primary selection. */
export type EditorState = { filePath: string; text: string; selection: Range };

/** The `selection_changed` params. No `filePath` means "no file open" (see {@link SelectionNotifier.clear}). */
export type SelectionChangedParams = { selection: Range; text: string; filePath?: string };

/** Injectable timers, so tests drive the debounce without waiting. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const SELECTION_CHANGED = 'selection_changed';
const SELECTION_DEBOUNCE_MS = 150;
/**
 * The CLI keeps only the first 2,000 characters of a selection for the model and appends
 * "... (truncated)" itself (2.1.330, `selected_lines_in_ide`); its pill counts lines from the range,
 * not from the text. 10,000 stays above that cut (so the CLI still marks it) and bounds a select-all
 * on a huge file to ~10 kB per message instead of megabytes.
 */
export const MAX_SELECTION_TEXT_CHARS = 10_000;
export const TRUNCATION_MARKER = '\n... (truncated)';
/**
 * The CLI registers its `selection_changed` handler in a UI effect some time after `ide_connected`
 * (measured 50–300 ms on 2.1.330); a notification that arrives earlier is dropped, and the first
 * registration also resets the CLI's selection. So a new session gets the state at once (for CLIs
 * that are ready) and again at these delays. Resending the same selection is harmless.
 */
const WELCOME_RESEND_MS: readonly number[] = [300, 1000, 3000];

const EMPTY_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export interface SelectionNotifierOptions {
  sessions: IdeSessionSource;
  log: Logger;
  debounceMs?: number;
  maxTextChars?: number;
  welcomeResendMs?: readonly number[];
  timers?: Timers;
}

interface Snapshot {
  params: SelectionChangedParams;
  /** Identity for de-duplication: equal keys mean the CLI would show and attach the same thing. */
  key: string;
}

/**
 * Decides what `selection_changed` to send and when: trailing-edge debounce of editor events,
 * de-duplication per session against what that session was last sent, and the current state for
 * every session that connects. Holds no VS Code types; the adapter feeds it snapshots.
 */
export class SelectionNotifier implements Disposable {
  private latest?: Snapshot;
  /** Per session id: the key last sent to it. */
  private readonly sentTo = new Map<number, string>();
  private pending?: unknown;
  private readonly welcomeTimers = new Set<unknown>();
  private readonly subscription: Disposable;
  private readonly targetsSubscription?: Disposable;
  private readonly timers: Timers;
  private disposed = false;

  constructor(private readonly options: SelectionNotifierOptions) {
    this.timers = options.timers ?? realTimers;
    this.subscription = options.sessions.onDidConnect((session) => this.welcome(session));
    // Another terminal came to the front: its claude gets the current selection if it lacks it.
    this.targetsSubscription = options.sessions.onDidChangeTargets?.(() => this.flush());
  }

  /** The state a newly connected session would get, if any editor state is known. */
  get current(): SelectionChangedParams | undefined {
    return this.latest?.params;
  }

  /** An editor event: remember the state, send it once events stop for `debounceMs`. */
  update(state: EditorState): void {
    this.set(toSelectionParams(state, this.options.maxTextChars ?? MAX_SELECTION_TEXT_CHARS));
  }

  /**
   * No real file is open any more. The CLI ignores a `null` selection, so "nothing" is an empty
   * range with empty text and no `filePath`: its pill disappears and nothing is attached to prompts.
   */
  clear(): void {
    if (this.latest && this.latest.params.filePath === undefined) return;
    this.set({ selection: EMPTY_RANGE, text: '' });
  }

  /** Sends the latest state now to every session that has not had it (used by tests and shutdown). */
  flush(): void {
    this.cancelPending();
    const latest = this.latest;
    if (!latest || this.disposed) return;
    const sessions = this.options.sessions.sessions();
    const live = new Set(sessions.map((s) => s.id));
    for (const id of this.sentTo.keys()) if (!live.has(id)) this.sentTo.delete(id);
    // Only the session(s) the user means (the terminal in front, else all); the others catch up when theirs is.
    for (const session of this.options.sessions.targets?.() ?? sessions) {
      if (this.sentTo.get(session.id) !== latest.key) this.send(session, latest);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.cancelPending();
    for (const handle of this.welcomeTimers) this.timers.clearTimeout(handle);
    this.welcomeTimers.clear();
    this.subscription.dispose();
    this.targetsSubscription?.dispose();
  }

  private set(params: SelectionChangedParams): void {
    if (this.disposed) return;
    this.latest = { params, key: JSON.stringify([params.filePath ?? null, params.selection, params.text]) };
    this.cancelPending();
    this.pending = this.timers.setTimeout(() => {
      this.pending = undefined;
      this.flush();
    }, this.options.debounceMs ?? SELECTION_DEBOUNCE_MS);
  }

  /** A session that just connected knows nothing: it gets the current state whatever it was sent before. */
  private welcome(session: IdeSession): void {
    if (this.disposed) return;
    this.sentTo.delete(session.id);
    if (this.latest) this.send(session, this.latest);
    for (const delay of this.options.welcomeResendMs ?? WELCOME_RESEND_MS) {
      const handle = this.timers.setTimeout(() => {
        this.welcomeTimers.delete(handle);
        const stillThere = this.options.sessions.sessions().find((s) => s.id === session.id);
        if (stillThere && this.latest && !this.disposed) this.send(stillThere, this.latest);
      }, delay);
      this.welcomeTimers.add(handle);
    }
  }

  private send(session: IdeSession, snapshot: Snapshot): void {
    this.sentTo.set(session.id, snapshot.key);
    const { params } = snapshot;
    this.options.log.debug(`selection_changed → #${session.id}: ${describe(params)}`);
    session.notify(SELECTION_CHANGED, params).catch((error: Error) => {
      // Forget it so the next flush tries again (the session may be gone; then it is pruned).
      if (this.sentTo.get(session.id) === snapshot.key) this.sentTo.delete(session.id);
      this.options.log.warn(`Could not send selection_changed to #${session.id}: ${error.message}`);
    });
  }

  private cancelPending(): void {
    if (this.pending === undefined) return;
    this.timers.clearTimeout(this.pending);
    this.pending = undefined;
  }
}

/** Snapshot → wire params: copies the range, empties the text of an empty selection, caps its size. */
export function toSelectionParams(state: EditorState, maxTextChars = MAX_SELECTION_TEXT_CHARS): SelectionChangedParams {
  const { start, end } = state.selection;
  const selection: Range = { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } };
  const empty = start.line === end.line && start.character === end.character;
  return { selection, text: empty ? '' : truncateSelectionText(state.text, maxTextChars), filePath: state.filePath };
}

/** Cuts to `max` UTF-16 units (never inside a surrogate pair) and says so, in the CLI's own words. */
export function truncateSelectionText(text: string, max = MAX_SELECTION_TEXT_CHARS): string {
  if (text.length <= max) return text;
  let cut = max;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return text.slice(0, cut) + TRUNCATION_MARKER;
}

function describe(params: SelectionChangedParams): string {
  const { start, end } = params.selection;
  const where = params.filePath ?? '(no file)';
  return `${where} ${start.line}:${start.character}-${end.line}:${end.character} (${params.text.length} chars)`;
}
