import type { TextCodec } from '../../host/textCodec';
import type { WorkspaceHost } from '../../host/workspace';
import { findRipgrep } from './ripgrep';

export interface WorkspaceHostOptions {
  /** The window's local folders, read on every call (folders can change while the server runs). */
  folders(): string[];
  /** `vscode.env.appRoot`: where VS Code's own node_modules, and its ripgrep, live. */
  appRoot: string;
  /** Injectable for tests; defaults to the real lookup. */
  findRipgrep?: (appRoot: string) => string | undefined;
  /** How read_file decodes files (VS Code's encodings). */
  codec?: TextCodec;
}

/**
 * The tools' view of the workspace. Takes plain values instead of importing `vscode`, so the
 * extension wires it as `createWorkspaceHost({ folders: workspaceFolderPaths, appRoot: vscode.env.appRoot })`.
 */
export function createWorkspaceHost(options: WorkspaceHostOptions): WorkspaceHost {
  const lookup = options.findRipgrep ?? ((appRoot: string) => findRipgrep(appRoot));
  let ripgrep: string | undefined;
  return {
    folders: () => options.folders(),
    // Found once and kept; a miss is retried on the next call (six stat calls, cheap).
    ripgrepPath: () => (ripgrep ??= lookup(options.appRoot)),
    codec: options.codec,
  };
}
