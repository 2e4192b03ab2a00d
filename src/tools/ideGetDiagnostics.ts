import { z } from 'zod';
import type { DiagnosticsSource, FileDiagnostics } from '../host/diagnostics';
import type { RecentEdits } from '../review/recentEdits';
import { pathOfFileUri } from '../workspace/fileUri';
import { defineTool } from './toolDefinition';
import { settleDiagnostics } from '../diagnostics/settleDiagnostics';

/**
 * How long the call with a uri may wait for the file's problems: the CLI gives up at 500 ms and, after
 * three timeouts in a row, stops asking for the session (ide-protocol.md §3.4), so this stays well under.
 */
export const URI_WAIT_MS = 300;
/** Quiet period with a uri: shorter than usual, to fit the budget. */
const URI_QUIET_MS = 150;
/** How long the call without uri waits for the files the CLI just wrote; the CLI gives up at 2 s. */
export const WORKSPACE_WAIT_MS = 1200;
/** The most files the call without uri waits for (the files of one turn's edits). */
const WORKSPACE_FILES_MAX = 20;

/**
 * getDiagnostics as the CLI calls it (ide-protocol.md §3.4) and as the model sees it
 * (`mcp__ide__getDiagnostics`). With a `uri` — the CLI's baseline before it writes a file — the file is
 * loaded so language servers check it, and the answer waits briefly for its problems; the first entry
 * is always that file (the CLI discards its baseline otherwise), even when it has no problems. Without
 * — the CLI's call after its writes — it waits for the files asked about since the last such call, and
 * those changed on disk, until VS Code has reloaded them and their problems settled.
 */
export function ideGetDiagnosticsTool(source: DiagnosticsSource, recentEdits?: RecentEdits) {
  /** Files asked about with a uri since the last call without: the files the CLI is about to write. */
  const baselined = new Set<string>();
  return defineTool({
    name: 'getDiagnostics',
    description:
      "Get the problems VS Code's language servers and linters report (the Problems panel: errors, warnings, info and hints), " +
      'for the files as they are on disk: a file asked about is loaded so it gets checked, and the answer waits briefly for fresh reports. ' +
      'Pass `uri` (a file:// URI or absolute path) for one file; omit it for every file that has problems. ' +
      'Returns a JSON array of {uri, diagnostics:[{message, severity, range (0-based line/character), source, code}]}. ' +
      'Use it after editing instead of running a compiler or linter in a shell, to check that the code still compiles and lints cleanly.',
    inputSchema: z.looseObject({
      uri: z.string().optional().describe('file:// URI or absolute path of one file; omit for all files'),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handle: async ({ uri }) => {
      let result: FileDiagnostics[];
      if (uri) {
        const filePath = pathOfFileUri(uri) ?? uri; // a plain absolute path is accepted too
        baselined.add(filePath);
        await settleDiagnostics(source, [filePath], { timeoutMs: URI_WAIT_MS, quietMs: URI_QUIET_MS, load: 'show' });
        result = [{ uri: `file://${filePath}`, diagnostics: source.forFile(filePath) }];
      } else {
        const accepted = recentEdits?.take() ?? [];
        const files = [...new Set([...accepted, ...baselined, ...(source.documents?.takeChangedOnDisk('ide') ?? [])])].slice(0, WORKSPACE_FILES_MAX);
        baselined.clear();
        if (source.documents) {
          // Files changed on disk that VS Code has not loaded are not loaded here: the CLI keeps only files it asked about first.
          await settleDiagnostics(source, files, { timeoutMs: WORKSPACE_WAIT_MS, load: 'none' });
        } else if (accepted.length) {
          // Without document tracking (plain-Node hosts) only files accepted through openDiff are known to
          // be written now, and the only sign of their check is a report after this call.
          await settleDiagnostics(source, accepted, { timeoutMs: WORKSPACE_WAIT_MS, since: Date.now() });
        }
        result = source.all();
      }
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    },
  });
}
