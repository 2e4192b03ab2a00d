import type { TextCodec } from './textCodec';

/** The parts of the workspace the tools need. */
export interface WorkspaceHost {
  /** Absolute paths of the window's local workspace folders, in order. */
  folders(): string[];
  /** The ripgrep binary VS Code ships, or undefined when it cannot be found. */
  ripgrepPath(): string | undefined;
  /** How files are decoded (their encoding, as the editor reads them); UTF-8 when absent. */
  codec?: TextCodec;
}
