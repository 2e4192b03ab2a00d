// rename_symbol: VS Code's rename provider computes the edit; every file it touches is checked inside the
// workspace (after symlinks) before anything is shown, reviewed by the user through the review path of
// write_file (one diff per file, in sequence, accepted or rejected as a whole), and written through the
// same writer (no-follow, the file's encoding, hard links refused, Claude's changes told). docs/language.md.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RenameRefusedError, type LanguageFeatures, type SourceRange, type TextReplacement } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { CHANGE_DIAGNOSTICS_WAIT_MS, trackChangeDiagnostics } from '../diagnostics/changeDiagnostics';
import { stillBeingChecked } from '../diagnostics/waitBudgets';
import {
  needsReview,
  prepareChange,
  refusedAfterReview,
  reviewRequestOf,
  writeAccepted,
  type ChangeDependencies,
  type ChangeResult,
  type PreparedChange,
} from '../review/proposeChange';
import { LockTimeoutError } from '../util/keyedLock';
import { displayPathOf } from '../workspace/displayPaths';
import { resolveInWorkspace, WorkspacePathError, type WorkspacePath } from '../workspace/workspacePaths';
import { LANGUAGE_BUDGETS, LanguageQuery, LanguageToolError, positionFields, symbolLabel, type LanguageBudgets } from './languageQuery';
import { linesOf } from './symbolPosition';
import { defineTool, errorResult, type ToolDefinition } from './toolDefinition';

/** Files one rename may change; more is refused (the review is one diff per file). */
export const RENAME_FILES_MAX = 50;

/** A new name: one identifier (letters, digits, `_`, `$`; not starting with a digit), as symbolPosition reads names. */
const NEW_NAME = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

const inputSchema = z.object({ ...positionFields, new_name: z.string().min(1).max(200).describe('The new name (one identifier).') }).strict();

/** One file of the rename, checked inside the workspace. */
interface RenamedFile {
  target: WorkspacePath;
  replacements: TextReplacement[];
}

/** A rename's answer to the model: JSON, as write_file's. */
type RenameAnswer =
  | {
      status: 'accepted';
      renamed: string;
      files: Array<Omit<Extract<ChangeResult, { status: 'accepted' }>, 'status'> & { replacements: number }>;
      new_diagnostics?: string[];
    }
  | { status: 'rejected'; renamed: string; files: string[]; rejected_at: string; note: string }
  | { status: 'partly written'; renamed: string; written: string[]; not_written: Array<{ path: string; error: string }> };

function answer(value: RenameAnswer): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], ...(value.status === 'partly written' ? { isError: true } : {}) };
}

/** The offset in the text of a 0-based position; `starts`: each line's offset (its break counted as in the text). */
function offsetOf(lines: readonly string[], starts: readonly number[], position: SourceRange['start']): number | undefined {
  if (position.line >= lines.length || position.character > lines[position.line].length) return undefined;
  return starts[position.line] + position.character;
}

/**
 * `text` with the replacements applied (positions in `text`, as VS Code counts them: UTF-16 units per
 * line). Overlapping replacements or positions past the text are an error: the text is not what the
 * provider computed on.
 */
export function applyReplacements(text: string, replacements: readonly TextReplacement[]): { text: string } | { error: string } {
  const lines = linesOf(text);
  const starts: number[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    starts.push(at);
    at += line.length + 1;
  }
  const spans = replacements.map((r) => ({ from: offsetOf(lines, starts, r.range.start), to: offsetOf(lines, starts, r.range.end), newText: r.newText }));
  if (spans.some((s) => s.from === undefined || s.to === undefined || s.to < s.from)) return { error: "the edit names a place past the file's text" };
  const sorted = (spans as Array<{ from: number; to: number; newText: string }>).sort((a, b) => a.from - b.from || a.to - b.to);
  for (let i = 1; i < sorted.length; i++) if (sorted[i].from < sorted[i - 1].to) return { error: 'the edit has overlapping replacements' };
  let out = '';
  let last = 0;
  for (const s of sorted) {
    out += text.slice(last, s.from) + s.newText;
    last = s.to;
  }
  return { text: out + text.slice(last) };
}

/** Runs `work` holding every file's write lock (in path order, so two renames cannot wait on each other). */
async function withLocks<T>(deps: ChangeDependencies, files: readonly RenamedFile[], work: () => Promise<T>): Promise<T> {
  const sorted = [...files].sort((a, b) => (a.target.realPath < b.target.realPath ? -1 : 1));
  const next = (i: number): Promise<T> =>
    i === sorted.length ? work() : deps.lock.run(sorted[i].target.realPath, deps.lockTimeoutMs ?? 60_000, () => next(i + 1), sorted[i].target.relative);
  return next(0);
}

