import * as vscode from 'vscode';

/** Local folders of the window (remote or virtual folders are not on this machine's disk). */
export function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}
