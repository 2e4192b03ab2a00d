// list_files: the entries of a workspace folder, as git sees them (.gitignore honoured through
// `rg --files`), capped so a huge tree cannot flood the model (docs/vscode-traps.md, traps 19 and 21).
//
// Decided:
//  - Folders are derived from the files rg lists, so a folder shows up when it holds at least one
//    file that is not ignored (as in git). An ignored or all-ignored folder is left out.
//  - Past the cap, the shallowest entries are kept: a truncated listing still shows the whole top
//    of the tree, and the model can list a subfolder for the rest. Output is in tree order.
//  - Symbolic links are not followed when recursing (loops, trap 21; rg skips them); a
//    non-recursive listing still shows links that sit directly in the folder.

import { promises as fs } from 'fs';
import * as path from 'path';
import { z } from 'zod';
import type { WorkspaceHost } from '../host/workspace';
import { displayPath } from '../workspace/displayPaths';
import { isForbiddenListingRoot, type WorkspacePath } from '../workspace/workspacePaths';
import { cleanRipgrepPath, commonRipgrepArgs, EXCLUDED_FOLDERS, ripgrepMissingMessage, ripgrepTarget, runRipgrep, type RipgrepRun } from './ripgrepRunner';
import { defineTool, errorResult, textResult, type ToolDefinition } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';

export const LIST_LIMIT = 500;
/** A recursive scan stops after this many files; the listing then says it is incomplete. */
const LIST_SCAN_LIMIT = 200_000;
const LIST_TIMEOUT_MS = 30_000;

export interface Listing {
  /** Entries relative to the listed folder, folders ending in `/`, in tree order. */
  entries: string[];
  /** How many entries there were before the cap. */
  total: number;
  truncated: boolean;
}

function slashCount(p: string): number {
  let n = 0;
  for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) n++;
  return n;
}

// The typed-array builtins: the engine's own loops, without a call into Node per line as Buffer's have.
const { indexOf, lastIndexOf } = Uint8Array.prototype;
const NEWLINE = 0x0a;
const DOT = 0x2e;
const SLASH = 0x2f;

/**
 * Collects a recursive listing while rg streams its file paths (`rg --files` output: one path a
 * line, `/`-separated, each file once), so the work overlaps rg's own walk. The output is read as
 * the bytes rg wrote: a path is only decoded into a string when it can be shown (a file) or is a new
 * folder, so a 50,000-line scan makes little garbage (strings cut out of rg's output kept every chunk
 * of it alive, and copying them took the garbage collector about 2.7 ms of the tool's ~6.6 ms own
 * CPU time on a 50,000-file tree).
 * Only folders are hashed. Files are kept by depth, and only at depths that can still be shown: once
 * more than `limit` entries sit at or above some depth, deeper files are only counted. rg prints a
 * folder's files together, so most files share the previous file's folder and cost one comparison.
 */
export class RecursiveListingBuilder {
  /** Files kept, by depth (number of `/` in the path), for depths up to `keepDepth`: where each sits in `chunks` (chunk, from, to). */
  private readonly keptByDepth: Int32List[] = [];
  /** The chunks of rg's output that kept files sit in. */
  private readonly chunks: Buffer[] = [];
  /** Files by depth, all of them. */
  private readonly fileCounts: number[] = [];
  /** Folders (ending in `/`) and their depth. */
  private readonly folders = new Map<string, number>();
  private readonly folderCounts: number[] = [];
  /** Deeper files cannot be shown whatever comes later. */
  private keepDepth = Infinity;
  private sinceCheck = 0;
  /** The folder of the last file: `lastFolderLength` bytes at `lastFolderStart` in `lastFolderIn`. */
  private lastFolderIn: Buffer = Buffer.alloc(0);
  private lastFolderStart = 0;
  private lastFolderLength = -1;
  private lastFolderDepth = -1;
  /** The start of a line whose end is in the next chunk. */
  private tail: Buffer | undefined;
  private readonly skip: Buffer;