export function renameSymbolTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  deps: ChangeDependencies,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  const rename = features.rename!.bind(features);
  return defineTool({
    name: 'rename_symbol',
    title: 'Rename symbol',
    description:
      "Renames a symbol in every file VS Code's language server finds it in (imports too). The user reviews each changed file and accepts or rejects the whole rename; nothing is written before. " +
      'Returns {status, files:[{path, replacements, user_edits?, merged_with_unsaved_edits?}], new_diagnostics?}. Position as in find_definitions.',
    inputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handle: async (args, context) => {
      const newName = args.new_name;
      if (!NEW_NAME.test(newName)) {
        return errorResult(
          `new_name must be one identifier (letters, digits, _ or $, not starting with a digit); got ${JSON.stringify(newName.slice(0, 80))}. Nothing was changed.`,
        );
      }
      const query = new LanguageQuery(features, host, budgets, context);
      let files: RenamedFile[];
      let renamed: string;
      try {
        const at = await query.resolve(args);
        if (at.word === newName) throw new LanguageToolError(`${symbolLabel(at)} is already named \`${newName}\`. Nothing was changed.`);
        renamed = `${at.word ? `\`${at.word}\`` : symbolLabel(at)} → \`${newName}\``;
        const edit = await query
          .ask('rename', () => rename(at.target.realPath, at.position, newName), at.opened.languageId)
          .catch((error: unknown) => {
            if (error instanceof RenameRefusedError)
              throw new LanguageToolError(
                `VS Code's rename provider for ${at.opened.languageId} refused to rename ${symbolLabel(at)}: ${error.message} Nothing was changed.`,
              );
            throw error;
          });
        files = await checkedFiles(query, host, edit.files, renamed);
      } catch (error) {
        if (error instanceof LanguageToolError) return errorResult(error.message);
        throw error;
      } finally {
        query.release();
      }
      try {
        return await withLocks(deps, files, () => reviewAndWriteAll(files, renamed, newName, context.connectionId, deps, host));
      } catch (error) {
        if (error instanceof LockTimeoutError) return errorResult(`${error.message} Nothing was changed.`);
        throw error;
      }
    },
  });
}

/**
 * The edit's files, each inside the workspace after symlinks, or the whole rename refused before anything
 * is shown: one file outside (or not a file on disk, or two names of one file) refuses it all.
 */
async function checkedFiles(
  query: LanguageQuery,
  host: WorkspaceHost,
  edited: Array<{ location: { uri: string; path?: string }; replacements: TextReplacement[] }>,
  renamed: string,
): Promise<RenamedFile[]> {
  const touched = edited.filter((f) => f.replacements.length > 0);
  if (touched.length === 0) throw new LanguageToolError(`VS Code's rename provider found nothing to change for ${renamed}. Nothing was changed.`);
  if (touched.length > RENAME_FILES_MAX) {
    throw new LanguageToolError(
      `Renaming ${renamed} would change ${touched.length} files, more than ${RENAME_FILES_MAX} reviewed at once: refused, nothing was changed. Ask the user to rename it in VS Code (F2).`,
    );
  }
  const files: RenamedFile[] = [];
  const outside: string[] = [];
  for (const f of touched) {
    const named = f.location.path !== undefined ? await query.display(f.location.path) : f.location.uri;
    if (f.location.path === undefined) {
      outside.push(`${named} (not a file on disk)`);
      continue;
    }
    try {
      files.push({ target: await resolveInWorkspace(f.location.path, host.folders(), { mustExist: true }), replacements: f.replacements });
    } catch (error) {
      if (!(error instanceof WorkspacePathError)) throw error;
      outside.push(named);
    }
  }
  if (outside.length) {
    throw new LanguageToolError(
      `Renaming ${renamed} would change ${outside.length} file${outside.length === 1 ? '' : 's'} outside the workspace (after symlinks): ${outside.join(', ')}. The rename was refused whole: nothing was shown or written.`,
    );
  }
  const seen = new Map<string, string>();
  for (const f of files) {
    const other = seen.get(f.target.realPath);
    if (other !== undefined)
      throw new LanguageToolError(
        `The rename's edit names one file twice (${other} and ${f.target.absolute === f.target.realPath ? f.target.relative : await query.display(f.target.absolute)}, one a link to the other): refused, nothing was shown or written.`,
      );
    seen.set(f.target.realPath, f.target.absolute === f.target.realPath ? f.target.relative : await query.display(f.target.absolute));
  }
  return files.sort((a, b) => (a.target.relative < b.target.relative ? -1 : a.target.relative > b.target.relative ? 1 : 0));
}

