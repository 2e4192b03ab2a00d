// What the language tools (find_definitions, find_references, describe_symbol, file_outline,
// find_symbols, call_hierarchy) share: the position schema, waiting (bounded) for the file's language
// server as the diagnostics do, one bounded wait per provider call, and locations shown as the other
// tools show paths, with a line's text only for files inside the workspace (read_file's boundary).

import { promises as fs, type BigIntStats } from 'fs';
import * as path from 'path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Position } from '../host/diagnostics';
import type { LanguageFeatures, OpenDocumentLines, OpenedForLanguage, SourceLocation, SourceRange } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { MODEL_WAIT_MS } from '../diagnostics/waitBudgets';
import { displayPathOf, type WorkspaceFolderView } from '../workspace/displayPaths';
import { readTextIfExists } from '../workspace/readTextIfExists';
import { RecentFileLines } from '../workspace/recentFileLines';
import { workspaceResolver, WorkspacePathError, type WorkspacePath, type WorkspaceResolver } from '../workspace/workspacePaths';
import { linesOf, nameAtOrAfter, oneNamed, positionOnLine, symbolInOutline } from './symbolPosition';
import { errorResult, textResult, type ToolContext } from './toolDefinition';

export interface LanguageBudgets {
  /** How long the first query of a file may wait for its language server to have it (a project's first load). */
  readyMs: number;
  /** How long one provider call may take (a stuck provider of another extension costs this, not a hung call). */
  answerMs: number;
}

export const LANGUAGE_BUDGETS: LanguageBudgets = { readyMs: MODEL_WAIT_MS, answerMs: 10_000 };

/** Characters of a line's text shown beside a location. */
const LINE_TEXT_CHARS = 200;
/** Files larger than this are not read for their lines' text (the location is still named). */
const LINE_TEXT_FILE_BYTES = 8 * 1024 * 1024;
/** Files whose lines' texts are read at the same time (each read bounded; at most this many held at once). */
const LINE_TEXT_FILES_AT_ONCE = 8;
/** The lines of files read in earlier calls, used again while a stat shows the file unchanged (one stat instead of a read). */
const RECENT_LINES = new RecentFileLines(linesOf);
/** How often a long wait reports progress. */
const PROGRESS_EVERY_MS = 1000;

export const positionFields = {
  path: z.string().min(1).optional().describe('File (workspace-relative).'),
  line: z.number().int().min(1).optional().describe('1-based line.'),
  column: z.number().int().min(1).optional().describe('1-based column, or give symbol.'),
  symbol: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Symbol's name: its first whole word on line; without line, found in path, or without path in the workspace."),
};

export type PositionArgs = { path?: string; line?: number; column?: number; symbol?: string };

/** A location's file inside the workspace: its real path, and its stat when the check took one. */
type CheckedFile = { realPath: string; stat?: BigIntStats };

/** A file opened for its language server. */
export interface LanguageFile {
  target: WorkspacePath;
  shown: string;
  opened: OpenedForLanguage;
}

/** A position resolved in an opened file. */
export interface SymbolAt extends LanguageFile {
  position: Position;
  /** The name at the position, when there is one. */
  word?: string;
  /** `src/a.ts:3:5`, 1-based. */
  where: string;
}

