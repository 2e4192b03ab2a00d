// The workspace boundary for every path a tool receives (docs/vscode-traps.md, traps 21-22).
//
// The check is made on real paths: symbolic links are resolved with fs.realpath first, for the
// workspace folders too, so a link inside the workspace that points outside is outside. A path
// that does not exist yet is resolved through its nearest existing ancestor (and through a
// dangling link, whose target is where a write would land).
//
// Relative paths, decided:
//  - Multi-root: if the first segment is the name of a workspace folder (VS Code's
//    `folderName/sub/file` convention, as in `asRelativePath(…, true)`), that folder is tried first
//    with the rest of the path.
//  - Then the path is tried against every folder, in order.
//  - The first candidate that exists inside the workspace wins; when none exists (a new file), the
//    first candidate inside the workspace does (the named folder, else the first folder).
// `~` and `~/…` mean the home folder (and are then usually outside). `file://` URIs are accepted.
//
// Use `realPath` for file system access: it is the path that was checked.

import { promises as fs, realpathSync, type BigIntStats } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { fileURLToPath } from 'url';
import type { WorkspaceFolderView } from './displayPaths';

/** A folder path, or a folder with its VS Code display name (which a `.code-workspace` can set). */
export type WorkspaceFolderInput = string | { readonly path: string; readonly name?: string };

export interface ResolveInWorkspaceOptions {
  /** Decides case sensitivity: paths are compared case-insensitively on 'win32'. Default: this OS. */
  platform?: NodeJS.Platform;
  /** Fail with NOT_FOUND when the path does not exist. Default false (new files are allowed). */
  mustExist?: boolean;
}

export interface WorkspacePath {
  /** The path as asked for, made absolute and normalised, symlinks not resolved. */
  absolute: string;
  /** The real path (symlinks resolved): the one that was checked, the one to use for I/O. */
  realPath: string;
  /** The workspace folder containing it, as it was given (the innermost one if folders nest). */
  folder: string;
  /** Path from that folder's real path, with forward slashes; '' for the folder itself. */
  relative: string;
  exists: boolean;
}

export type WorkspacePathErrorCode = 'NO_WORKSPACE' | 'INVALID_PATH' | 'OUTSIDE_WORKSPACE' | 'NOT_FOUND' | 'CHANGED';

