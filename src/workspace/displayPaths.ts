// Paths as the model reads them: relative to the workspace folder (its name first when there are
// several), forward slashes; and whether a file lies in a folder. Shared by the diagnostics tools
// and the review's new-problem report.

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

/** Workspace-relative path for output (forward slashes, folder name first when several); absolute when outside. */
export function relativeForDisplay(file: string, folders: readonly WorkspaceFolderView[], platform: NodeJS.Platform = process.platform): string {
  const api = platform === 'win32' ? path.win32 : path.posix;
  let best: { rel: string; name: string; length: number } | undefined;
  for (const folder of folders) {
    for (const root of folder.paths) {
      if (!inScope(file, { roots: [root] }, platform)) continue;
      if (!best || root.length > best.length) best = { rel: api.relative(root, file), name: folder.name, length: root.length };
    }
  }
  if (!best) return file.replace(/\\/g, '/');
  const rel = best.rel.replace(/\\/g, '/');
  return folders.length > 1 ? (rel === '' ? best.name : `${best.name}/${rel}`) : rel;
}
