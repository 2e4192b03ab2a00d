// How long each diagnostics call may wait for language servers, in one place (docs/diagnostics.md has
// the table). claude abandons its own calls after fixed timeouts; the model's calls have none that
// matters (claude waits as long as the IDE takes, and shows the progress sent meanwhile).

import * as path from 'path';
import type { DiagnosticItem } from '../host/diagnostics';

/**
 * claude's baseline, `getDiagnostics {uri}` before it writes a file: it gives up at 500 ms and, after
 * three timeouts in a row, stops asking for the rest of the session. The answer goes at this deadline
 * (settleDiagnostics does not wait for a look under way); the rest of claude's 500 ms is for the
 * extension host's thread, which other extensions can hold (up to 271 ms during a baseline in
 * bench/dependents.real.ts), and the answer's way back.
 */
export const BASELINE_WAIT_MS = 300;
/** Quiet period within the baseline's budget. */
export const BASELINE_QUIET_MS = 150;

/**
 * claude's `getDiagnostics {}` after its writes, as it builds the next model request: it gives up at
 * 2 s (and then reports nothing). TypeScript's first check of a new file claude wrote in a fresh window
 * took 0.9–1.25 s after the call (test/real/vscode-diagnostics-cold.test.ts ts-accept-edits, 10 runs
 * on 2026-11-25): a 1.2 s budget missed it in 1 of 10, and once in a cold CI run on a busy machine (its
 * problem never reached claude). 1.5 s leaves 0.5 s for the extension host's thread held by other
 * extensions and the answer's way back: TypeScript's extension held it 569 ms (handling its server's
 * messages as a 300-file project finished loading) during claude's {} of a window's first change in
 * bench/dependents.real.ts, and that answer was sent after 1,932 ms.
 */
export const AFTER_WRITES_WAIT_MS = 1500;

/**
 * The model's questions (`mcp__ide__getDiagnostics`, the tools route's `get_diagnostics`): as long as a
 * language server's first check of a project can take in a fresh window (TypeScript's, measured in
 * docs/diagnostics.md, with a wide margin); past this the answer names the files still being checked.
 */
export const MODEL_WAIT_MS = 20_000;

/**
 * How long finding the files that use a changed file may take of a model's call: references need the
 * language server's project loaded (seconds in a fresh window); the imports are read in milliseconds.
 */
export const DEPENDENTS_LOOKUP_MS = 5000;

/** The most files one call loads and waits for (one turn's edits; the latest changes on disk). */
export const FILES_WAITED_FOR_MAX = 20;

/** The sentence that replaces a silent "no problems" when files were still being checked. */
export function stillBeingChecked(files: readonly string[], display: (file: string) => string = (f) => f): string {
  const shown = files.slice(0, 10).map(display).join(', ');
  const more = files.length > 10 ? `, and ${files.length - 10} more` : '';
  return `still being checked when this answer was sent (their problems may be missing or out of date; ask again in a moment): ${shown}${more}`;
}

/** Who says the file is still being checked (not a language server): the item's `source`. */
const NOT_CHECKED_SOURCE = 'native-claude';

/**
 * The note in claude's own `{}` answer for a file it wrote that was still being checked: claude reads
 * only the JSON array, keeps only the files it wrote, and passes new items to the model as
 * <new-diagnostics>. An Information item at the file's start, the same every time (claude shows an
 * item once; when the real problems come at its next call, they are new to it).
 */
export function notCheckedYet(): DiagnosticItem {
  return {
    message:
      "Not checked yet: VS Code's language server had not finished checking this file when claude asked, so its problems may be missing here. " +
      "Call getDiagnostics with this file's uri: it waits for the check.",
    severity: 'Information',
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    source: NOT_CHECKED_SOURCE,
  };
}

/** MCP progress while the model's call waits: claude shows the message under the running tool. */
export function waitingProgress(progress: (message: string) => void) {
  return (unsettled: readonly string[], waitedMs: number) => {
    const names =
      unsettled
        .slice(0, 3)
        .map((f) => path.basename(f))
        .join(', ') + (unsettled.length > 3 ? ` and ${unsettled.length - 3} more` : '');
    progress(`Waiting for VS Code's language servers to check ${names} (${Math.round(waitedMs / 1000)} s)`);
  };
}