/** How the answers name a resolved position: "`double` at src/a.ts:3:5", or "at src/a.ts:3:5" without a name. */
export function symbolLabel(at: Pick<SymbolAt, 'word' | 'where'>): string {
  return `${at.word ? `\`${at.word}\` ` : ''}at ${at.where}`;
}

/** Thrown with the message the model reads: the tools turn it into an error result. */
export class LanguageToolError extends Error {
  override readonly name = 'LanguageToolError';
}

/** A budget as the model reads it: seconds, or milliseconds below one. */
function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

export function formatPlace(shown: string, position: Position): string {
  return `${shown}:${position.line + 1}:${position.character + 1}`;
}

const sameRange = (a: SourceRange, b: SourceRange) =>
  a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;

/** Whether two locations name the same place (same file, same range). */
export function sameLocation(a: SourceLocation, b: SourceLocation): boolean {
  return (a.path ?? a.uri) === (b.path ?? b.uri) && sameRange(a.range, b.range);
}

/** Locations without duplicates (several providers may answer with the same place). */
export function distinctLocations(locations: readonly SourceLocation[]): SourceLocation[] {
  const out: SourceLocation[] = [];
  for (const l of locations) if (!out.some((o) => sameLocation(o, l))) out.push(l);
  return out;
}

const documentLine = (open: OpenDocumentLines, n: number) => (n < open.lineCount ? open.lineAt(n) : undefined);

/** A line as shown beside its location: trimmed, capped. */
function shownLine(line: string | undefined): string | undefined {
  if (line === undefined) return undefined;
  const trimmed = line.trim();
  return trimmed.length > LINE_TEXT_CHARS ? `${trimmed.slice(0, LINE_TEXT_CHARS)}…` : trimmed;
}

/** One tool call's questions to VS Code's language features. */
export class LanguageQuery {
  private views?: Promise<WorkspaceFolderView[]>;
  /** A file's lines (by the location's path), one source per call: the open document or the disk. */
  private readonly lineCache = new Map<string, Promise<(line: number) => string | undefined>>();
  /** Each location file's boundary check, once per call: its real path inside the workspace (and its stat, when checked for lines), or undefined. */
  private readonly checks = new Map<string, Promise<CheckedFile | undefined>>();
  /** Resolves the path asked about and the answer's locations: the folders' real paths looked up once per call. */
  private resolvePath?: WorkspaceResolver;

  constructor(
    private readonly features: LanguageFeatures,
    private readonly host: WorkspaceHost,
    private readonly budgets: LanguageBudgets,
    private readonly context?: ToolContext,
  ) {}

  /**
   * `call` within the answer budget; a provider that does not answer in time is an error naming
   * `what` ("references") and saying that nothing was found or ruled out.
   */
  async ask<T>(what: string, call: () => Promise<T>, languageId?: string): Promise<T> {
    const answer = await this.within(call(), this.budgets.answerMs);
    if (answer.timedOut) {
      const of = languageId ? ` for ${languageId}` : '';
      throw new LanguageToolError(
        `VS Code's ${what} provider${of} did not answer within ${duration(this.budgets.answerMs)} (a language server still busy, or an extension stuck): nothing was found or ruled out. Ask again in a moment; if it keeps happening, use search_files.`,
      );
    }
    return answer.value;
  }

  private async within<T>(promise: Promise<T>, ms: number, onTick?: (waitedMs: number) => void): Promise<{ timedOut: false; value: T } | { timedOut: true }> {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let ticker: NodeJS.Timeout | undefined;
    const abort = this.context?.signal;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        promise.then((value) => ({ timedOut: false as const, value })),
        new Promise<{ timedOut: true }>((resolve) => {
          timer = setTimeout(() => resolve({ timedOut: true }), ms);
          if (onTick) ticker = setInterval(() => onTick(Date.now() - started), PROGRESS_EVERY_MS);
          onAbort = () => resolve({ timedOut: true });
          abort?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      clearInterval(ticker);
      // A call hierarchy asks hundreds of times on one signal: no listener may stay behind.
      if (onAbort) abort?.removeEventListener('abort', onAbort);
    }
  }

  /** The path as the model reads it: folder-relative inside the workspace, absolute outside. */
  async display(file: string): Promise<string> {
    return displayPathOf(file, await this.folderViews());
  }

  /** The folders as paths are shown (their real paths too): the resolver's own lookup, once per call, as early as a path is resolved. */
  private folderViews(): Promise<WorkspaceFolderView[]> {
    return (this.views ??= this.resolver().folderViews());
  }

  /** How a location's file is named: its display path, or the uri for what is not a file on disk. */
  async placeOf(location: SourceLocation): Promise<string> {
    return location.path !== undefined ? this.display(location.path) : location.uri;
  }

  private resolver(): WorkspaceResolver {
    return (this.resolvePath ??= workspaceResolver(this.host.folders()));
  }

  /** The path a tool was given, resolved inside the workspace (an existing file or folder), or the model's error. */
  private async target(input: string): Promise<WorkspacePath> {
    try {
      const target = await this.resolver()(input, { mustExist: true });
      // Checked just now, in this call: a location in the same file (a definition in it, the references'
      // declaration) needs no second lookup (the call's other locations are still each looked up).
      const checked = Promise.resolve({ realPath: target.realPath });
      for (const file of new Set([target.absolute, target.realPath])) if (!this.checks.has(file)) this.checks.set(file, checked);
      return target;
    } catch (error) {
      if (error instanceof WorkspacePathError) throw new LanguageToolError(error.message);
      throw error;
    }
  }

  /**
   * The real path of a location's file when it is a regular file inside the workspace after symlinks
   * are resolved (read_file's boundary), else undefined: its contents are then not shown.
   */
  async insideWorkspace(location: SourceLocation): Promise<string | undefined> {
    const file = location.path;
    if (file === undefined) return undefined;
    let checked = this.checks.get(file);
    if (!checked) {
      checked = this.resolver()(file, { mustExist: true }).then(
        (resolved) => ({ realPath: resolved.realPath }),
        () => undefined,
      );
      this.checks.set(file, checked);
    }
    return (await checked)?.realPath;
  }

  /**
   * insideWorkspace for one of many files (a list of references): the resolver's existingFile (each
   * folder's real path looked up once, the file's entry lstat'ed), which gives the file's stat too.
   */
  private checkedWithStat(file: string): Promise<CheckedFile | undefined> {
    let checked = this.checks.get(file);
    if (!checked) this.checks.set(file, (checked = this.resolver().existingFile(file)));
    return checked;
  }

  /**
   * The text of a location's first line (capped), only for a file inside the workspace: from VS Code's
   * open document when there is one (the providers answer about the buffer, unsaved edits included;
   * the disk can hold other lines), else from the disk (bounded; a file read in an earlier call and
   * unchanged since, by its stat, is not read again: src/workspace/recentFileLines.ts).
   */
  async lineText(location: SourceLocation): Promise<string | undefined> {
    const real = await this.insideWorkspace(location);
    if (real === undefined) return undefined;
    const file = location.path!;
    let lineOf = this.lineCache.get(file);
    if (!lineOf) {
      const open = this.features.openDocumentLines(file);
      lineOf = open
        ? Promise.resolve((n: number) => documentLine(open, n))
        : RECENT_LINES.lines(real, LINE_TEXT_FILE_BYTES).then(
            (lines = []) =>
              (n: number) =>
                lines[n],
            () => () => undefined,
          );
      this.lineCache.set(file, lineOf);
    }
    return shownLine((await lineOf)(location.range.start.line));
  }

  /**
   * The lines' texts of many locations (lineText's rules, in order): every file's boundary check, and its
   * lines when VS Code has it open or its kept copy is unchanged (one stat), at once; the files that must
   * be read, LINE_TEXT_FILES_AT_ONCE at a time. A list of references in twenty files costs about one
   * file's checks, not twenty in a row. A file's lines are let go once its locations have their texts.
   */
  async lineTexts(locations: readonly SourceLocation[]): Promise<Array<string | undefined>> {
    const byFile = new Map<string, number[]>();
    locations.forEach((l, i) => {
      if (l.path === undefined) return;
      const indexes = byFile.get(l.path);
      if (indexes) indexes.push(i);
      else byFile.set(l.path, [i]);
    });
    const texts: Array<string | undefined> = locations.map(() => undefined);
    const files: Array<[string, number[]]> = [];
    await Promise.all(
      [...byFile].map(async ([file, indexes]) => {
        const open = this.features.openDocumentLines(file);
        // A file not open: the stat its check took is the one compared (one round trip to the disk for
        // both); kept lines are used only when that stat is of the very file read before.
        const checked = await this.checkedWithStat(file);
        if (checked === undefined) return;
        const kept = open ? undefined : await RECENT_LINES.keptIfUnchanged(checked.realPath, checked.stat && Promise.resolve(checked.stat));
        if (!open && !kept) return void files.push([file, indexes]);
        for (const i of indexes) {
          const n = locations[i].range.start.line;
          texts[i] = shownLine(open ? documentLine(open, n) : kept![n]);
        }
      }),
    );
    const worker = async () => {
      for (let next = files.shift(); next; next = files.shift()) {
        const [file, indexes] = next;
        for (const i of indexes) texts[i] = await this.lineText(locations[i]);
        this.lineCache.delete(file);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LINE_TEXT_FILES_AT_ONCE, files.length) }, worker));
    return texts;
  }

  /**
   * The file's text as its language servers have it: VS Code's open document (unsaved edits included:
   * positions are asked and answered in it), else the disk's.
   */
  private fileText(realPath: string): Promise<string | undefined> {
    const open = this.features.openDocumentLines(realPath);
    return open ? Promise.resolve(open.text()) : readTextIfExists(realPath);
  }

  /** `file:line:col`, plus the line's text inside the workspace, or a word that it is outside. */
  async describeLocation(location: SourceLocation, options: { text?: boolean } = {}): Promise<string> {
    const [shown, inside] = await Promise.all([this.placeOf(location), this.insideWorkspace(location)]);
    const place = formatPlace(shown, location.range.start);
    if (inside === undefined) return `${place} (outside the workspace: contents not shown)`;
    if (options.text === false) return place;
    const text = await this.lineText(location);
    return text ? `${place} — ${text}` : place;
  }

  /**
   * The file resolved inside the workspace and loaded for its language server, waiting (bounded,
   * with progress) until a server answered about it, as the diagnostics do.
   */
  async openFile(input: string, at?: (text: string | undefined) => Position | undefined): Promise<LanguageFile & { at?: Position }> {
    void this.folderViews();
    const target = await this.target(input);
    // A file VS Code holds open is asked about in its buffer (never read from the disk here): no stat. Any
    // other path must be a regular file (not a folder, a FIFO or a device).
    const isFile =
      this.features.openDocumentLines(target.realPath) !== undefined ||
      (await fs.stat(target.realPath).then(
        (s) => s.isFile(),
        () => false,
      ));
    const shown = await this.display(target.realPath);
    if (!isFile) throw new LanguageToolError(`${shown || '.'} is not a file. Give a source file.`);
    const position = at?.(await this.fileText(target.realPath).catch(() => undefined));
    return { target, shown, opened: await this.opened(target.realPath, shown, position), at: position };
  }

  /**
   * `at`: the position the question is about. VS Code's TypeScript answers from its syntax server while
   * the project loads (a definition then lands on the import, seen in a fresh window): the wait asks
   * there, which only the type checker answers.
   */
  private async opened(file: string, shown: string, at?: Position): Promise<OpenedForLanguage> {
    const progress = this.context?.progress;
    const answer = await this.within(
      this.features.open(file, at),
      this.budgets.readyMs,
      progress && ((ms) => progress(`Waiting for VS Code's language server to load ${path.basename(file)} (${Math.round(ms / 1000)} s)`)),
    );
    if (answer.timedOut) {
      throw new LanguageToolError(
        `VS Code's language server had not loaded ${shown} after ${duration(this.budgets.readyMs)} (a project's first load in a new window can take long): nothing was checked. Ask again in a moment.`,
      );
    }
    if (!answer.value) throw new LanguageToolError(`VS Code could not load ${shown} as a text document (binary, too large or gone).`);
    if (!answer.value.hasLanguageSupport) {
      throw new LanguageToolError(
        `VS Code has no language support for ${shown} (language "${answer.value.languageId}"): no installed extension provides definitions, references, hovers or symbols for it. Install one for this language, or use search_files.`,
      );
    }
    return answer.value;
  }

  /** The position the arguments name: a file's line and column or symbol, a symbol in a file, or a symbol in the workspace. */
  async resolve(args: PositionArgs): Promise<SymbolAt> {
    if (args.path === undefined) {
      if (args.symbol === undefined) throw new LanguageToolError('Give path and line (with column or symbol), or a symbol name.');
      if (args.line !== undefined || args.column !== undefined) throw new LanguageToolError('line and column need path: the file they are in.');
      return this.resolveInWorkspace(args.symbol);
    }
    if (args.line === undefined) {
      if (args.column !== undefined) throw new LanguageToolError('column needs line.');
      if (args.symbol === undefined) throw new LanguageToolError('Give line (with column or symbol), or symbol.');
      const file = await this.openFile(args.path);
      const outline = await this.ask('document symbol', () => this.features.outline(file.target.realPath), file.opened.languageId);
      const found = symbolInOutline(outline, args.symbol, file.shown);
      if ('error' in found) throw new LanguageToolError(found.error);
      // The outline came from the file alone; what follows needs the project: wait there too.
      await this.opened(file.target.realPath, file.shown, found.position);
      return { ...file, ...found, where: formatPlace(file.shown, found.position) };
    }
    if (args.column !== undefined && args.symbol !== undefined) throw new LanguageToolError('Give column or symbol, not both.');
    // The text first: a wrong line or name is answered without waiting for a language server.
    void this.folderViews();
    const target = await this.target(args.path);
    const shown = await this.display(target.realPath);
    const text = await this.fileText(target.realPath).catch((error: Error) => {
      throw new LanguageToolError(`${shown}: ${error.message}`);
    });
    if (text === undefined) throw new LanguageToolError(`${shown} does not exist.`);
    const at = positionOnLine(text, shown, args.line, { column: args.column, symbol: args.symbol });
    if ('error' in at) throw new LanguageToolError(at.error);
    const opened = await this.opened(target.realPath, shown, at.position);
    return { target, shown, opened, position: at.position, word: at.word, where: formatPlace(shown, at.position) };
  }

  private async resolveInWorkspace(symbol: string): Promise<SymbolAt> {
    const found = await this.ask('workspace symbol', () => this.features.workspaceSymbols(symbol));
    const inside: typeof found = [];
    for (const s of found) if (s.name === symbol && (await this.insideWorkspace(s.location)) !== undefined) inside.push(s);
    const descriptions = new Map<(typeof found)[number], string>();
    for (const s of inside) descriptions.set(s, `${s.kind.toLowerCase()} at ${formatPlace(await this.placeOf(s.location), s.location.range.start)}`);
    const one = oneNamed(inside, symbol, (s) => descriptions.get(s)!);
    if ('error' in one) {
      const note = inside.length === 0 ? " (The search covers the projects VS Code's language servers have loaded.)" : '';
      throw new LanguageToolError(one.error + note);
    }
    // TypeScript's location is the whole declaration (`export class Box`): the name is further on.
    const start = one.location.range.start;
    const file = await this.openFile(
      (await this.insideWorkspace(one.location))!,
      (text) => (text !== undefined && nameAtOrAfter(text, start, symbol)) || start,
    );
    const position = file.at ?? start;
    return { ...file, position, word: symbol, where: formatPlace(file.shown, position) };
  }

  /** The tabs opened only for the language server may close (VS Code's TypeScript checks files in tabs). */
  release(): void {
    this.features.release();
  }
}

/** Runs one language tool call: a LanguageToolError becomes the error the model reads; the check tabs are released after. */
export async function runLanguageQuery(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets,
  context: ToolContext | undefined,
  body: (query: LanguageQuery) => Promise<string>,
): Promise<CallToolResult> {
  const query = new LanguageQuery(features, host, budgets, context);
  try {
    return textResult(await body(query));
  } catch (error) {
    if (error instanceof LanguageToolError) return errorResult(error.message);
    throw error;
  } finally {
    query.release();
  }
}
