// The files that use a changed file: a change to a signature, an export or a type breaks them, yet
// language servers re-check only the files they have open (TypeScript: only files in tabs). Found with
// the language server's own knowledge (references to what the file declares) and, for what that misses
// (a renamed export: its old name has no references left; languages without references), the import
// specifiers that resolve to the file. Plain TypeScript: the VS Code adapter asks the servers and lists
// the candidate sources (src/vscode/dependentFiles.ts).

import * as path from 'path';
import type { DiagnosticsSource } from '../host/diagnostics';
import { openRegularFile } from '../workspace/readTextIfExists';
import { settleDiagnostics, type SettleOptions } from './settleDiagnostics';
import { DEPENDENTS_LOOKUP_MS } from './waitBudgets';

/** The most files that use the changed files one answer loads and waits for; the rest are named as unchecked. */
export const DEPENDENTS_MAX = 10;

/** Extensions a specifier may leave out, in TypeScript's order. */
const RESOLVED_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.vue', '.svelte', '.json'];
/** `import … from '…'`, `export … from '…'`, `import '…'`, `require('…')`, `import('…')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"\n]{1,500})\1/g;
/** Only the start of a file is read for its imports (they come first; bounds a huge generated file). */
const IMPORT_SCAN_MAX_CHARS = 200_000;

/** The relative import specifiers of a JS/TS source ('./math', '../lib/index.js'); bare package names are skipped. */
export function relativeSpecifiers(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.slice(0, IMPORT_SCAN_MAX_CHARS).matchAll(SPECIFIER)) {
    const specifier = match[2];
    if (specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..') found.add(specifier);
  }
  return [...found];
}

/**
 * The files a relative specifier in `importer` may resolve to, as TypeScript and Node resolve it: the
 * path itself, with each extension, a `.js` written for a `.ts` source, or the folder's index.
 */
export function resolutionCandidates(importer: string, specifier: string): string[] {
  const base = path.resolve(path.dirname(importer), specifier);
  const candidates = [base, ...RESOLVED_EXTENSIONS.map((ext) => base + ext), ...RESOLVED_EXTENSIONS.map((ext) => path.join(base, 'index' + ext))];
  const jsLike = /\.([cm]?)js(x?)$/.exec(base);
  if (jsLike) {
    const stem = base.slice(0, -jsLike[0].length);
    candidates.push(`${stem}.${jsLike[1]}ts${jsLike[2]}`, `${stem}.d.${jsLike[1]}ts`);
  }
  return candidates;
}

/** Which of `targets` a source imports (relative specifiers only). */
export function importedTargets(importer: string, text: string, targets: ReadonlySet<string>): string[] {
  const hits = new Set<string>();
  for (const specifier of relativeSpecifiers(text)) {
    for (const candidate of resolutionCandidates(importer, specifier)) if (targets.has(candidate)) hits.add(candidate);
  }
  return [...hits];
}

/** Files read at once while looking for importers. */
const READ_AT_ONCE = 16;
/** A larger source is not read for its imports (generated bundles). */
const SOURCE_MAX_BYTES = 1024 * 1024;