  /** `skip`: cut from the start of each path (after a leading `./`) when it is there: the listed folder. */
  constructor(
    private readonly limit = LIST_LIMIT,
    skip = '',
  ) {
    this.skip = Buffer.from(skip);
  }

  /**
   * Adds the lines of the next chunk of rg's output, at most `max` of them (empty lines are not
   * counted); returns how many it added. A line split across chunks is joined.
   */
  addChunk(chunk: Buffer, max = Infinity): number {
    let added = 0;
    let from = 0;
    if (this.tail) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) {
        this.tail = Buffer.concat([this.tail, chunk]);
        return 0;
      }
      added = this.addLines(Buffer.concat([this.tail, chunk.subarray(0, newline + 1)]), 0, max);
      this.tail = undefined;
      from = newline + 1;
    }
    if (added < max) added += this.addLines(chunk, from, max - added);
    if (added === max) return added; // the rest is past the limit, the end of a line included
    const last = chunk.lastIndexOf(NEWLINE);
    if (last < chunk.length - 1) this.tail = Buffer.from(chunk.subarray(last + 1)); // a copy: the chunk itself need not stay
    return added;
  }

  /** Adds the whole lines of `bytes` from `from` on. */
  private addLines(bytes: Buffer, from: number, max: number): number {
    let added = 0;
    const skip = this.skip;
    for (let end = indexOf.call(bytes, NEWLINE, from); end !== -1; end = indexOf.call(bytes, NEWLINE, from)) {
      let start = from;
      from = end + 1;
      if (end === start) continue;
      if (added === max) return added;
      added++;
      if (bytes[start] === DOT && bytes[start + 1] === SLASH) start += 2;
      if (skip.length > 0 && end - start >= skip.length && sameBytes(bytes, start, skip, 0, skip.length)) start += skip.length;
      if (end > start) this.addPath(bytes, start, end);
    }
    return added;
  }

  /** Adds the path `bytes[from, to)` (not empty). */
  private addPath(bytes: Buffer, from: number, to: number): void {
    const slash = lastIndexOf.call(bytes, SLASH, to - 1);
    let depth: number;
    if (slash < from) depth = 0;
    else if (slash + 1 - from === this.lastFolderLength && sameBytes(bytes, from, this.lastFolderIn, this.lastFolderStart, this.lastFolderLength)) {
      depth = this.lastFolderDepth + 1;
    } else {
      const folder = bytes.toString('utf8', from, slash + 1);
      const known = this.folders.get(folder);
      depth = (known ?? slashCount(folder) - 1) + 1;
      if (known === undefined) this.addFolder(folder, depth - 1);
      this.lastFolderIn = bytes;
      this.lastFolderStart = from;
      this.lastFolderLength = slash + 1 - from;
      this.lastFolderDepth = depth - 1;
    }
    this.fileCounts[depth] = (this.fileCounts[depth] ?? 0) + 1;
    if (depth <= this.keepDepth) {
      if (this.chunks[this.chunks.length - 1] !== bytes) this.chunks.push(bytes);
      (this.keptByDepth[depth] ??= new Int32List()).push3(this.chunks.length - 1, from, to);
    }
    if (++this.sinceCheck === 1024) this.narrow();
  }

  /** Adds a folder and the ancestors not seen yet, from the deepest up. */
  private addFolder(folder: string, depth: number): void {
    this.folders.set(folder, depth);
    this.folderCounts[depth] = (this.folderCounts[depth] ?? 0) + 1;
    let d = depth - 1;
    for (let slash = folder.lastIndexOf('/', folder.length - 2); slash > 0; slash = folder.lastIndexOf('/', slash - 1), d--) {
      const parent = folder.slice(0, slash + 1);
      if (this.folders.has(parent)) break;
      this.folders.set(parent, d);
      this.folderCounts[d] = (this.folderCounts[d] ?? 0) + 1;
    }
  }

  private perDepth(): number[] {
    const counts: number[] = [];
    for (let d = 0; d < Math.max(this.fileCounts.length, this.folderCounts.length); d++) counts.push((this.fileCounts[d] ?? 0) + (this.folderCounts[d] ?? 0));
    return counts;
  }

  /** Counts only grow, so the depth where the cap falls can only move up: drop what lies below it. */
  private narrow(): void {
    this.sinceCheck = 0;
    let entries = 0;
    const counts = this.perDepth();
    for (let d = 0; d < counts.length && d < this.keepDepth; d++) {
      entries += counts[d];
      if (entries > this.limit) {
        this.keepDepth = d;
        this.keptByDepth.length = Math.min(this.keptByDepth.length, d + 1);
        return;
      }
    }
  }

  private keptFiles(depth: number): string[] {
    const files: string[] = [];
    const kept = this.keptByDepth[depth];
    if (!kept) return files;
    const { values, length } = kept;
    for (let i = 0; i < length; i += 3) files.push(this.chunks[values[i]].toString('utf8', values[i + 1], values[i + 2]));
    return files;
  }

  /** When there are more than `limit` entries, keeps the shallowest ones (by depth, then path). */
  finish(): Listing {
    if (this.tail) this.addChunk(Buffer.from([NEWLINE])); // output that did not end in a newline: its last line
    const perDepth = this.perDepth();
    const total = perDepth.reduce((a, b) => a + b, 0);
    // The depth where the cap falls: everything above it is kept, that level is filled in path order.
    let cutoff = 0;
    let kept = 0;
    while (cutoff < perDepth.length && kept + perDepth[cutoff] <= this.limit) kept += perDepth[cutoff++];
    const chosen: string[] = [];
    for (let d = 0; d < cutoff; d++) chosen.push(...this.keptFiles(d));
    const atCutoff: string[] = cutoff < perDepth.length ? this.keptFiles(cutoff) : [];
    for (const [folder, depth] of this.folders) {
      if (depth < cutoff) chosen.push(folder);
      else if (depth === cutoff) atCutoff.push(folder);
    }
    // Entries are sorted in plain UTF-16 code-unit order, the default sort's (no call per comparison):
    // deterministic, and every folder's entries come right after the folder.
    chosen.push(...atCutoff.sort().slice(0, this.limit - kept));
    return { entries: chosen.sort(), total, truncated: total > this.limit };
  }
}

