// The problems a change to a file introduced, for write_file/apply_diff's `new_diagnostics`.
//
// Honest means: a problem that was there before and only moved (lines inserted above it) is not new,
// so positions are mapped through the edit's line diff, and a problem whose line was itself rewritten
// still matches when its message, source, code and line text are the same. Problems the change caused
// in other files (an importer of a renamed export) are new too: the files that use the edited one are
// loaded for checking (src/diagnostics/dependentFiles.ts) and waited for within the same wait.

import { diffLines } from 'diff';
import type { CheckedDocuments, DiagnosticItem, DiagnosticsSource, FileDiagnostics, SeverityName } from '../host/diagnostics';
import { pathOfFileUri } from '../workspace/fileUri';
import { settleDiagnostics, type SettleReport } from './settleDiagnostics';
import { DEPENDENTS_MAX, dependentsNotChecked } from './dependentFiles';
import { DEPENDENTS_LOOKUP_MS, stillBeingChecked } from './waitBudgets';

/** The most a write waits for the problems of the file and of the files using it to settle. */
export const CHANGE_DIAGNOSTICS_WAIT_MS = 2000;
/** At most this many new problems of other files are listed (most severe first). */
const OTHER_FILES_LIMIT = 10;
/** After the edited file settled, other files whose problems keep changing are waited for until this quiet. */
const OTHERS_QUIET_MS = 300;

const SEVERITY_ORDER: Record<SeverityName, number> = { Error: 0, Warning: 1, Information: 2, Hint: 3 };

/** 0-based old line → 0-based new line, for the lines the edit kept. */
export function lineMap(oldText: string, newText: string): Map<number, number> {
  const map = new Map<number, number>();
  let oldLine = 0;
  let newLine = 0;
  for (const part of diffLines(oldText, newText)) {
    const count = part.count ?? 0;
    if (part.added) newLine += count;
    else if (part.removed) oldLine += count;
    else {
      for (let i = 0; i < count; i++) map.set(oldLine + i, newLine + i);
      oldLine += count;
      newLine += count;
    }
  }
  return map;
}

const identity = (d: DiagnosticItem) => JSON.stringify([d.message, d.severity, d.source ?? '', d.code ?? '']);
const lineText = (lines: readonly string[], line: number) => (lines[line] ?? '').trim();

/**
 * Problems of the edited file that were not there before the edit. A before-problem matches an
 * after-problem with the same message, severity, source and code when its line maps onto the
 * after-problem's line through the edit, or when the two lines have the same text (the line moved).
 * Each before-problem matches at most once, so a second copy of a problem is new.
 */
export function newProblemsInEditedFile(
  before: readonly DiagnosticItem[],
  after: readonly DiagnosticItem[],
  oldText: string,
  newText: string,
): DiagnosticItem[] {
  const map = lineMap(oldText, newText);
  const oldLines = oldText.split(/\r?\n/);
  const newLines = newText.split(/\r?\n/);
  const unmatched = [...before];
  const added: DiagnosticItem[] = [];
  for (const d of after) {
    const line = d.range.start.line;
    const index = unmatched.findIndex(
      (b) =>
        identity(b) === identity(d) &&
        (map.get(b.range.start.line) === line ||
          (lineText(oldLines, b.range.start.line) !== '' && lineText(oldLines, b.range.start.line) === lineText(newLines, line))),
    );
    if (index >= 0) unmatched.splice(index, 1);
    else added.push(d);
  }
  return added;
}

const exact = (d: DiagnosticItem) => JSON.stringify([d.message, d.severity, d.source ?? '', d.code ?? '', d.range]);

/** New problems of other files (their text did not change, so positions compare as they are), most severe first. */
export function newProblemsInOtherFiles(
  before: readonly FileDiagnostics[],
  after: readonly FileDiagnostics[],
  exclude: ReadonlySet<string>,
): Array<{ path: string; item: DiagnosticItem }> {
  const was = new Map(before.map((f) => [f.uri, f.diagnostics]));
  const added: Array<{ path: string; item: DiagnosticItem }> = [];
  for (const file of after) {
    const filePath = pathOfFileUri(file.uri);
    if (filePath === undefined || exclude.has(filePath)) continue;
    const counts = new Map<string, number>();
    for (const d of was.get(file.uri) ?? []) counts.set(exact(d), (counts.get(exact(d)) ?? 0) + 1);
    for (const d of file.diagnostics) {
      const n = counts.get(exact(d)) ?? 0;
      if (n > 0) counts.set(exact(d), n - 1);
      else added.push({ path: filePath, item: d });
    }
  }
  return added.sort(
    (a, b) =>
      SEVERITY_ORDER[a.item.severity] - SEVERITY_ORDER[b.item.severity] ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
      a.item.range.start.line - b.item.range.start.line,
  );
}

