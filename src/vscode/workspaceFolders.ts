import * as vscode from 'vscode';

/** Local folders of the window (remote or virtual folders are not on this machine's disk). */
export function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/**
 * The lock file's pid. The CLI requires it to be alive, owned by this user, and (in an integrated
 * terminal without CLAUDE_CODE_SSE_PORT) an ancestor of the `claude` process (docs/protocol.md#lock-file-and-discovery).
 * The extension host is a sibling of the terminals' pty host, not their ancestor; its parent (VS Code's
 * main process on the desktop, the server process in code-server and remote) is an ancestor of both.
 * See docs/architecture.md ("Which pid") for the process tree observed in code-server.
 */
export function lockFilePid(): number {
  return process.ppid > 1 ? process.ppid : process.pid;
}
