import type { Position } from './diagnostics';

export interface SourceRange {
  start: Position; // 0-based
  end: Position;
}

/** A place a language server answered with: `path` (absolute) for a file on this disk, else only its `uri`. */
export interface SourceLocation {
  uri: string;
  path?: string;
  range: SourceRange;
}

/** One symbol of a file's outline (VS Code's DocumentSymbol), kind as VS Code names it ("Function", "Class"…). */
export interface OutlineSymbol {
  name: string;
  kind: string;
  detail?: string;
  range: SourceRange;
  /** The symbol's name (where a position for the other queries is). */
  selectionRange: SourceRange;
  children: OutlineSymbol[];
}

/** A workspace symbol search hit. */
export interface FoundSymbol {
  name: string;
  kind: string;
  container?: string;
  location: SourceLocation;
}

/** A function (method, constructor…) in a call hierarchy; `handle` is the host's own item, passed back for the next step. */
export interface CallItem {
  name: string;
  kind: string;
  detail?: string;
  /** Where its name is. */
  location: SourceLocation;
  readonly handle: unknown;
}

/** One step of a call hierarchy: the other function, and where the calls are (in the caller's file). */
export interface CallStep {
  item: CallItem;
  callSites: SourceRange[];
}

/** One replacement of a rename's edit, in the file's text as VS Code has it (its unsaved buffer when dirty). */
export interface TextReplacement {
  range: SourceRange;
  newText: string;
}

/** A rename provider's answer: the replacements of each file it touches. */
export interface RenameEdit {
  files: Array<{ location: Omit<SourceLocation, 'range'>; replacements: TextReplacement[] }>;
}

/** The rename provider refused the rename (not a symbol that can be renamed): its reason, as VS Code words it. */
export class RenameRefusedError extends Error {
  override readonly name = 'RenameRefusedError';
}

/** The lines of a document VS Code holds open (unsaved edits included): what its language servers answer about. */
export interface OpenDocumentLines {
  lineCount: number;
  /** The text of a 0-based line (0 <= line < lineCount), without its line break. */
  lineAt(line: number): string;
  /** The whole text. */
  text(): string;
}

/** What opening a file for its language server found. */
export interface OpenedForLanguage {
  /** VS Code's language id of the file ("typescript", "plaintext"…). */
  languageId: string;
  /** False when nothing answers for the file's language (plain text): no provider will answer either. */
  hasLanguageSupport: boolean;
}

/**
 * VS Code's language features (its own provider commands: never a language server of ours). Every
 * method may be slow (a cold server) or never answer (another extension's bug): callers bound each call.
 * Positions are 0-based, as VS Code keeps them.
 */
export interface LanguageFeatures {
  /**
   * Loads the file so its language server has it, and waits as the diagnostics do until a server
   * answered about it (src/host/diagnostics.ts `checkerAnswered`, asked at `at` when given: the
   * position the question is about); undefined when it cannot be loaded (binary, too large, gone).
   */
  open(absolutePath: string, at?: Position): Promise<OpenedForLanguage | undefined>;
  definitions(absolutePath: string, position: Position, kind: 'definition' | 'implementation'): Promise<SourceLocation[]>;
  /** Every reference, the declaration included. */
  references(absolutePath: string, position: Position): Promise<SourceLocation[]>;
  /** The hover's contents, each as markdown (code in fences). */
  hover(absolutePath: string, position: Position): Promise<string[]>;
  outline(absolutePath: string): Promise<OutlineSymbol[]>;
  workspaceSymbols(query: string): Promise<FoundSymbol[]>;
  prepareCallHierarchy(absolutePath: string, position: Position): Promise<CallItem[]>;
  incomingCalls(item: CallItem): Promise<CallStep[]>;
  outgoingCalls(item: CallItem): Promise<CallStep[]>;
  /**
   * VS Code's rename provider's edit for renaming the symbol at `position` to `newName` (nothing applied);
   * a provider's refusal is a RenameRefusedError. Optional: a host without it does not serve rename_symbol.
   */
  rename?(absolutePath: string, position: Position, newName: string): Promise<RenameEdit>;
  /**
   * The lines of the file's document when VS Code has it open (the buffer, with unsaved edits: the
   * positions the providers answer with are in it), undefined when it is not open (read the disk).
   */
  openDocumentLines(absolutePath: string): OpenDocumentLines | undefined;
  /** The tabs `open` needed only for the server (TypeScript checks files in tabs) are no longer needed. */
  release(): void;
}