function formatNewProblem(shownPath: string, d: DiagnosticItem): string {
  const origin = [d.source, d.code].filter((s) => s !== undefined && s !== '').join(' ');
  return `[${d.severity}] ${shownPath}:${d.range.start.line + 1}:${d.range.start.character + 1} — ${d.message}${origin ? ` (${origin})` : ''}`;
}

export interface ChangeDiagnostics {
  /** Waits (bounded) for the problems after the write and returns the new ones, formatted; `report` says how the wait went. */
  finish(oldText: string, newText: string, display: (absolutePath: string) => string): Promise<{ lines: string[]; report: SettleReport }>;
}

interface Dependents {
  files: string[];
  more: string[];
  /** Those this check loaded: not checked before the change, so their problems cannot be compared. */
  opened: Set<string>;
}

/**
 * The files that use `file`, found and loaded (a check tab where the checker needs one) as soon as the
 * change is known, so their check runs alongside the write.
 */
async function loadDependents(documents: CheckedDocuments, file: string, answered: () => boolean): Promise<Dependents> {
  const found = await documents.dependentsOf!([file], { limit: DEPENDENTS_MAX, timeoutMs: DEPENDENTS_LOOKUP_MS });
  // Found after the answer went: no check tab may open that nothing would close.
  if (answered()) return { files: [], more: found.more, opened: new Set() };
  const outcomes = await Promise.all(found.files.map((f) => documents.load(f, { show: true }).catch(() => 'skipped' as const)));
  return { ...found, opened: new Set(found.files.filter((_, i) => outcomes[i] === 'opened')) };
}

/** Call before writing `file`: remembers the problems before, to compare with those after. */
export function trackChangeDiagnostics(source: DiagnosticsSource, file: string, waitMs: number): ChangeDiagnostics {
  const before = source.forFile(file);
  const beforeAll = source.all();
  const since = Date.now();
  const documents = source.documents;
  const none: Dependents = { files: [], more: [], opened: new Set() };
  let answered = false;
  const dependents = documents?.dependentsOf ? loadDependents(documents, file, () => answered).catch(() => none) : Promise.resolve(none);
  return {
    async finish(oldText, newText, display) {
      // Finding them started with the write; their check then gets the whole wait.
      let timer: NodeJS.Timeout | undefined;
      const users = await Promise.race([dependents, new Promise<Dependents>((resolve) => (timer = setTimeout(() => resolve(none), waitMs)))]);
      clearTimeout(timer);
      if (users === none) answered = true; // too late for this answer
      const report = await settleDiagnostics(source, [file, ...users.files], { timeoutMs: waitMs, load: 'show', since, othersQuietMs: OTHERS_QUIET_MS });
      answered = true;
      documents?.releaseCheckTabs();
      const own = newProblemsInEditedFile(before, source.forFile(file), oldText, newText).map((d) => formatNewProblem(display(file), d));
      const others = newProblemsInOtherFiles(beforeAll, source.all(), new Set([file]));
      const otherLine = (other: { path: string; item: DiagnosticItem }) =>
        formatNewProblem(display(other.path), other.item) +
        (users.opened.has(other.path) ? ' (in a file that uses it, not checked before this change: the problem may be older)' : '');
      const lines = [...own, ...others.slice(0, OTHER_FILES_LIMIT).map(otherLine)];
      if (others.length > OTHER_FILES_LIMIT)
        lines.push(`… and ${others.length - OTHER_FILES_LIMIT} more new problems in other files (get_diagnostics lists them)`);
      // Only where documents are tracked can "still being checked" be told from "clean" (plain-Node fakes cannot).
      if (documents && report.unsettled.length) lines.push(`Note: ${stillBeingChecked(report.unsettled.map(display))}`);
      if (users.more.length) lines.push(`Note: ${dependentsNotChecked(users.more, display)}`);
      return { lines, report };
    },
  };
}
