import type { ReviewDecision } from '../host/review';

/** One pending review: who asked, how to find its tab, and how it ends. */
export interface PendingReview<Extra> {
  readonly id: string;
  readonly title: string;
  readonly connectionId: number;
  readonly extra: Extra;
  readonly decision: Promise<ReviewDecision>;
}

interface Entry<Extra> extends PendingReview<Extra> {
  resolve(decision: ReviewDecision): void;
}

/**
 * The pending reviews of a window. Every way a review can end (button, save, tab close, close_tab,
 * closeAllDiffTabs, disconnect, shutdown) goes through `settle`, which resolves each review exactly
 * once: the first decision wins and later ones are ignored (docs/vscode-traps.md, trap 10).
 */
export class ReviewRegistry<Extra> {
  private readonly pending = new Map<string, Entry<Extra>>();

  add(id: string, title: string, connectionId: number, extra: Extra): PendingReview<Extra> {
    if (this.pending.has(id)) throw new Error(`A review with id ${id} is already pending`);
    let resolve!: (decision: ReviewDecision) => void;
    const decision = new Promise<ReviewDecision>((r) => (resolve = r));
    const entry: Entry<Extra> = { id, title, connectionId, extra, decision, resolve };
    this.pending.set(id, entry);
    return entry;
  }

  get(id: string): PendingReview<Extra> | undefined {
    return this.pending.get(id);
  }

  /** Settles the review if it is still pending. Returns false if it had already ended. */
  settle(id: string, decision: ReviewDecision): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    entry.resolve(decision);
    return true;
  }

  /** With `connectionId`, only that connection's: one CLI session never closes another's review. */
  byTitle(title: string, connectionId?: number): PendingReview<Extra>[] {
    return [...this.pending.values()].filter((r) => r.title === title && (connectionId === undefined || r.connectionId === connectionId));
  }

  byConnection(connectionId: number): PendingReview<Extra>[] {
    return [...this.pending.values()].filter((r) => r.connectionId === connectionId);
  }

  all(): PendingReview<Extra>[] {
    return [...this.pending.values()];
  }

  get size(): number {
    return this.pending.size;
  }
}