export class WorkspacePathError extends Error {
  override readonly name = 'WorkspacePathError';
  constructor(
    readonly code: WorkspacePathErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// Linux's own limit on links followed while resolving one path.
const MAX_SYMLINK_HOPS = 40;

interface Root {
  given: string;
  name: string;
  real: string;
  segments: string[];
}

interface Candidate {
  absolute: string;
  real: string;
  exists: boolean;
  root: Root | undefined;
}

function segmentsOf(p: string): string[] {
  return p.split(path.sep).filter((s) => s !== '');
}

function sameName(a: string, b: string, ignoreCase: boolean): boolean {
  return ignoreCase ? a.toUpperCase() === b.toUpperCase() : a === b;
}

function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
}

function resolutionError(p: string, err: unknown): WorkspacePathError {
  if (isErrno(err, 'ELOOP')) {
    return new WorkspacePathError('INVALID_PATH', `Cannot resolve "${p}": it goes through a loop of symbolic links. Use another path.`);
  }
  const reason = err instanceof Error ? err.message : String(err);
  return new WorkspacePathError('INVALID_PATH', `Cannot resolve "${p}": ${reason}`);
}

/**
 * fs.realpath that also works for paths that do not exist yet: the nearest existing ancestor is
 * resolved and the missing rest appended. A dangling symlink on the way is followed to its target.
 */
async function realpathAllowingMissing(p: string, hops = 0): Promise<{ real: string; exists: boolean }> {
  try {
    return { real: await fs.realpath(p), exists: true };
  } catch (err) {
    if (!isErrno(err, 'ENOENT', 'ENOTDIR')) throw resolutionError(p, err);
  }

  const missing: string[] = [];
  let current = p;
  for (;;) {
    const parent = path.dirname(current);
    if (parent === current) return { real: p, exists: false }; // not even the root exists
    missing.unshift(path.basename(current));
    let parentReal: string;
    try {
      parentReal = await fs.realpath(parent);
    } catch (err) {
      if (!isErrno(err, 'ENOENT', 'ENOTDIR')) throw resolutionError(p, err);
      current = parent;
      continue;
    }
    // realpath failed below an existing folder: the first missing entry may be a dangling link,
    // and writing through it would create its target, wherever that is.
    const firstMissing = path.join(parentReal, missing[0]);
    const stat = await fs.lstat(firstMissing).catch(() => undefined);
    if (stat?.isSymbolicLink()) {
      if (hops >= MAX_SYMLINK_HOPS) throw resolutionError(p, Object.assign(new Error('loop'), { code: 'ELOOP' }));
      const target = path.resolve(parentReal, await fs.readlink(firstMissing));
      const resolved = await realpathAllowingMissing(path.join(target, ...missing.slice(1)), hops + 1);
      return { real: resolved.real, exists: false };
    }
    return { real: path.join(parentReal, ...missing), exists: false };
  }
}

function parseInput(input: string): string {
  if (typeof input !== 'string' || input.trim() === '') {
    throw new WorkspacePathError('INVALID_PATH', 'The path is empty. Give a path relative to the workspace folder, e.g. "src/index.ts".');
  }
  if (input.includes('\0')) {
    throw new WorkspacePathError('INVALID_PATH', 'The path contains a NUL character. Give a plain file path.');
  }
  if (/^file:\/\//i.test(input)) {
    try {
      return fileURLToPath(input);
    } catch {
      throw new WorkspacePathError('INVALID_PATH', `"${input}" is not a valid file URI for this system. Give a plain file path.`);
    }
  }
  if (input === '~' || input.startsWith('~/') || (path.sep === '\\' && input.startsWith('~\\'))) {
    return path.join(os.homedir(), input.slice(1));
  }
  return input;
}

function containingRoot(real: string, roots: readonly Root[], ignoreCase: boolean): Root | undefined {
  const segments = segmentsOf(real);
  let best: Root | undefined;
  for (const root of roots) {
    if (root.segments.length > segments.length) continue;
    if (!root.segments.every((s, i) => sameName(s, segments[i], ignoreCase))) continue;
    if (!best || root.segments.length > best.segments.length) best = root;
  }
  return best;
}

/** A folder as given: what the candidates of a relative path need (not its real path). */
type GivenRoot = Pick<Root, 'given' | 'name'>;

function givenRoots(folders: readonly WorkspaceFolderInput[]): GivenRoot[] {
  return folders.map((folder) => {
    const given = typeof folder === 'string' ? folder : folder.path;
    return { given, name: (typeof folder === 'string' ? undefined : folder.name) ?? path.basename(given) };
  });
}

function relativeCandidates(relative: string, roots: readonly GivenRoot[], ignoreCase: boolean): string[] {
  const candidates: string[] = [];
  if (roots.length > 1) {
    const [first, ...rest] = relative.split(path.sep === '\\' ? /[\\/]/ : '/');
    for (const root of roots) {
      if (!sameName(root.name, first, ignoreCase)) continue;
      const named = path.resolve(root.given, ...rest);
      // `root2/../x` means root2's parent: it must not fall back to `x` in another folder.
      const fromRoot = path.relative(root.given, named);
      if (fromRoot === '..' || fromRoot.startsWith(`..${path.sep}`)) return [named];
      candidates.push(named);
    }
  }
  for (const root of roots) candidates.push(path.resolve(root.given, relative));
  return [...new Set(candidates)];
}

function folderList(roots: readonly Root[]): string {
  return roots.map((r) => r.given).join(', ');
}

/**
 * Resolves a tool's path argument and checks it is inside a workspace folder.
 * Throws {@link WorkspacePathError}: NO_WORKSPACE, INVALID_PATH, OUTSIDE_WORKSPACE, NOT_FOUND.
 */
export async function resolveInWorkspace(
  input: string,
  folders: readonly WorkspaceFolderInput[],
  options: ResolveInWorkspaceOptions = {},
): Promise<WorkspacePath> {
  return resolveAgainst(input, folders, rootsOf(folders), options);
}

/** An existing file inside the workspace, as existingFile finds it. */
export interface ExistingFile {
  /** Its real path (no symbolic link in it when it was looked up). */
  realPath: string;
  /** The file's own stat (of what a link names, for a link), taken with the lookup. */
  stat: BigIntStats;
}

/** resolveInWorkspace for many paths, and the same folders as paths are shown (displayPathOf's views). */
export interface WorkspaceResolver {
  (input: string, options?: ResolveInWorkspaceOptions): Promise<WorkspacePath>;
  /** Each folder by the path given and its real path (none without folders): the lookup the resolving uses. */
  folderViews(): Promise<WorkspaceFolderView[]>;
  /**
   * An absolute path of an existing file, when it is inside the workspace after symlinks (as the resolver
   * decides with mustExist), with its stat; else undefined (outside, missing, or not resolvable). For many
   * files in few folders (a language answer's locations): each folder's real path is looked up once per
   * resolver while the file's own entry is lstat'ed (one system call, where a realpath makes one per path
   * component); a name that is itself a symbolic link is resolved whole.
   */
  existingFile(file: string): Promise<ExistingFile | undefined>;
}

/**
 * resolveInWorkspace for many paths in a row (the locations of one tool call's answer): the folders'
 * real paths are looked up once, at the first path or folderViews(); each path itself is resolved
 * (symlinks followed) every time.
 */
export function workspaceResolver(folders: readonly WorkspaceFolderInput[]): WorkspaceResolver {
  let roots: Promise<Root[]> | undefined;
  const rootsAsked = () => (roots ??= rootsOf(folders));
  const resolve = (input: string, options: ResolveInWorkspaceOptions = {}) => resolveAgainst(input, folders, rootsAsked(), options);
  const realDirs = new Map<string, Promise<string | undefined>>();
  const existingFile = async (file: string): Promise<ExistingFile | undefined> => {
    if (!path.isAbsolute(file) || file.includes('\0')) return undefined;
    const absolute = path.resolve(file);
    const dir = path.dirname(absolute);
    let realDir = realDirs.get(dir);
    if (!realDir) realDirs.set(dir, (realDir = fs.realpath(dir).catch(() => undefined)));
    // The entry's lstat while its folder's real path is looked up: it is the entry in that folder.
    const [own, inDir, roots] = await Promise.all([fs.lstat(absolute, { bigint: true }).catch(() => undefined), realDir, rootsAsked().catch(() => undefined)]);
    if (!own || !roots) return undefined;
    if (own.isSymbolicLink()) {
      const resolved = await resolve(absolute, { mustExist: true }).catch(() => undefined);
      const stat = resolved && (await fs.stat(resolved.realPath, { bigint: true }).catch(() => undefined));
      return resolved && stat && { realPath: resolved.realPath, stat };
    }
    if (inDir === undefined) return undefined;
    const realPath = path.join(inDir, path.basename(absolute));
    return containingRoot(realPath, roots, process.platform === 'win32') ? { realPath, stat: own } : undefined;
  };
  return Object.assign(resolve, { folderViews: () => viewsOf(folders, rootsAsked), existingFile });
}

/** The workspace folders as displayPathOf takes them: each by the path given and its real path. */
export function workspaceFolderViews(folders: readonly WorkspaceFolderInput[]): Promise<WorkspaceFolderView[]> {
  return viewsOf(folders, () => rootsOf(folders));
}

/** A folder whose real path cannot be looked up (no access, a loop) is shown by the path given: showing a path needs no check. */
async function viewsOf(folders: readonly WorkspaceFolderInput[], rootsAsked: () => Promise<Root[]>): Promise<WorkspaceFolderView[]> {
  if (folders.length === 0) return [];
  const roots = await rootsAsked().catch(() =>
    Promise.all(
      givenRoots(folders).map(async (root) => ({
        ...root,
        real: (await realpathAllowingMissing(path.resolve(root.given)).catch(() => undefined))?.real ?? root.given,
      })),
    ),
  );
  return roots.map(({ given, real, name }) => ({ paths: real === given ? [given] : [given, real], name }));
}

async function rootsOf(folders: readonly WorkspaceFolderInput[]): Promise<Root[]> {
  if (folders.length === 0) {
    throw new WorkspacePathError(
      'NO_WORKSPACE',
      'No workspace folder open, so no file path can be used. Ask the user to open a folder in VS Code (File > Open Folder), then retry.',
    );
  }
  return Promise.all(
    givenRoots(folders).map(async ({ given, name }) => {
      const { real } = await realpathAllowingMissing(path.resolve(given));
      return { given, name, real, segments: segmentsOf(real) };
    }),
  );
}

async function resolveAgainst(
  input: string,
  folders: readonly WorkspaceFolderInput[],
  rootsAsked: Promise<Root[]>,
  options: ResolveInWorkspaceOptions,
): Promise<WorkspacePath> {
  // Awaited below unless the path is refused first: its failure must not go unhandled then.
  rootsAsked.catch(() => undefined);
  // No folder: that error comes first, whatever the path.
  if (folders.length === 0) await rootsAsked;
  const ignoreCase = (options.platform ?? process.platform) === 'win32';
  const requested = parseInput(input);

  const absolutes = path.isAbsolute(requested) ? [path.resolve(requested)] : relativeCandidates(requested, givenRoots(folders), ignoreCase);
  // The candidates' real paths are looked up while the folders' are (neither needs the other: one
  // round trip to the file system instead of two), and still taken in order below: a later one's
  // failure counts only when the ones before it did not resolve inside.
  const reals = absolutes.map((absolute) => realpathAllowingMissing(absolute));
  for (const real of reals) real.catch(() => undefined);
  const roots = await rootsAsked;
  const candidates: Candidate[] = [];
  for (const [i, absolute] of absolutes.entries()) {
    const { real, exists } = await reals[i];
    const candidate = { absolute, real, exists, root: containingRoot(real, roots, ignoreCase) };
    if (candidate.exists && candidate.root) return toWorkspacePath(candidate, candidate.root);
    candidates.push(candidate);
  }

  // A candidate that exists outside, or that a symbolic link inside a folder leads outside (even a
  // dangling one), is what the path names: refuse it rather than fall back to a new file of the same
  // name in another workspace folder.
  const taken = candidates.find((c) => !c.root && (c.exists || containingRoot(c.absolute, roots, ignoreCase) !== undefined));
  const inside = candidates.find((c) => c.root);
  if (!inside || taken) throw outsideError(input, taken ?? candidates[0], roots, ignoreCase);
  if (options.mustExist) {
    throw new WorkspacePathError(
      'NOT_FOUND',
      `"${input}" was not found (looked in ${folderList(roots)}). Check the name and folder, e.g. by listing or searching the workspace, then retry.`,
    );
  }
  return toWorkspacePath(inside, inside.root!);
}

/**
 * Resolves a checked path again, at the moment of writing: throws CHANGED when it no longer leads
 * to the real path that was checked (a folder or the file was replaced by a symbolic link meanwhile).
 */
export async function confirmWorkspacePath(target: WorkspacePath): Promise<void> {
  const now = await realpathAllowingMissing(target.absolute);
  if (now.real !== target.realPath) {
    throw new WorkspacePathError(
      'CHANGED',
      `"${target.relative}" now resolves to "${now.real}" instead of "${target.realPath}" (a symbolic link was put in its path after it was checked), ` +
        'so nothing was written. Check the folder, then retry.',
    );
  }
}

function outsideError(input: string, candidate: Candidate, roots: readonly Root[], ignoreCase: boolean): WorkspacePathError {
  const viaLink = containingRoot(candidate.absolute, roots, ignoreCase) !== undefined;
  return new WorkspacePathError(
    'OUTSIDE_WORKSPACE',
    `"${input}" is outside the workspace: it resolves to "${candidate.real}"` +
      (viaLink ? ' through a symbolic link' : '') +
      `. Only paths inside the workspace folders can be used: ${folderList(roots)}. ` +
      'Use a path relative to a workspace folder, or an absolute path inside one.',
  );
}

function toWorkspacePath(candidate: Candidate, root: Root): WorkspacePath {
  return {
    absolute: candidate.absolute,
    realPath: candidate.real,
    folder: root.given,
    relative: segmentsOf(candidate.real).slice(root.segments.length).join('/'),
    exists: candidate.exists,
  };
}

function defaultHomeDirs(): string[] {
  const home = os.homedir();
  try {
    const real = realpathSync(home);
    return real === home ? [home] : [home, real];
  } catch {
    return [home];
  }
}

/**
 * True for a folder that must not be listed or searched recursively: a file system root (`/`,
 * `C:\`, `\\server\share\`) or the user's home folder. Pass an absolute, preferably real, path.
 */
export function isForbiddenListingRoot(folderPath: string, options: { platform?: NodeJS.Platform; homeDirs?: readonly string[] } = {}): boolean {
  const win = (options.platform ?? process.platform) === 'win32';
  const api = win ? path.win32 : path.posix;
  const canonical = (p: string): string => {
    const normalized = api.normalize(p);
    const root = api.parse(normalized).root;
    const trimmed = normalized.length > root.length ? normalized.replace(/[\\/]+$/, '') : normalized;
    return win ? trimmed.toUpperCase() : trimmed;
  };
  const target = canonical(folderPath);
  const root = api.parse(api.normalize(folderPath)).root;
  if (root !== '' && target === canonical(root)) return true;
  const homes = options.homeDirs ?? defaultHomeDirs();
  return homes.some((home) => home !== '' && canonical(home) === target);
}
