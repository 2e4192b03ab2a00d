import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ChangeCapture } from '../host/changeCapture';
import type { DiagnosticsSource, FileDiagnostics } from '../host/diagnostics';
import type { Logger } from '../util/logger';
import type { RecentEdits } from '../review/recentEdits';
import { pathOfFileUri } from '../workspace/fileUri';
import { defineTool } from './toolDefinition';
import { settleDiagnostics } from '../diagnostics/settleDiagnostics';
import { dependentsNotChecked, settleChangedFiles } from '../diagnostics/dependentFiles';
import {
  AFTER_WRITES_WAIT_MS,
  BASELINE_QUIET_MS,
  BASELINE_WAIT_MS,
  FILES_WAITED_FOR_MAX,
  MODEL_WAIT_MS,
  notCheckedYet,
  stillBeingChecked,
  waitingProgress,
} from '../diagnostics/waitBudgets';

/**
 * getDiagnostics as the CLI calls it and as the model sees it (`mcp__ide__getDiagnostics`); the calls,
 * their budgets and what each waits for are in docs/diagnostics.md.
 * - claude's baseline (`{uri}`, before it writes the file): the file is loaded (a background tab where
 *   the checker needs one) and the answer waits briefly; the first entry is always that file (the CLI
 *   discards its baseline otherwise), even when it has no problems.
 * - claude's call after its writes (`{}`): the files it asked about since its last such call and those
 *   accepted through a review are loaded (new files too) and waited for, as are loaded files changed on disk;
 *   then the tabs opened only for checking are closed again.
 * - the model's calls (marked with its tool_use id) wait until the problems settled, as long as a
 *   first check in a fresh window takes, with MCP progress meanwhile.
 * Whenever files were still being checked at the end, a second text item says which (the model reads
 * it); claude reads only the first, the JSON array, so there a file it wrote that is still being
 * checked carries an Information item saying so (docs/diagnostics.md, "When time runs out").
 * claude's baseline is also the moment its write is announced: the file is captured then, for Claude's
 * changes (docs/changes.md), while the answer waits for the checker anyway.
 */