/** A list of int32 that grows in place: pushing a big listing's 150,000 numbers onto a plain array took about half of the builder's time. */
class Int32List {
  values = new Int32Array(3 * 256);
  length = 0;

  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.values.length) {
      const grown = new Int32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    const values = this.values;
    values[this.length] = a;
    values[this.length + 1] = b;
    values[this.length + 2] = c;
    this.length += 3;
  }
}

/** Whether `a[aStart, +length)` and `b[bStart, +length)` hold the same bytes; compared from the end, where sibling folders differ. */
function sameBytes(a: Buffer, aStart: number, b: Buffer, bStart: number, length: number): boolean {
  for (let i = length - 1; i >= 0; i--) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/** The listing as the model reads it: one entry a line, paths relative to the workspace folder. */
export function formatListing(listing: Listing, prefix: string, notes: readonly string[] = []): string {
  const lines = listing.entries.map((entry) => prefix + entry);
  if (lines.length === 0) lines.push('(no entries: the folder is empty, or everything in it is ignored by .gitignore)');
  if (listing.truncated) {
    lines.push(`truncated: true — ${listing.entries.length} of ${listing.total} entries shown (the shallowest first). List a subfolder to see the rest.`);
  }
  return [...lines, ...notes].join('\n');
}

function stripPrefix(p: string, prefix: string): string {
  return prefix !== '' && p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

function scanNotes(run: RipgrepRun, what: string): string[] {
  const notes: string[] = [];
  if (run.stopped === 'limit')
    notes.push(`truncated: true — the folder has more than ${LIST_SCAN_LIMIT} files; ${what} only the first ${LIST_SCAN_LIMIT} found.`);
  if (run.stopped === 'timeout') notes.push(`truncated: true — listing was stopped after ${LIST_TIMEOUT_MS / 1000} s; ${what} the files found until then.`);
  if (run.exitCode === 2 && run.stderr.trim() !== '') notes.push(`Some folders could not be read: ${run.stderr.trim().split('\n')[0].replace(/^rg: /, '')}`);
  return notes;
}

const inputSchema = z
  .object({
    path: z.string().min(1).describe('Folder to list, relative to the workspace folder, e.g. "." or "src/components".'),
    recursive: z.boolean().optional().describe('List everything below the folder instead of only its direct entries. Default false.'),
  })
  .strict();

export function listFilesTool(host: WorkspaceHost): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'list_files',
    title: 'List files',
    description:
      'List the files and folders in a workspace folder: one entry a line, folders end with "/", paths relative to the workspace folder (usable with read_file). ' +
      'By default only the direct entries; recursive: true lists the whole tree below. ' +
      `At most ${LIST_LIMIT} entries are returned; a longer listing keeps the shallowest entries and ends with "truncated: true", then list a subfolder. ` +
      'Entries ignored by .gitignore, folders such as node_modules and .git, and folders with no files in them are left out. ' +
      'The file system root and the home folder cannot be listed. Use it instead of ls or find in a shell: .gitignore is honoured and the output is bounded.',
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ path: input, recursive = false }, context) => {
      const folders = host.folders();
      const target = await workspaceTarget(host, input, { mustExist: true });
      if ('error' in target) return errorResult(target.error);
      const rg = host.ripgrepPath();
      // Where rg runs is looked up while the folder is checked: each is a trip to the file system's thread pool.
      const rgWhere = rg ? ripgrepTarget(target) : undefined;
      rgWhere?.catch(() => undefined); // not awaited when the checks below refuse the path
      const stat = await fs.stat(target.realPath);
      if (!stat.isDirectory()) return errorResult(`"${input}" is a file, not a folder. Use read_file to read it, or list its folder.`);
      if (isForbiddenListingRoot(target.realPath)) {
        return errorResult(
          `Listing "${input}" is refused: it is the file system root or the home folder, far too large to list. List a project folder inside it instead.`,
        );
      }
      const shown = displayPath(target.folder, target.relative, folders.length);
      const prefix = shown === '' ? '' : `${shown}/`;

      if (recursive) {
        if (!rg || !rgWhere) return errorResult(ripgrepMissingMessage());
        return listRecursive(rg, await rgWhere, target, prefix, context.signal);
      }
      return listDirect(rg && rgWhere ? { rg, where: rgWhere } : undefined, target, prefix, context.signal);
    },
  });
}

