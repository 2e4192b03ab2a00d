import { promises as fs, readFileSync, renameSync } from 'node:fs';
import type { LedgerState } from '../../changes/changeLedger';
import type { Logger } from '../../util/logger';

/**
 * The list of Claude's changes as saved in the extension's storage (0600), so it survives a reload:
 * written at most every 200 ms through a temporary file and a rename; a file that cannot be read is moved
 * aside (recoverable by hand), never overwritten.
 */
export class SavedChangesList {
  private saveTimer: NodeJS.Timeout | undefined;
  private pending: LedgerState | undefined;

  constructor(
    private readonly stateFile: string,
    private readonly log: Logger,
  ) {}

  load(): LedgerState | undefined {
    try {
      const state = JSON.parse(readFileSync(this.stateFile, 'utf8')) as LedgerState;
      return state?.version === 1 && Array.isArray(state.sessions) ? state : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      // Kept aside, not overwritten: the list can be recovered by hand.
      const aside = `${this.stateFile}.damaged-${Date.now()}`;
      try {
        renameSync(this.stateFile, aside);
      } catch {
        // nothing to keep
      }
      this.log.warn(`Claude's changes: the saved list could not be read (${(error as Error).message}); it was moved to ${aside} and the list starts empty.`);
      return undefined;
    }
  }

  save(state: LedgerState): void {
    this.pending = state;
    this.saveTimer ??= setTimeout(() => void this.flush(), 200);
  }

  private async flush(): Promise<void> {
    this.saveTimer = undefined;
    const state = this.pending;
    this.pending = undefined;
    if (!state) return;
    const temp = `${this.stateFile}.${process.pid}.tmp`;
    try {
      await fs.writeFile(temp, JSON.stringify(state), { mode: 0o600 });
      await fs.rename(temp, this.stateFile);
    } catch (error) {
      this.log.warn(`Claude's changes: the list could not be saved: ${(error as Error).message}`);
    }
  }

  /** Writes what waits, now. */
  dispose(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      void this.flush();
    }
  }
}