// Long (~105 lines) on purpose: the three callers above (claude's baseline, claude's {}, the model's) are
// one branch each of one handler, sharing the answer's shape, the notes and the log line.
export function ideGetDiagnosticsTool(source: DiagnosticsSource, recentEdits?: RecentEdits, log?: Logger, changes?: ChangeCapture) {
  /** Files claude asked about with a uri since its last call without: the files it is about to write. */
  const baselined = new Set<string>();
  /** Files claude wrote that were still being checked at its last `{}`: waited for again at the next. */
  const stillUnchecked = new Set<string>();
  return defineTool({
    name: 'getDiagnostics',
    description:
      "Get the problems VS Code's language servers and linters report (the Problems panel: errors, warnings, info and hints), " +
      'for the files as they are on disk: a file asked about is loaded so it gets checked, and the answer waits until its checker has reported ' +
      '(the first check of a project in a new window can take seconds; a second text names files still being checked if time ran out). ' +
      'Pass `uri` (a file:// URI or absolute path) for one file; omit it for every file that has problems, after checking the files changed since your last call and up to 10 files that use them (a second text names any not checked). ' +
      'Returns a JSON array of {uri, diagnostics:[{message, severity, range (0-based line/character), source, code}]}. ' +
      'Use it after editing instead of running a compiler or linter in a shell on the files you changed; it is not a whole-project build.',
    inputSchema: z.looseObject({
      uri: z.string().optional().describe('file:// URI or absolute path of one file; omit for all files'),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    handle: async ({ uri }, context) => {
      const started = Date.now();
      const byModel = context?.modelToolUseId !== undefined;
      if (context) changes?.noteCall(context.connectionId);
      const onWaiting = byModel && context?.progress ? waitingProgress(context.progress) : undefined;
      const documents = source.documents;
      let result: FileDiagnostics[];
      let unsettled: string[] = [];
      let waitedFor: string[] = [];
      let notChecked: string[] = [];
      /** Files claude wrote whose language server had not answered about them when time ran out. */
      let unanswered: string[] = [];
      if (uri) {
        const filePath = pathOfFileUri(uri) ?? uri; // a plain absolute path is accepted too
        if (!byModel) baselined.add(filePath);
        waitedFor = [filePath];
        const budget = byModel ? { timeoutMs: MODEL_WAIT_MS, onWaiting } : { timeoutMs: BASELINE_WAIT_MS, quietMs: BASELINE_QUIET_MS };
        // Read before the answer goes (claude writes right after it), alongside the wait, never instead of it.
        const captured = !byModel && changes && context ? changes.beforeWrite(context.connectionId, filePath, 'baseline') : undefined;
        let settledAt = 0;
        [{ unsettled }] = await Promise.all([
          settleDiagnostics(source, waitedFor, { ...budget, load: 'show' }).finally(() => (settledAt = Date.now())),
          captured,
        ]);
        // The capture is not bounded by the wait (claude writes right after the answer): say when it held the answer.
        if (log && Date.now() - settledAt >= 50)
          log.info(`getDiagnostics {uri} ${filePath}: the capture before claude's write held the answer ${Date.now() - settledAt} ms past the wait`);
        result = [{ uri: `file://${filePath}`, diagnostics: source.forFile(filePath) }];
      } else if (byModel) {
        // Like get_diagnostics for the whole workspace: files changed on disk since the model's last call,
        // and the files that use them.
        const changed = (documents?.takeChangedOnDisk('ide-model') ?? []).slice(-FILES_WAITED_FOR_MAX);
        ({ waitedFor, unsettled, notChecked } = await settleChangedFiles(source, changed, { timeoutMs: MODEL_WAIT_MS, onWaiting }));
        result = source.all();
      } else {
        const accepted = recentEdits?.take() ?? [];
        const asked = [...new Set([...accepted, ...baselined, ...stillUnchecked])].slice(0, FILES_WAITED_FOR_MAX);
        baselined.clear();
        stillUnchecked.clear();
        if (documents) {
          // The files claude wrote are loaded here, new ones too (claude keeps only files it asked about
          // first); other files changed on disk are waited for only if VS Code has them loaded.
          const changed = documents
            .takeChangedOnDisk('ide')
            .filter((p) => !asked.includes(p))
            .slice(-FILES_WAITED_FOR_MAX);
          waitedFor = [...asked, ...changed];
          const reports = await Promise.all([
            settleDiagnostics(source, asked, { timeoutMs: AFTER_WRITES_WAIT_MS, load: 'show' }),
            settleDiagnostics(source, changed, { timeoutMs: AFTER_WRITES_WAIT_MS, load: 'none' }),
          ]);
          unsettled = reports.flatMap((r) => r.unsettled);
          unanswered = reports[0].unanswered;
        } else if (accepted.length) {
          // Without document tracking (plain-Node hosts) only files accepted through openDiff are known to
          // be written now, and the only sign of their check is a report after this call.
          waitedFor = accepted;
          ({ unsettled } = await settleDiagnostics(source, accepted, { timeoutMs: AFTER_WRITES_WAIT_MS, since: Date.now() }));
        }
        result = source.all();
        // claude keeps only the entries of files it took a baseline of (the files it wrote) and reads
        // only the first text item: such a file still being checked is waited for again at claude's next
        // call, and when nothing has reported on it since its change (a first check still running, or its
        // server's silence not yet a second old), its entry says so, which reaches the model as a new
        // diagnostic: never nothing for a file whose problems may still come.
        for (const file of unsettled.filter((f) => asked.includes(f))) stillUnchecked.add(file);
        for (const file of unanswered) {
          const uri = `file://${file}`;
          const entry = result.find((e) => e.uri === uri) ?? (result.push({ uri, diagnostics: [] }), result[result.length - 1]);
          entry.diagnostics = [...entry.diagnostics, notCheckedYet()];
        }
      }
      // The answer is read before the check tabs close: closing a tab drops TypeScript's problems of the file.
      if (uri === undefined || byModel) documents?.releaseCheckTabs();
      const ms = Date.now() - started;
      if (log && (ms >= 100 || unsettled.length)) {
        const what = uri ? `{uri} ${waitedFor[0]}` : `{} (${waitedFor.length} file${waitedFor.length === 1 ? '' : 's'} waited for)`;
        log.info(
          `getDiagnostics ${what} from ${byModel ? 'the model' : 'claude'} answered in ${ms} ms${unsettled.length ? `; ${stillBeingChecked(unsettled)}` : ''}${notChecked.length ? `; ${dependentsNotChecked(notChecked)}` : ''}`,
        );
      }
      const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(result) }];
      const notes = [...(unsettled.length ? [stillBeingChecked(unsettled)] : []), ...(notChecked.length ? [dependentsNotChecked(notChecked)] : [])];
      if (notes.length) content.push({ type: 'text', text: notes.map((n) => `Note: ${n}`).join('\n') });
      return { content };
    },
  });
}
