import type { Disposable, IdeSession, IdeSessionChanges, IdeSessionSource } from '../server/sessionSource';
import { processAncestry, type ParentPidReader, type TerminalCandidate } from './processAncestry';

/** The window's terminals as this module needs them (VS Code: `window.terminals`, `activeTerminal`). */
export interface TerminalDirectory<T> {
  /** Every terminal with its shell pid (undefined while it is not known). */
  candidates(): Promise<TerminalCandidate<T>[]>;
  /** The terminal in front of the terminal panel (the one the user typed in last). */
  active(): T | undefined;
  onDidChangeActive(listener: () => void): Disposable;
  /** A terminal opened or closed. */
  onDidOpenOrClose(listener: () => void): Disposable;
}

/** One connected session and the terminal it runs in (none: outside VS Code, under tmux/ssh, not found yet). */
export interface SessionPlace<T> {
  session: IdeSession;
  terminal?: T;
  terminalName?: string;
}

/**
 * Which integrated terminal each connected `claude` runs in, found from process ancestry (the
 * terminal's shell is an ancestor of the CLI's pid; only a pid the server verified counts), and so which sessions the user means right now:
 * the ones in the terminal in front, else all of them. Selections and at-mentions go to `targets()`.
 * Plain TypeScript: the VS Code side only supplies the {@link TerminalDirectory}.
 */
export class SessionTerminals<T> implements IdeSessionSource, Disposable {
  private readonly places = new Map<number, { terminal: T; name: string }>();
  private readonly listeners = new Set<() => void>();
  private readonly subscriptions: Disposable[];
  private resolving: Promise<void> = Promise.resolve();

  constructor(
    private readonly base: IdeSessionSource & IdeSessionChanges,
    private readonly directory: TerminalDirectory<T>,
    private readonly readParent: ParentPidReader,
  ) {
    this.subscriptions = [
      base.onDidConnect(() => void this.refresh()),
      // Only a verified pid places a session in a terminal, and the check ends after the announcement.
      ...(base.onDidCheckPid ? [base.onDidCheckPid(() => void this.refresh())] : []),
      base.onDidChange(() => this.prune()),
      directory.onDidChangeActive(() => this.fire()),
      directory.onDidOpenOrClose(() => void this.refresh()),
    ];
    void this.refresh();
  }

  sessions(): IdeSession[] {
    return this.base.sessions();
  }

  onDidConnect(listener: (session: IdeSession) => void): Disposable {
    return this.base.onDidConnect(listener);
  }

  /** The sessions running in the terminal in front; when none does (or it is unknown), all sessions. */
  targets(): IdeSession[] {
    const all = this.base.sessions();
    const active = this.directory.active();
    const inFront = active === undefined ? [] : all.filter((s) => this.places.get(s.id)?.terminal === active);
    return inFront.length > 0 ? inFront : all;
  }

  onDidChangeTargets(listener: () => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Every connected session with its terminal, in connection order. */
  sessionPlaces(): SessionPlace<T>[] {
    return this.base.sessions().map((session) => {
      const place = this.places.get(session.id);
      return { session, terminal: place?.terminal, terminalName: place?.name };
    });
  }

  terminalOf(sessionId: number): T | undefined {
    return this.places.get(sessionId)?.terminal;
  }

  sessionsIn(terminal: T): IdeSession[] {
    return this.base.sessions().filter((s) => this.places.get(s.id)?.terminal === terminal);
  }

  /** Resolves once the sessions known now have been matched to terminals (for tests and the launch command). */
  settled(): Promise<void> {
    return this.resolving;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.listeners.clear();
    this.places.clear();
  }

  /** Matches every session to a terminal again: a terminal that opens later, or closes, changes the answer. */
  private refresh(): Promise<void> {
    this.resolving = this.resolving.then(() => this.match()).catch(() => undefined);
    return this.resolving;
  }

  private async match(): Promise<void> {
    const sessions = this.base.sessions();
    const candidates = (await this.directory.candidates()).filter((c) => c.pid !== undefined);
    let changed = false;
    for (const session of sessions) {
      const found = session.cliPid === undefined ? undefined : await terminalOfProcess(session.cliPid, candidates, this.readParent);
      const before = this.places.get(session.id);
      if (found && (before?.terminal !== found.terminal || before.name !== found.name)) {
        this.places.set(session.id, { terminal: found.terminal, name: found.name });
        changed = true;
      } else if (!found && before) {
        this.places.delete(session.id);
        changed = true;
      }
    }
    if (this.prune(false) || changed) this.fire();
  }

  /** Forgets sessions that are gone; says whether anything changed (and tells listeners when asked). */
  private prune(notify = true): boolean {
    const live = new Set(this.base.sessions().map((s) => s.id));
    let changed = false;
    for (const id of this.places.keys()) {
      if (!live.has(id)) {
        this.places.delete(id);
        changed = true;
      }
    }
    if (notify) this.fire();
    return changed;
  }

  private fire(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * The terminal whose shell is the process `pid` or one of its ancestors (the nearest wins); undefined
 * when none is (claude under tmux or ssh, or started outside VS Code). Unlike `findClaudeTerminal` it
 * never guesses by name: routing a selection to the wrong claude is worse than sending it to all.
 */
async function terminalOfProcess<T>(
  pid: number,
  candidates: readonly TerminalCandidate<T>[],
  readParent: ParentPidReader,
): Promise<TerminalCandidate<T> | undefined> {
  if (!candidates.some((c) => c.pid !== undefined)) return undefined;
  for (const ancestor of await processAncestry(pid, readParent)) {
    const match = candidates.find((c) => c.pid === ancestor);
    if (match) return match;
  }
  return undefined;
}