/** The start of a regular file (bounded: a FIFO or device is never read, nor a huge file). */
async function readStart(file: string): Promise<string | undefined> {
  // The workspace's opener: non-blocking open (a FIFO swapped in after a stat would block), regular files within the cap.
  const handle = await openRegularFile(file, file, SOURCE_MAX_BYTES).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(Math.min((await handle.stat()).size, IMPORT_SCAN_MAX_CHARS));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Of `sources`, those whose relative imports resolve to one of `changed` (reads stop once `stopped()`). */
export async function importersAmong(sources: readonly string[], changed: readonly string[], stopped: () => boolean = () => false): Promise<string[]> {
  const targets = new Set(changed);
  const importers: string[] = [];
  for (let i = 0; i < sources.length && !stopped(); i += READ_AT_ONCE) {
    await Promise.all(
      sources.slice(i, i + READ_AT_ONCE).map(async (file) => {
        if (targets.has(file)) return;
        const text = await readStart(file);
        if (text !== undefined && importedTargets(file, text, targets).length) importers.push(file);
      }),
    );
  }
  return importers;
}

/** What is known about one file that uses a changed file. */
export interface DependentEvidence {
  /** References the language server found in it to what the changed files declare. */
  references: number;
  /** It imports a changed file by a relative path. */
  imports: boolean;
}

/**
 * Most relevant first: files that import a changed file and use it (references), then by the number
 * of references, then files nearest a changed file (same folder first), then by path. Changed files
 * themselves are not their own dependents.
 */
export function rankDependents(found: ReadonlyMap<string, DependentEvidence>, changed: readonly string[]): string[] {
  const changedSet = new Set(changed);
  const distance = (file: string) => Math.min(...changed.map((c) => path.relative(path.dirname(c), path.dirname(file)).split(path.sep).filter(Boolean).length));
  return [...found]
    .filter(([file]) => !changedSet.has(file))
    .sort(([a, ea], [b, eb]) => {
      const score = (e: DependentEvidence) => (e.imports ? 1 : 0) + (e.references > 0 ? 1 : 0);
      return score(eb) - score(ea) || eb.references - ea.references || distance(a) - distance(b) || (a < b ? -1 : a > b ? 1 : 0);
    })
    .map(([file]) => file);
}

/** The sentence naming files that use the changed ones which were not checked (the answer's note). */
export function dependentsNotChecked(files: readonly string[], display: (file: string) => string = (f) => f): string {
  const shown = files.slice(0, 10).map(display).join(', ');
  const more = files.length > 10 ? `, and ${files.length - 10} more` : '';
  return `not checked: ${files.length} more file${files.length === 1 ? '' : 's'} that use${files.length === 1 ? 's' : ''} the changed files (at most ${DEPENDENTS_MAX} are checked per answer; ask about a file by its path to check it): ${shown}${more}`;
}

/** What checking the changed files and the files that use them came to. */
export interface ChangedFilesCheck {
  /** The changed files and their dependents that were loaded and waited for. */
  waitedFor: string[];
  /** Of those, the files still being checked when the time ran out. */
  unsettled: string[];
  /** Files that use the changed ones beyond DEPENDENTS_MAX: not loaded, not checked. */
  notChecked: string[];
}

/**
 * The model's whole-workspace questions: the files changed on disk since its last call and the files
 * that use them (at most DEPENDENTS_MAX, most relevant first) are loaded, in a check tab where the
 * checker needs one, and waited for. `inScope` keeps dependents to the folder asked about.
 */
export async function settleChangedFiles(
  source: DiagnosticsSource,
  changed: readonly string[],
  options: { timeoutMs: number; onWaiting?: SettleOptions['onWaiting']; inScope?: (file: string) => boolean },
): Promise<ChangedFilesCheck> {
  const started = Date.now();
  const documents = source.documents;
  let dependents: string[] = [];
  let notChecked: string[] = [];
  if (documents?.dependentsOf && changed.length) {
    const found = await documents.dependentsOf(changed, { limit: Number.MAX_SAFE_INTEGER, timeoutMs: Math.min(DEPENDENTS_LOOKUP_MS, options.timeoutMs / 2) });
    const inScope = found.files.filter((f) => !options.inScope || options.inScope(f));
    dependents = inScope.slice(0, DEPENDENTS_MAX);
    notChecked = inScope.slice(DEPENDENTS_MAX);
  }
  const waitedFor = [...changed, ...dependents];
  const report = await settleDiagnostics(source, waitedFor, {
    timeoutMs: Math.max(0, options.timeoutMs - (Date.now() - started)),
    load: 'show',
    onWaiting: options.onWaiting,
  });
  return { waitedFor, unsettled: report.unsettled, notChecked };
}