type RipgrepWhere = Awaited<ReturnType<typeof ripgrepTarget>>;

async function listRecursive(rg: string, { cwd, start }: RipgrepWhere, target: WorkspacePath, prefix: string, signal: AbortSignal) {
  const listing = new RecursiveListingBuilder(LIST_LIMIT, target.relative === '' ? '' : `${target.relative}/`);
  let files = 0;
  // `/` on every platform, so paths need no rewriting; rg's output is read as bytes (50k lines, few kept).
  const run = await runRipgrep(rg, ['--files', '--path-separator', '/', ...commonRipgrepArgs(), '--', start], {
    cwd,
    signal,
    timeoutMs: LIST_TIMEOUT_MS,
    onChunk: (chunk) => {
      files += listing.addChunk(chunk, LIST_SCAN_LIMIT - files);
      return files < LIST_SCAN_LIMIT;
    },
  });
  if (run.spawnError) return errorResult(`ripgrep could not be started (${rg}): ${run.spawnError.message}`);
  if (files === 0 && run.exitCode === 2) return errorResult(`The folder could not be listed: ${run.stderr.trim().replace(/^rg: /gm, '')}`);
  return textResult(formatListing(listing.finish(), prefix, scanNotes(run, 'the listing covers')));
}

/**
 * Direct entries. Files: what `rg --files --max-depth 1` lists. Folders: those in which a full
 * scan finds a file; the scan stops as soon as every candidate folder has been seen.
 */
