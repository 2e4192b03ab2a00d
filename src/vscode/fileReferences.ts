// Which files use a changed file, asked of VS Code (docs/diagnostics.md, "Files that use a changed
// file"): the references its language server finds to what the file declares at its top level, and the
// workspace's JS/TS sources whose relative imports resolve to it (what references miss: a renamed
// export, whose old name has nothing left to point at; languages without a reference provider).

import { promises as fs } from 'fs';
import * as vscode from 'vscode';
import { importedTargets, IMPORT_SCAN_MAX_CHARS, rankDependents, type DependentEvidence } from '../diagnostics/dependentFiles';

const SOURCES = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,vue,svelte,astro}';
const NOT_SOURCES = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**,**/build/**}';
/** The most sources whose imports are read per lookup, and files read at once. */
const SOURCES_MAX = 5000;
const READ_AT_ONCE = 16;
/** A larger source is not read for its imports (generated bundles). */
const SOURCE_MAX_BYTES = 1024 * 1024;
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
  const symbols = await vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation> | undefined>('vscode.executeDocumentSymbolProvider', uri);
  const positions = (symbols ?? [])
    .slice(0, SYMBOLS_MAX)
    .map((s) => ('selectionRange' in s ? s.selectionRange.start : s.location.range.start));
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
  const targets = new Set(changed);
  const sources = (await vscode.workspace.findFiles(SOURCES, NOT_SOURCES, SOURCES_MAX)).filter((u) => u.scheme === 'file');
  for (let i = 0; i < sources.length && !stopped(); i += READ_AT_ONCE) {
    await Promise.all(
      sources.slice(i, i + READ_AT_ONCE).map(async (source) => {
        const file = source.fsPath;
        if (targets.has(file)) return;
        const text = await readStart(file);
        if (text !== undefined && importedTargets(file, text, targets).length) evidence(found, file).imports = true;
      }),
    );
  }
}

/** The start of a regular file (bounded: a FIFO or device is never read, nor a huge file). */
async function readStart(file: string): Promise<string | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile() || stat.size > SOURCE_MAX_BYTES) return undefined;
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(Math.min(stat.size, IMPORT_SCAN_MAX_CHARS));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
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
