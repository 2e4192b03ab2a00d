/** Severity names as the CLI reads them (ide-protocol.md §3.4). */
export type SeverityName = 'Error' | 'Warning' | 'Information' | 'Hint';

export interface Position {
  line: number; // 0-based
  character: number; // 0-based
}

export interface DiagnosticItem {
  message: string;
  severity: SeverityName;
  range: { start: Position; end: Position };
  source?: string;
  code?: string;
}

/** One file's problems; `uri` is `file://` + the raw absolute path, as the CLI compares it. */
export interface FileDiagnostics {
  uri: string;
  diagnostics: DiagnosticItem[];
}

/** The Problems panel, as the tools see it. */
export interface DiagnosticsSource {
  /** Every file that has problems. */
  all(): FileDiagnostics[];
  /** Problems of one file (absolute path); an empty list when it has none. */
  forFile(absolutePath: string): DiagnosticItem[];
  /**
   * Resolves after the problems of `absolutePath` next change, or after `timeoutMs`, whichever
   * comes first (language servers report some time after a save). Resolves true if they changed.
   */
  waitForChange(absolutePath: string, timeoutMs: number): Promise<boolean>;
}
