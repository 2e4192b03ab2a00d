// Which files use a changed file, asked of VS Code (docs/diagnostics.md, "Files that use a changed
// file"): the references its language server finds to what the file declares at its top level, and the
// workspace's JS/TS sources whose relative imports resolve to it (what references miss: a renamed
// export, whose old name has nothing left to point at; languages without a reference provider).

import * as vscode from 'vscode';
import { importersAmong, rankDependents, type DependentEvidence } from '../../diagnostics/dependentFiles';

const SOURCES = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,vue,svelte,astro}';
const NOT_SOURCES = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**,**/build/**}';
/** The most sources whose imports are read per lookup. */
const SOURCES_MAX = 5000;
/** The most top-level declarations of one changed file whose references are asked for. */
const SYMBOLS_MAX = 30;

type Found = Map<string, DependentEvidence>;

function evidence(found: Found, file: string): DependentEvidence {
  let e = found.get(file);
  if (!e) found.set(file, (e = { references: 0, imports: false }));
  return e;
}

/** References in other files to the top-level declarations of `file`, as its language server knows them. */
async function referencesTo(file: string, found: Found, stopped: () => boolean): Promise<void> {
  const uri = vscode.Uri.file(file);
  const symbols = await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation> | undefined>(
    'vscode.executeDocumentSymbolProvider',
    uri,
  );
  const positions = (symbols ?? []).slice(0, SYMBOLS_MAX).map((s) => ('selectionRange' in s ? s.selectionRange.start : s.location.range.start));
  for (const position of positions) {
    if (stopped()) return;
    const locations = await vscode.commands.executeCommand<vscode.Location[] | undefined>('vscode.executeReferenceProvider', uri, position);
    for (const location of locations ?? []) {
      if (location.uri.scheme === 'file' && location.uri.fsPath !== file) evidence(found, location.uri.fsPath).references++;
    }
  }
}

/** The workspace's sources whose relative imports resolve to one of `changed`. */
async function importersOf(changed: readonly string[], found: Found, stopped: () => boolean): Promise<void> {
  const sources = (await vscode.workspace.findFiles(SOURCES, NOT_SOURCES, SOURCES_MAX)).filter((u) => u.scheme === 'file').map((u) => u.fsPath);
  for (const file of await importersAmong(sources, changed, stopped)) evidence(found, file).imports = true;
}

/**
 * Files that use `changed`, most relevant first (CheckedDocuments.dependentsOf). Both searches run at
 * once; when `timeoutMs` is up, what was found so far counts (a language server still loading its
 * project answers late; the imports are read in milliseconds).
 */
export async function dependentsOf(changed: readonly string[], options: { limit: number; timeoutMs: number }): Promise<{ files: string[]; more: string[] }> {
  const found: Found = new Map();
  if (changed.length === 0) return { files: [], more: [] };
  let timedOut = false;
  const stopped = () => timedOut;
  const searches = Promise.all([
    ...changed.map((file) => referencesTo(file, found, stopped).catch(() => undefined)),
    importersOf(changed, found, stopped).catch(() => undefined),
  ]);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([searches, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, options.timeoutMs))))]);
  clearTimeout(timer);
  timedOut = true;
  const ranked = rankDependents(new Map(found), changed);
  return { files: ranked.slice(0, options.limit), more: ranked.slice(options.limit) };
}
