// Writing to a path that was checked to be inside the workspace, without following a symbolic link
// swapped in after the check (a folder replaced by a link to elsewhere while a review was open, or
// the file itself replaced by a link to an outside file).
//
// The path given is the *real* path that was checked, so it has no links in it: any link met now was
// put there since. Folders are checked with realpath (it must still be itself), new folders are made
// one at a time, the file is created with O_EXCL|O_NOFOLLOW and an existing one opened with
// O_NOFOLLOW. Node has no openat(2), so a folder swapped in the instant between the last check and the
// open is not caught; docs/security.md says so.
//
// A hard link is another name for the same file, and it may be outside the workspace: no path check
// can tell which name is the original. So a regular file with more than one link is not written.

import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';

// Both are undefined on Windows, where creating symbolic links needs privileges.
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fsConstants.O_NONBLOCK ?? 0;

/** A symbolic link (or other change) appeared on the checked path: nothing was written. */
export class PathChangedError extends Error {
  override readonly name = 'PathChangedError';
}

/** The file has other names (hard links), possibly outside the workspace: nothing was written. */
export class HardLinkedFileError extends Error {
  override readonly name = 'HardLinkedFileError';
  constructor(
    readonly file: string,
    readonly links: number,
  ) {
    super(
      `"${file}" has ${links} hard links: the same file also has other names, possibly outside the workspace, ` +
        'and writing it here would change it there too. Nothing was written. ' +
        `To edit it here, first give this name its own copy (for example: cp -p "${file}" "${file}.tmp" && mv "${file}.tmp" "${file}"), then retry.`,
    );
  }
}

function changed(realPath: string, what: string): PathChangedError {
  return new PathChangedError(
    `${what}, so the write to "${realPath}" was refused (it could land outside the workspace). Nothing was written. Check the folder, then retry.`,
  );
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException)?.code ?? '');
}

/**
 * Throws {@link PathChangedError} unless every existing folder above `realPath` still resolves to
 * itself and `realPath` is not a symbolic link, and {@link HardLinkedFileError} when it is a file
 * with other hard links. Returns whether the file exists.
 */
export async function assertNoLinkSwappedIn(realPath: string): Promise<boolean> {
  await assertFolderIsItself(path.dirname(realPath), realPath);
  const stat = await fs.lstat(realPath).catch((error) => (isErrno(error, 'ENOENT', 'ENOTDIR') ? undefined : Promise.reject(error)));
  if (stat?.isSymbolicLink()) throw changed(realPath, `"${realPath}" is now a symbolic link`);
  if (stat) assertSingleLink(realPath, stat);
  return stat !== undefined;
}

/** Throws {@link HardLinkedFileError} for a regular file with more than one link. */
function assertSingleLink(file: string, stat: { isFile(): boolean; nlink: number }): void {
  if (stat.isFile() && stat.nlink > 1) throw new HardLinkedFileError(file, stat.nlink);
}

/** The folder (or, while it does not exist, its nearest existing ancestor) must resolve to itself. */
async function assertFolderIsItself(folder: string, realPath: string): Promise<void> {
  let dir = folder;
  for (;;) {
    try {
      const real = await fs.realpath(dir);
      if (real !== dir) throw changed(realPath, `"${dir}" now leads to "${real}" through a symbolic link`);
      break;
    } catch (error) {
      if (!isErrno(error, 'ENOENT', 'ENOTDIR')) throw error;
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
}

/**
 * Writes `text` to the checked real path: creates missing folders one by one (each must be a plain
 * folder afterwards) and a new file exclusively, or replaces an existing regular file's content;
 * never through a symbolic link at any of those names, never to a file with other hard links.
 */
export async function writeWithoutFollowing(realPath: string, text: string | Uint8Array): Promise<'created' | 'modified'> {
  const exists = await assertNoLinkSwappedIn(realPath);
  if (!exists) await makeFoldersWithoutFollowing(path.dirname(realPath), realPath);
  let handle: fs.FileHandle;
  try {
    handle = exists
      ? await fs.open(realPath, fsConstants.O_WRONLY | O_NOFOLLOW | O_NONBLOCK)
      : await fs.open(realPath, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | O_NOFOLLOW, 0o666);
  } catch (error) {
    if (isErrno(error, 'ELOOP', 'EEXIST', 'EMLINK')) throw changed(realPath, `"${realPath}" changed (a symbolic link or a new file appeared there)`);
    throw error;
  }
  try {
    const stat = await handle.stat(); // what was opened: a hard link made after the check is caught here
    if (!stat.isFile()) throw changed(realPath, `"${realPath}" is no longer a regular file`);
    assertSingleLink(realPath, stat);
    if (exists) await handle.truncate(0);
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  await assertNoLinkSwappedIn(realPath); // a folder swapped in during the open is at least reported
  return exists ? 'modified' : 'created';
}

/** Creates the missing folders of `dir` one level at a time; a link found at any of them is refused. */
async function makeFoldersWithoutFollowing(dir: string, realPath: string = dir): Promise<void> {
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    const stat = await fs.lstat(existing).catch((error) => (isErrno(error, 'ENOENT') ? undefined : Promise.reject(error)));
    if (stat?.isSymbolicLink()) throw changed(realPath, `"${existing}" is now a symbolic link`);
    if (stat) {
      if (!stat.isDirectory()) throw new Error(`"${existing}" is a file, not a folder, so "${realPath}" cannot be created there.`);
      break;
    }
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const folder of missing) {
    await fs.mkdir(folder).catch((error) => (isErrno(error, 'EEXIST') ? undefined : Promise.reject(error)));
    const stat = await fs.lstat(folder);
    if (!stat.isDirectory()) throw changed(realPath, `"${folder}" is now a symbolic link or a file`);
  }
  await assertFolderIsItself(dir, realPath);
}
