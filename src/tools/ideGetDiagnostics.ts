import { z } from 'zod';
import type { DiagnosticsSource, FileDiagnostics } from '../host/diagnostics';
import type { RecentEdits } from '../review/recentEdits';
import { pathOfFileUri } from '../util/fileUri';

/** How long a call without uri waits for just-edited files to be re-checked; the CLI gives up at 2 s. */
export const FRESH_EDIT_WAIT_MS = 1000;
import { defineTool } from './toolDefinition';

/**
 * getDiagnostics as the CLI calls it (ide-protocol.md §3.4) and as the model sees it
 * (`mcp__ide__getDiagnostics`). With a `uri` the first entry is always that file (the CLI discards
 * its baseline otherwise), even when it has no problems. The CLI stops waiting after 500 ms (with
 * a uri) and 2 s (without): with a uri this answers at once; without, it waits up to 1 s for files
 * whose proposals were just accepted, so problems the edit introduced are not missed.
 */
export function ideGetDiagnosticsTool(source: DiagnosticsSource, recentEdits?: RecentEdits) {
  return defineTool({
    name: 'getDiagnostics',
    description:
      'Get the problems VS Code currently reports (the Problems panel: errors, warnings, info and hints from language servers and linters). ' +
      'Pass `uri` (a file:// URI or absolute path) for one file; omit it for every file that has problems. ' +
      'Returns a JSON array of {uri, diagnostics:[{message, severity, range (0-based line/character), source, code}]}. ' +
      'Use it after editing to check that the code still compiles and lints cleanly.',
    inputSchema: z.looseObject({
      uri: z.string().optional().describe('file:// URI or absolute path of one file; omit for all files'),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handle: async ({ uri }) => {
      let result: FileDiagnostics[];
      if (uri) {
        const filePath = pathOfFileUri(uri) ?? uri; // a plain absolute path is accepted too
        result = [{ uri: `file://${filePath}`, diagnostics: source.forFile(filePath) }];
      } else {
        const fresh = recentEdits?.take() ?? [];
        await Promise.all(fresh.map((file) => source.waitForChange(file, FRESH_EDIT_WAIT_MS)));
        result = source.all();
      }
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    },
  });
}
