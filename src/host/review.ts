/** A proposed change to show in the review diff. */
export interface ReviewRequest {
  /** Absolute path of the file the proposal is for. */
  filePath: string;
  /** Current text, or undefined for a file that does not exist yet (the left side is then empty). */
  originalText: string | undefined;
  /** The whole proposed file text. */
  proposedText: string;
  /** Tab title; for openDiff the CLI's `tab_name`, which is also the key for close_tab. */
  title: string;
  /** The connection that asked; its pending reviews are settled when it disconnects. */
  connectionId: number;
  /**
   * The file has unsaved edits and `proposedText` is Claude's proposal merged with them
   * (src/review/threeWayMerge.ts): the left side shows the user's buffer, not the saved file, and an
   * accept is refused while conflict markers are left (docs/review.md).
   */
  merged?: { unsavedText: string; conflicts: number };
  /** False: the accepted file is not brought to the front (a rename's next review is, docs/language.md). */
  revealAccepted?: false;
}

/** How a review ended; each review ends exactly once. */
export type ReviewDecision =
  /** The user accepted; `text` is the right side with the user's edits, in the proposal's line endings (the file's when it has no line break; src/review/acceptedText.ts). */
  | { kind: 'accepted'; text: string }
  /** The user rejected: button, keybinding, closing the tab, or the window closing. */
  | { kind: 'rejected'; reason: 'user' | 'tab-closed' | 'window-closed' }
  /** It was withdrawn by the client (close_tab, closeAllDiffTabs) or its connection went away. */
  | { kind: 'withdrawn'; reason: 'close-tab' | 'disconnected' };

export interface ReviewHost {
  /** Opens the diff and resolves when the user (or the client) decides. */
  review(request: ReviewRequest): Promise<ReviewDecision>;
  /** Closes the review with this title, if any, settling it as withdrawn. Idempotent. With `connectionId`, only that session's. */
  closeByTitle(title: string, connectionId?: number): Promise<boolean>;
  /**
   * Closes the review diffs this extension opened (never the user's own diff tabs). With
   * `connectionId`, only that session's pending reviews (and tabs no pending review owns).
   */
  closeAll(connectionId?: number): Promise<number>;
  /** Settles and closes the pending reviews of a connection that went away. */
  withdrawForConnection(connectionId: number): void;
  /** Tells the user why a proposal for this file got no review (`reason` completes "…was not opened for review: "). */
  notifyNotOpened?(filePath: string, reason: string): void;
}
