import type { IdeSession } from '../server/sessionSource';
import type { AtMentionParams } from './atMention';
import { bracketedPaste } from './promptText';

/** `nativeClaude.handOffTo`: with several claude sessions, the one whose terminal was used last, or ask each time. */
export type HandoffTargetMode = 'lastUsed' | 'ask';

/** A connected session and the integrated terminal it runs in (none: under tmux/ssh, outside VS Code). */
export interface HandoffPlace<T> {
  session: IdeSession;
  terminal?: T;
  terminalName?: string;
}

export type HandoffTarget<T> =
  /** Send it here. */
  | { kind: 'one'; place: HandoffPlace<T> & { terminal: T } }
  /** Several and unclear (or the setting says ask): the user picks one of these. */
  | { kind: 'ask'; places: Array<HandoffPlace<T> & { terminal: T }> }
  /** claude runs, but in no terminal of this window: text cannot be typed into it. */
  | { kind: 'unreachable'; places: HandoffPlace<T>[] }
  /** No claude is connected. */
  | { kind: 'none' };

/**
 * Which claude a hand-off goes to. Only a session whose terminal is known can be typed into. One such
 * session: it. Several: `lastUsed` takes the one whose terminal was in front most recently (when that is
 * known and not a tie), else the user is asked; `ask` always asks.
 */
export function chooseHandoffTarget<T>(
  places: readonly HandoffPlace<T>[],
  lastUsed: (terminal: T) => number | undefined,
  mode: HandoffTargetMode,
): HandoffTarget<T> {
  if (places.length === 0) return { kind: 'none' };
  const reachable = places.filter((p): p is HandoffPlace<T> & { terminal: T } => p.terminal !== undefined);
  if (reachable.length === 0) return { kind: 'unreachable', places: [...places] };
  if (reachable.length === 1) return { kind: 'one', place: reachable[0] };
  if (mode === 'lastUsed') {
    const ranked = reachable
      .map((place) => ({ place, at: lastUsed(place.terminal) }))
      .filter((r) => r.at !== undefined)
      .sort((a, b) => b.at! - a.at!);
    if (ranked.length > 0 && (ranked.length === 1 || ranked[0].at! > ranked[1].at!)) return { kind: 'one', place: ranked[0].place };
  }
  return { kind: 'ask', places: reachable };
}

/** When each terminal was last in front (the one the user typed in last), by the clock passed in. */
export class TerminalRecency<T> {
  private readonly at = new Map<T, number>();
  private tick = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The terminal came to the front (or is in front now). */
  touch(terminal: T | undefined): void {
    // A counter breaks ties between two touches in the same millisecond.
    if (terminal !== undefined) this.at.set(terminal, this.now() * 1000 + (this.tick++ % 1000));
  }

  forget(terminal: T): void {
    this.at.delete(terminal);
  }

  lastUsed = (terminal: T): number | undefined => this.at.get(terminal);
}

/** What one hand-off puts into claude's prompt: an @-reference (`at_mentioned`) and the text after it. */
export interface Handoff {
  mention?: AtMentionParams;
  text: string;
}

export interface HandoffIo<T> {
  /** Types bytes into the terminal without pressing Enter (VS Code: `terminal.sendText(bytes, false)`). */
  type(terminal: T, bytes: string): void;
  sleep(ms: number): Promise<void>;
}

/**
 * claude inserts the `at_mentioned` reference when its handler runs; the paste arrives through the
 * terminal, a different channel. Waiting this long keeps the order the user would have typed:
 * the reference first, then the text.
 */
export const MENTION_BEFORE_TEXT_MS = 300;

/**
 * Puts the hand-off into the session's prompt: the @-reference, then the text as one bracketed paste,
 * so its line breaks stay line breaks and nothing is submitted: the user reads it, adds words, presses Enter.
 */
export async function deliverHandoff<T>(place: { session: IdeSession; terminal: T }, handoff: Handoff, io: HandoffIo<T>): Promise<void> {
  if (handoff.mention) {
    await place.session.notify('at_mentioned', handoff.mention);
    await io.sleep(MENTION_BEFORE_TEXT_MS);
  }
  io.type(place.terminal, bracketedPaste(handoff.text));
}

/**
 * Why a file may not be handed to claude (the sharing rules, src/selection/sharingPolicy.ts), as the
 * message the user is shown; undefined when it may. Every hand-off entry point asks this first.
 */
export function handoffRefusal(policy: { isExcluded(filePath: string): boolean }, filePath: string, displayPath: string): string | undefined {
  if (!policy.isExcluded(filePath)) return undefined;
  return `Not sent to Claude: ${displayPath} is excluded by the setting nativeClaude.excludeFromSharing.`;
}
