/** The parts of the workspace the tools need. */
export interface WorkspaceHost {
  /** Absolute paths of the window's local workspace folders, in order. */
  folders(): string[];
  /** The ripgrep binary VS Code ships, or undefined when it cannot be found. */
  ripgrepPath(): string | undefined;
}