async function listDirect(ripgrep: { rg: string; where: Promise<RipgrepWhere> } | undefined, target: WorkspacePath, prefix: string, signal: AbortSignal) {
  const excluded = new Set(EXCLUDED_FOLDERS);
  const dirents = await fs.readdir(target.realPath, { withFileTypes: true });
  const candidateDirs = new Set<string>();
  const links: string[] = [];
  const plainFiles: string[] = [];
  for (const dirent of dirents) {
    if (excluded.has(dirent.name)) continue;
    if (dirent.isDirectory()) candidateDirs.add(dirent.name);
    else if (dirent.isSymbolicLink()) {
      const linked = await fs.stat(path.join(target.realPath, dirent.name)).catch(() => undefined);
      links.push(linked?.isDirectory() ? `${dirent.name}/` : dirent.name);
    } else plainFiles.push(dirent.name);
  }

  if (!ripgrep) {
    const entries = [...[...candidateDirs].map((d) => `${d}/`), ...plainFiles, ...links].sort();
    return textResult(
      formatListing(capped(entries), prefix, [
        "Note: .gitignore was not applied (VS Code's ripgrep was not found); only folders like node_modules and .git were left out.",
      ]),
    );
  }

  const { rg } = ripgrep;
  const { cwd, start } = await ripgrep.where;
  const base = target.relative === '' ? '' : `${target.relative}/`;
  const files: string[] = [];
  const seenDirs = new Set<string>();
  const [fileRun, dirRun] = await Promise.all([
    runRipgrep(rg, ['--files', '--max-depth', '1', ...commonRipgrepArgs(), '--', start], {
      cwd,
      signal,
      timeoutMs: LIST_TIMEOUT_MS,
      onLine: (line) => void (line !== '' && files.push(stripPrefix(cleanRipgrepPath(line), base))),
    }),
    candidateDirs.size === 0
      ? undefined
      : (() => {
          let scanned = 0;
          return runRipgrep(rg, ['--files', ...commonRipgrepArgs(), '--', start], {
            cwd,
            signal,
            timeoutMs: LIST_TIMEOUT_MS,
            onLine: (line) => {
              const rel = stripPrefix(cleanRipgrepPath(line), base);
              const slash = rel.indexOf('/');
              if (slash > 0) {
                const top = rel.slice(0, slash);
                if (candidateDirs.has(top)) seenDirs.add(top);
              }
              return seenDirs.size < candidateDirs.size && ++scanned < LIST_SCAN_LIMIT;
            },
          });
        })(),
  ]);
  if (fileRun.spawnError) return errorResult(`ripgrep could not be started (${rg}): ${fileRun.spawnError.message}`);

  const notes = scanNotes(fileRun, 'the listing shows');
  let dirs = seenDirs;
  if (dirRun && (dirRun.stopped === 'timeout' || (dirRun.stopped === 'limit' && seenDirs.size < candidateDirs.size))) {
    // The scan did not finish: a folder not seen yet may still hold files, so show it.
    dirs = candidateDirs;
    notes.push('Note: the folder is very large; subfolders are shown without checking whether .gitignore leaves anything in them.');
  }
  const entries = [...[...dirs].map((d) => `${d}/`), ...files, ...links].sort();
  return textResult(formatListing(capped(entries), prefix, notes));
}

function capped(entries: string[]): Listing {
  return entries.length <= LIST_LIMIT
    ? { entries, total: entries.length, truncated: false }
    : { entries: entries.slice(0, LIST_LIMIT), total: entries.length, truncated: true };
}
