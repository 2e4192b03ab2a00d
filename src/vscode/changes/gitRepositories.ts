import * as vscode from 'vscode';
import { gitCheckIgnore } from '../../changes/gitCheckIgnore';
import { MAX_TEXT_FILE_BYTES } from '../../workspace/readTextIfExists';
import type { Logger } from '../../util/logger';

/** The part of the git extension's API (`vscode.git`, getAPI(1), its git.d.ts) used here. */
interface GitExtension {
  getAPI(version: 1): { readonly git: { readonly path: string }; getRepository(uri: vscode.Uri): GitRepository | null };
}
interface GitRepository {
  readonly rootUri: vscode.Uri;
  /** For ref '' the index's entry (`git ls-files`, then `git cat-file -s`). */
  getObjectDetails(treeish: string, path: string): Promise<{ mode: string; object: string; size: number }>;
  buffer(ref: string, path: string): Promise<Uint8Array>;
}

async function gitApi(): Promise<ReturnType<GitExtension['getAPI']> | undefined> {
  const git = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!git) return undefined;
  return (git.isActive ? git.exports : await git.activate()).getAPI(1);
}

/**
 * git's answer for each path: one `git check-ignore` per repository (gitCheckIgnore, with the git the
 * git extension uses), read to its end. Not the git extension's `Repository.checkIgnore`: it resolves
 * when the process exits, before its last output may be read, and under load left paths out, which
 * then counted as not ignored (issue 31, finding 7). A path in no repository the git extension knows
 * (it may not have opened it yet) is asked in its workspace folder, where git finds the repository itself.
 */
export async function gitIgnored(paths: readonly string[], log: Logger): Promise<ReadonlyMap<string, boolean>> {
  const api = await gitApi();
  const answers = new Map<string, boolean>();
  const byRoot = new Map<string, string[]>();
  for (const filePath of paths) {
    const root = api?.getRepository(vscode.Uri.file(filePath))?.rootUri.fsPath ?? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(filePath))?.uri.fsPath;
    // No git extension, or a path outside every repository and folder: nothing ignores it.
    if (!api || !root) answers.set(filePath, false);
    else byRoot.set(root, [...(byRoot.get(root) ?? []), filePath]);
  }
  // A repository whose check failed leaves its paths unanswered (WatchFilter asks again).
  await Promise.all(
    [...byRoot].map(([root, list]) =>
      gitCheckIgnore(api!.git.path, root, list).then(
        (got) => got.forEach((v, k) => answers.set(k, v)),
        (error: Error) => log.debug(`Claude's changes: git check-ignore in ${root}: ${error.message}`),
      ),
    ),
  );
  return answers;
}

/** git's staged content of a file (the committed one when nothing is staged); undefined when git has none, or it is over the read cap. */
export async function gitStagedContent(filePath: string): Promise<Uint8Array | undefined> {
  const repository = (await gitApi())?.getRepository(vscode.Uri.file(filePath));
  if (!repository) return undefined;
  try {
    // Ref '' is the index (git show :path): what the user staged, else what HEAD has. Bounded as every
    // read for the watcher: a blob over the cap (a large file committed) is not loaded, so not listed.
    if ((await repository.getObjectDetails('', filePath)).size > MAX_TEXT_FILE_BYTES) return undefined;
    return await repository.buffer('', filePath);
  } catch {
    return undefined; // not in git: nothing to compare with, so not listed
  }
}
