import type { Disposable, IdeSession, IdeSessionSource } from '../server/sessionSource';
import { realTimers, type Range, type Timers } from './selectionNotifier';
import type { Logger } from '../util/logger';

/** `at_mentioned` params: 0-based lines, both or neither (the CLI drops a lone one). */
export type AtMentionParams = { filePath: string; lineStart?: number; lineEnd?: number };

const AT_MENTIONED = 'at_mentioned';
/**
 * The CLI registers its `at_mentioned` handler in a UI effect after `ide_connected` and drops what
 * arrives earlier (measured: lost at 0 ms, kept from 50–200 ms on, 2.1.330). Unlike a selection, a
 * mention cannot be resent (each one inserts text), so mentions for a new session wait this long.
 */
const MENTION_READY_DELAY_MS = 1500;
/** A mention queued while claude was not running goes stale; nobody wants it inserted an hour later. */
const MENTION_QUEUE_MAX_AGE_MS = 10 * 60_000;
const MENTION_QUEUE_MAX = 20;

/**
 * The mention for a file, or for the lines a range covers. The CLI turns lines a..b into `#L(a+1)-(b+1)`,
 * so the range is read the way the CLI reads a selection (docs/protocol.md#selection_changed): a range that ends at character 0 of a
 * line does not include that line (a full-line selection ends at the start of the next line). An empty
 * range (a bare cursor) means the whole file: no line numbers.
 */
export function buildAtMention(filePath: string, range?: Range): AtMentionParams {
  if (!range) return { filePath };
  let { start, end } = range;
  if (end.line < start.line || (end.line === start.line && end.character < start.character)) [start, end] = [end, start];
  if (start.line === end.line && start.character === end.character) return { filePath };
  const lineEnd = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return { filePath, lineStart: start.line, lineEnd };
}

/** How the CLI will show a mention in its prompt (`@path#L1-3`), for messages and docs. */
export function formatAtMention(mention: AtMentionParams, relativePath = mention.filePath): string {
  if (mention.lineStart === undefined || mention.lineEnd === undefined) return `@${relativePath}`;
  const from = mention.lineStart + 1;
  const to = mention.lineEnd + 1;
  return from === to ? `@${relativePath}#L${from}` : `@${relativePath}#L${from}-${to}`;
}

export type MentionOutcome =
  /** Sent to these sessions. */
  | { kind: 'sent'; sessions: IdeSession[] }
  /** A CLI just connected and is not ready for it yet: it is delivered in a moment. */
  | { kind: 'pending'; sessions: IdeSession[] }
  /** No CLI is connected: kept until one connects (or it is too old). */
  | { kind: 'queued'; queued: number };

export interface MentionDispatcherOptions {
  sessions: IdeSessionSource;
  log: Logger;
  /** A session received mentions that had waited for it (the adapter brings its terminal forward). */
  onDelivered?(session: IdeSession): void;
  readyDelayMs?: number;
  maxAgeMs?: number;
  maxQueued?: number;
  timers?: Timers;
  now?: () => number;
}

/** Sends `at_mentioned` to the connected CLI sessions, or keeps it for the next one that connects. */
export class MentionDispatcher implements Disposable {
  private queue: Array<{ params: AtMentionParams; at: number }> = [];
  /** Per session id: when it is safe to send it a mention. Sessions not listed are ready. */
  private readonly readyAt = new Map<number, number>();
  private readonly handles = new Set<unknown>();
  private readonly subscription: Disposable;
  private readonly timers: Timers;
  private readonly now: () => number;

  constructor(private readonly options: MentionDispatcherOptions) {
    this.timers = options.timers ?? realTimers;
    this.now = options.now ?? Date.now;
    this.subscription = options.sessions.onDidConnect((session) => this.onConnect(session));
  }

  get queued(): number {
    return this.queue.length;
  }

  async mention(mentions: readonly AtMentionParams[]): Promise<MentionOutcome> {
    // The session(s) the user means: the one whose terminal is in front, else all.
    const sessions = this.options.sessions.targets?.() ?? this.options.sessions.sessions();
    const now = this.now();
    const ready = sessions.filter((s) => (this.readyAt.get(s.id) ?? 0) <= now);
    if (ready.length === 0) {
      this.enqueue(mentions);
      return sessions.length > 0 ? { kind: 'pending', sessions } : { kind: 'queued', queued: this.queue.length };
    }
    const results = await Promise.allSettled(ready.map((s) => this.sendAll(s, mentions)));
    const reached = ready.filter((_, i) => results[i].status === 'fulfilled');
    if (reached.length === 0) {
      const reason = (results[0] as PromiseRejectedResult).reason as Error;
      throw new Error(`Could not send the mention to claude: ${reason.message}`);
    }
    return { kind: 'sent', sessions: reached };
  }

  dispose(): void {
    for (const handle of this.handles) this.timers.clearTimeout(handle);
    this.handles.clear();
    this.subscription.dispose();
    this.queue = [];
  }

  private onConnect(session: IdeSession): void {
    const delay = this.options.readyDelayMs ?? MENTION_READY_DELAY_MS;
    this.readyAt.set(session.id, this.now() + delay);
    const handle = this.timers.setTimeout(() => {
      this.handles.delete(handle);
      this.readyAt.delete(session.id);
      void this.deliverQueued(session.id);
    }, delay);
    this.handles.add(handle);
  }

  private async deliverQueued(sessionId: number): Promise<void> {
    const maxAge = this.options.maxAgeMs ?? MENTION_QUEUE_MAX_AGE_MS;
    const now = this.now();
    const stale = this.queue.filter((q) => now - q.at > maxAge).length;
    if (stale > 0) this.options.log.info(`Dropped ${stale} queued mention(s) older than ${Math.round(maxAge / 60_000)} min`);
    this.queue = this.queue.filter((q) => now - q.at <= maxAge);
    const session = this.options.sessions.sessions().find((s) => s.id === sessionId);
    if (!session || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    let sent = 0;
    try {
      for (const { params } of batch) {
        await this.sendAll(session, [params]);
        sent++;
      }
      this.options.log.info(`Delivered ${sent} queued mention(s) to #${session.id}`);
      this.options.onDelivered?.(session);
    } catch (error) {
      this.options.log.warn(`Could not deliver queued mentions to #${session.id}: ${(error as Error).message}; keeping them for the next session`);
      this.queue = [...batch.slice(sent), ...this.queue];
    }
  }

  /** In order: each mention inserts text at the CLI's cursor. */
  private async sendAll(session: IdeSession, mentions: readonly AtMentionParams[]): Promise<void> {
    for (const params of mentions) {
      this.options.log.debug(`at_mentioned → #${session.id}: ${formatAtMention(params)}`);
      await session.notify(AT_MENTIONED, params);
    }
  }

  private enqueue(mentions: readonly AtMentionParams[]): void {
    const at = this.now();
    for (const params of mentions) {
      const key = JSON.stringify(params);
      this.queue = this.queue.filter((q) => JSON.stringify(q.params) !== key);
      this.queue.push({ params, at });
    }
    const max = this.options.maxQueued ?? MENTION_QUEUE_MAX;
    if (this.queue.length > max) this.queue = this.queue.slice(-max);
  }
}
