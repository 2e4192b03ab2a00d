/** Severity names as the CLI reads them (docs/protocol.md#getdiagnostics). */
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

export interface Disposable {
  dispose(): void;
}

/** The Problems panel, as the tools see it. */
export interface DiagnosticsSource {
  /** Every file that has problems. */
  all(): FileDiagnostics[];
  /** Problems of one file (absolute path); an empty list when it has none. */
  forFile(absolutePath: string): DiagnosticItem[];
  /** Called with the absolute paths whose problems changed (a language server reported). */
  onDidChange(listener: (paths: readonly string[]) => void): Disposable;
  /**
   * How files get checked. Absent in plain-Node fakes: the tools then answer with what the
   * Problems panel has, after waiting for reports the same way.
   */
  readonly documents?: CheckedDocuments;
}

/** What loading a file for checking did. */
export type LoadOutcome =
  /** Already loaded in VS Code before this call. */
  | 'loaded'
  /** Loaded by this call: language servers have only now started checking it. */
  | 'opened'
  /** Not loadable (missing, binary, too large): nothing to wait for. */
  | 'skipped';

/**
 * Language servers check only documents VS Code has loaded, and report some time after each change.
 * This is what is needed to wait until the problems of a file reflect what is on disk.
 */
export interface CheckedDocuments {
  /**
   * Loads the file so language servers check it, without taking focus. `show` allows a background tab,
   * since checkers look only at files in tabs (TypeScript/JavaScript, and language servers that pull
   * their diagnostics, JSON's among them); plain text gets none.
   */
  load(absolutePath: string, options: { show: boolean }): Promise<LoadOutcome>;
  /**
   * True when VS Code's copy is the file on disk; false while VS Code has not yet reloaded a change
   * made on disk, or holds unsaved edits; undefined when the file is not loaded.
   */
  matchesDisk(absolutePath: string): Promise<boolean | undefined>;
  /** Whether VS Code's copy has unsaved edits (its problems then describe those, not the disk). */
  isDirty(absolutePath: string): boolean;
  /** When (ms, the `now` clock) VS Code's copy last changed (opened, reloaded, typed) and its problems were last reported. */
  lastChange(absolutePath: string): { document?: number; diagnostics?: number };
  /** Called with the path of a loaded document whose text changed (typing, reload from disk). */
  onDidChangeDocument(listener: (path: string) => void): Disposable;
  /** Files created or changed on disk since this consumer's previous call, each once. */
  takeChangedOnDisk(consumer: string): string[];
  /**
   * Resolves once a language server has answered a question about the loaded file (so it has the file
   * and its project in hand: TypeScript's first check of a project in a fresh window takes seconds, and
   * a clean file gets no report at all). Resolves false at once when nothing checks the file's language
   * (plain text) or the file is not loaded. Asked once per file per settle; may be slow, never rejects.
   * `at`: where to ask (the language tools' position: a name, which TypeScript's type checker answers
   * about, where the file's first word may be a keyword only its syntax server sees); default the first word.
   */
  checkerAnswered(absolutePath: string, at?: Position): Promise<boolean>;
  /**
   * Whether a language server has answered a question at a position in the file from its loaded project
   * in this window (checkerAnswered with `at`): it has the file, and a loaded project stays loaded.
   */
  answeredFromProject?(absolutePath: string): boolean;
  /**
   * The tabs `load({show: true})` opened only so a checker would look at the file are no longer needed:
   * they close once no check has needed them for a while (a later `load({show: true})` keeps them),
   * except those the user has since taken over (brought to the front, clicked or typed in, edited).
   */
  releaseCheckTabs(): void;
  /**
   * The file is now shown on purpose (the review's accepted file, revealed): a check tab showing it is
   * the user's from now on, never closed by `releaseCheckTabs`.
   */
  keepTab?(absolutePath: string): void;
  /**
   * Files that use `changed` (references the language server finds to what they declare, and relative
   * imports that resolve to them), most relevant first: at most `limit` in `files`, the rest in `more`.
   * Bounded by `timeoutMs`. Absent where nothing can tell (plain-Node fakes).
   */
  dependentsOf?(changed: readonly string[], options: { limit: number; timeoutMs: number }): Promise<{ files: string[]; more: string[] }>;
}