async function reviewAndWriteAll(
  files: readonly RenamedFile[],
  renamed: string,
  newName: string,
  connectionId: number,
  deps: ChangeDependencies,
  host: WorkspaceHost,
): Promise<CallToolResult> {
  // Every file read and its new text made before any review: one refused file refuses the rename.
  const prepared: PreparedChange[] = [];
  for (const f of files) {
    // VS Code computed the edit on the text it has: the user's unsaved buffer when the file is dirty.
    const change = await prepareChange(
      f.target,
      (text) => (text === undefined ? { error: `${f.target.relative} no longer exists` } : applyReplacements(text, f.replacements)),
      deps,
      { fromUnsaved: true },
    );
    if ('error' in change) return errorResult(`Renaming ${renamed} was refused whole, nothing was shown or written: ${change.path}: ${change.error}`);
    prepared.push(change);
  }
  const accepted: string[] = [];
  const reviewed = prepared.filter((p) => needsReview(p, deps));
  for (const [i, p] of prepared.entries()) {
    if (!needsReview(p, deps)) {
      accepted.push(p.reviewed);
      continue;
    }
    const shownAs = reviewed.indexOf(p) + 1;
    const title = `✻ Claude proposes: rename to ${newName} (${shownAs} of ${reviewed.length}): ${p.target.relative}`;
    // Only the last accepted file comes to the front: before it, the next review must.
    const request = { ...reviewRequestOf(p, title, connectionId), ...(shownAs < reviewed.length ? { revealAccepted: false as const } : {}) };
    const decision = await deps.review.review(request);
    if (decision.kind !== 'accepted') {
      return answer({
        status: 'rejected',
        renamed,
        files: prepared.map((q) => q.target.relative),
        rejected_at: prepared[i].target.relative,
        note: 'Nothing was written. Do not retry the same rename; ask the user what they want instead.',
      });
    }
    accepted.push(decision.text);
  }
  // Nothing is written unless every file may be.
  for (const [i, p] of prepared.entries()) {
    const refused = await refusedAfterReview(p, accepted[i], deps);
    if (refused) return errorResult(`Renaming ${renamed} was accepted but nothing was written: ${refused.error}`);
  }
  // The problems are read after the last file is written: between two writes the files disagree.
  const problems = prepared.map((p) => trackChangeDiagnostics(deps.diagnostics, p.target.realPath, deps.diagnosticsWaitMs ?? CHANGE_DIAGNOSTICS_WAIT_MS));
  const written: Array<{ index: number; result: Extract<ChangeResult, { status: 'accepted' }>; savedText: string }> = [];
  const failed: Array<{ path: string; error: string }> = [];
  for (const [i, p] of prepared.entries()) {
    const result = await writeAccepted(p, accepted[i], connectionId, deps);
    if ('error' in result) failed.push(result);
    else written.push({ index: i, ...result });
  }
  const display = (file: string) => prepared.find((p) => p.target.realPath === file)?.target.relative ?? displayPathOf(file, host.folders());
  const finished = await Promise.all(written.map((w) => problems[w.index].finish(prepared[w.index].original ?? '', w.savedText, display)));
  if (failed.length && written.length === 0)
    return errorResult(`Renaming ${renamed} was accepted but nothing was written: ${failed.map((f) => f.error).join(' ')}`);
  if (failed.length) return answer({ status: 'partly written', renamed, written: written.map((w) => w.result.path), not_written: failed });
  // Each file's wait names the files still being checked: one note for the rename names them all once.
  const notes = new Set(finished.map(({ report }) => `Note: ${stillBeingChecked(report.unsettled.map(display))}`));
  const unsettled = [...new Set(finished.flatMap(({ report }) => report.unsettled))];
  const newDiagnostics = [...new Set(finished.flatMap(({ lines }) => lines.filter((line) => !notes.has(line))))];
  if (unsettled.length && finished.some(({ lines }) => lines.some((line) => notes.has(line))))
    newDiagnostics.push(`Note: ${stillBeingChecked(unsettled.map(display))}`);
  return answer({
    status: 'accepted',
    renamed,
    files: written.map(({ index, result: { status: _status, ...rest } }) => ({ ...rest, replacements: files[index].replacements.length })),
    ...(newDiagnostics.length ? { new_diagnostics: newDiagnostics } : {}),
  });
}
