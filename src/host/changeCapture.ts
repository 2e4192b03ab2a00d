/** Which call named the file ahead of claude's write (docs/changes.md). */
export type CaptureMoment = 'baseline' | 'openDiff' | 'tools-route';

/**
 * Where the tools and the review code report the moments a claude session names a file it is about to
 * write, so the content before the write can be kept for the user's review after the fact (Claude's
 * changes, src/changes). Implemented by src/changes/changeTracker.ts; absent in hosts without it.
 */
export interface ChangeCapture {
  /**
   * A call on connection `connectionId` named `filePath` ahead of a write. Resolves as soon as the
   * content is held in memory (storing it happens afterwards), and never rejects: a capture that fails
   * only means the change is not listed with certainty. `known`: the bytes the caller read already
   * (undefined bytes: the file does not exist), so the file is not read twice.
   */
  beforeWrite(connectionId: number, filePath: string, moment: CaptureMoment, known?: { bytes: Uint8Array | undefined }): Promise<void>;
  /** The announced write will not come (the review was rejected or failed). */
  writeCancelled(connectionId: number, filePath: string): void;
  /** Any call of the connection: an unannounced change goes to the session that called last. */
  noteCall(connectionId: number): void;
}
