// get_diagnostics: the Problems panel for the model, as readable lines
// (`[error] src/a.ts:12 — message`), filterable by file or folder and by severity.
// This is the model-facing tool of the `/tools` route, not the CLI's `getDiagnostics` IDE call,
// which answers with JSON in the protocol's own shape.

import { promises as fs } from 'fs';
import { z } from 'zod';
import type { DiagnosticsSource, FileDiagnostics, SeverityName } from '../host/diagnostics';
import type { WorkspaceHost } from '../host/workspace';
import { workspaceFolderViews, type WorkspacePath } from '../workspace/workspacePaths';
import { defineTool, errorResult, textResult, type ToolDefinition } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';
import { pathOfFileUri } from '../workspace/fileUri';
import { displayPathOf, inScope, type PathScope } from '../workspace/displayPaths';
import { settleDiagnostics, type SettleOptions } from '../diagnostics/settleDiagnostics';
import { dependentsNotChecked, settleChangedFiles } from '../diagnostics/dependentFiles';
import { FILES_WAITED_FOR_MAX, MODEL_WAIT_MS, stillBeingChecked, waitingProgress } from '../diagnostics/waitBudgets';

/** At most this many problems are listed; the result then says how many there are in all. */
const DIAGNOSTICS_LIMIT = 500;

const SEVERITIES = ['error', 'warning', 'information', 'hint'] as const;
export type SeverityFilter = (typeof SEVERITIES)[number];

const SEVERITY_RANK: Record<SeverityFilter, number> = { error: 0, warning: 1, information: 2, hint: 3 };

/** The protocol's names (docs/protocol.md#getdiagnostics also allows "Info") to the tool's lowercase ones. */
export function severityKey(name: SeverityName | string): SeverityFilter {
  const lower = name.toLowerCase();
  if (lower === 'info') return 'information';
  return (SEVERITIES as readonly string[]).includes(lower) ? (lower as SeverityFilter) : 'information';
}

export interface ProblemLine {
  severity: SeverityFilter;
  file: string;
  line: number; // 1-based
  message: string;
  source?: string;
  code?: string;
}

export function formatProblem(p: ProblemLine): string {
  const origin = [p.source, p.code].filter((s) => s !== undefined && s !== '').join(' ');
  const message = p.message.trim().replace(/\r?\n/g, '\n    ');
  return `[${p.severity}] ${p.file}:${p.line} — ${message}${origin ? ` (${origin})` : ''}`;
}

/** Collects, filters and sorts the problems (by file, then line, then severity). */
export function collectProblems(
  files: readonly FileDiagnostics[],
  options: { severity?: SeverityFilter; scope?: PathScope; display(file: string): string; platform?: NodeJS.Platform },
): ProblemLine[] {
  const problems: ProblemLine[] = [];
  for (const entry of files) {
    const file = pathOfFileUri(entry.uri);
    if (file === undefined) continue;
    if (options.scope && !inScope(file, options.scope, options.platform)) continue;
    const shown = options.display(file);
    for (const d of entry.diagnostics) {
      const severity = severityKey(d.severity);
      if (options.severity && severity !== options.severity) continue;
      problems.push({ severity, file: shown, line: d.range.start.line + 1, message: d.message, source: d.source, code: d.code });
    }
  }
  return problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
}

