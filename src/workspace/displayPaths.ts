// Paths as the model reads them: relative to the workspace folder (its name first when there are
// several), forward slashes; and whether a file lies in a folder. The one place for it: the
// workspace tools, the diagnostics tools and the review's new-problem report.

import * as path from 'path';

export interface PathScope {
  /** Absolute paths the filter target is known by (as given and real); a file or a folder. */
  roots: string[];
}

/** True when `file` is one of the roots or lies inside one (compared case-insensitively on Windows). */
export function inScope(file: string, scope: PathScope, platform: NodeJS.Platform = process.platform): boolean {
  const norm = (p: string) => (platform === 'win32' ? p.replace(/\//g, '\\').toLowerCase() : p);
  const sep = platform === 'win32' ? '\\' : '/';
  const f = norm(file);
  return scope.roots.some((root) => {
    const r = norm(root).replace(/[\\/]+$/, '');
    return f === r || f.startsWith(r + sep);
  });
}

export interface WorkspaceFolderView {
  /** Paths the folder is known by (as given, and its real path when different). */
  paths: string[];
  name: string;
}

/**
 * The one form a workspace path takes for the model: relative to its workspace folder, forward
 * slashes, the folder's name first when several folders are open (the `name/sub/file` form
 * resolveInWorkspace accepts back); '' (or the name) for the folder itself.
 */
export function displayPath(folder: string, relative: string, folderCount: number, name: string = path.basename(folder)): string {
  const rel = relative.replace(/\\/g, '/');
  if (folderCount <= 1) return rel;
  return rel === '' ? name : `${name}/${rel}`;
}

/** {@link displayPath} of an absolute path, in the innermost folder holding it; absolute (forward slashes) outside them. */
export function displayPathOf(file: string, folders: readonly (string | WorkspaceFolderView)[], platform: NodeJS.Platform = process.platform): string {
  const api = platform === 'win32' ? path.win32 : path.posix;
  const views = folders.map((f) => (typeof f === 'string' ? { paths: [f], name: api.basename(f) } : f));
  let best: { root: string; name: string } | undefined;
  for (const folder of views) {
    for (const root of folder.paths) {
      if (!inScope(file, { roots: [root] }, platform)) continue;
      if (!best || root.length > best.root.length) best = { root, name: folder.name };
    }
  }
  if (!best) return file.replace(/\\/g, '/');
  return displayPath(best.root, api.relative(best.root, file), views.length, best.name);
}