/** `filterLabel` completes "No problems…", e.g. " in src with severity error". */
export function formatProblems(problems: readonly ProblemLine[], filterLabel = '', limit = DIAGNOSTICS_LIMIT): string {
  if (problems.length === 0) return `No problems${filterLabel}.`;
  const counts = SEVERITIES.map((s) => [s, problems.filter((p) => p.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}${n === 1 ? '' : s === 'information' ? '' : 's'}`);
  const files = new Set(problems.map((p) => p.file)).size;
  const lines = [`${problems.length} problem${problems.length === 1 ? '' : 's'} (${counts.join(', ')}) in ${files} file${files === 1 ? '' : 's'}`];
  lines.push(...problems.slice(0, limit).map(formatProblem));
  if (problems.length > limit) lines.push(`truncated: true — ${limit} of ${problems.length} shown. Filter by path or severity to see the rest.`);
  return lines.join('\n');
}

const inputSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .optional()
      .describe('Only problems of this file, or of the files in this folder (relative to the workspace folder). Default: the whole workspace.'),
    severity: z.enum(SEVERITIES).optional().describe('Only problems of this severity. Default: all.'),
  })
  .strict();

/**
 * Loads what is asked about so language servers check it, and waits (bounded) until the problems
 * reflect the disk: a file asked about by path, else the files (in scope) changed on disk since the
 * previous call and the files that use them. Returns the files still being checked when the time ran
 * out, and the files using the changed ones that were not checked (beyond the limit).
 */
async function waitForFreshProblems(
  diagnostics: DiagnosticsSource,
  target: WorkspacePath | undefined,
  scope: PathScope | undefined,
  onWaiting: SettleOptions['onWaiting'],
): Promise<{ unsettled: string[]; notChecked: string[] }> {
  const isFile = target
    ? await fs.stat(target.realPath).then(
        (s) => s.isFile(),
        () => false,
      )
    : false;
  if (isFile) {
    const report = await settleDiagnostics(diagnostics, [target!.realPath], { timeoutMs: MODEL_WAIT_MS, load: 'show', onWaiting });
    return { unsettled: report.unsettled, notChecked: [] };
  }
  const within = (file: string) => !scope || inScope(file, scope);
  const changed = (diagnostics.documents?.takeChangedOnDisk('tools') ?? []).filter(within);
  const { unsettled, notChecked } = await settleChangedFiles(diagnostics, changed.slice(-FILES_WAITED_FOR_MAX), {
    timeoutMs: MODEL_WAIT_MS,
    onWaiting,
    inScope: within,
  });
  return { unsettled, notChecked };
}

export function getDiagnosticsTool(diagnostics: DiagnosticsSource, host: WorkspaceHost): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'get_diagnostics',
    title: 'Get diagnostics',
    description:
      "The problems VS Code's language servers and linters report (the Problems panel), for the files as they are on disk: " +
      'a file asked about is loaded so it gets checked; without a file, the files changed on disk since the last call and up to 10 files that use them (references, imports) are; the answer waits for their reports (the first check of a project in a new window can take seconds). ' +
      'One line each, "[severity] file:line — message (source code)", line numbers 1-based, paths relative to the workspace folder; ' +
      'last lines name files still being checked when time ran out and files that use the changed ones beyond those 10. "No problems" when there are none. ' +
      'Filter with path (a file or a folder) and severity (error, warning, information or hint). ' +
      'Use it after changing code instead of running a compiler, type checker or linter in a shell on those files: it covers every language VS Code checks. ' +
      'Problems are known for the files language servers have checked (files asked about, open, changed or using changed ones; the whole project only for some languages): it is not a whole-project build.',
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ path: input, severity }, context) => {
      const folders = host.folders();
      let scope: PathScope | undefined;
      let target: WorkspacePath | undefined;
      if (input !== undefined) {
        // Not mustExist: a deleted file can still have problems listed.
        const resolved = await workspaceTarget(host, input);
        if ('error' in resolved) return errorResult(resolved.error);
        target = resolved;
        scope = { roots: [...new Set([target.absolute, target.realPath])] };
      }
      const views = await workspaceFolderViews(folders);
      const display = (file: string) => displayPathOf(file, views);
      const { unsettled, notChecked } = await waitForFreshProblems(diagnostics, target, scope, context?.progress && waitingProgress(context.progress));
      const problems = collectProblems(diagnostics.all(), { severity, scope, display });
      // Read before the check tab closes: closing it drops TypeScript's problems of the file.
      diagnostics.documents?.releaseCheckTabs();
      const label = (target ? ` in ${display(target.realPath) || '.'}` : '') + (severity ? ` with severity ${severity}` : '');
      const note =
        (unsettled.length ? `\n${stillBeingChecked(unsettled, display)}` : '') + (notChecked.length ? `\n${dependentsNotChecked(notChecked, display)}` : '');
      return textResult(formatProblems(problems, label) + note);
    },
  });
}
