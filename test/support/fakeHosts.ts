import { promises as fs } from 'fs';
import type { CellOutput, CodeApprover, NotebookKernelHost, NotebookRunOutcome, NotebookTarget } from '../../src/host/notebookKernel';
import { writeWithoutFollowing } from '../../src/workspace/noFollowWrite';
import type { DiagnosticItem, DiagnosticsSource, FileDiagnostics, Position } from '../../src/host/diagnostics';
import {
  RenameRefusedError,
  type CallItem,
  type CallStep,
  type FoundSymbol,
  type LanguageFeatures,
  type OpenDocumentLines,
  type OpenedForLanguage,
  type OutlineSymbol,
  type RenameEdit,
  type SourceLocation,
} from '../../src/host/languageFeatures';
import type { DocumentWriter } from '../../src/host/documents';
import type { ReviewDecision, ReviewHost, ReviewRequest } from '../../src/host/review';
import { ReviewRegistry } from '../../src/review/reviewRegistry';
import { NodeTextCodec } from '../../src/workspace/encodings';

/** A review "UI" the test answers: each opened review waits until the test decides it. */
export class ScriptedReviewHost implements ReviewHost {
  readonly registry = new ReviewRegistry<ReviewRequest>();
  readonly opened: ReviewRequest[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1;

  async review(request: ReviewRequest): Promise<ReviewDecision> {
    const pending = this.registry.add(String(this.nextId++), request.title, request.connectionId, request);
    this.opened.push(request);
    this.waiters.splice(0).forEach((w) => w());
    return pending.decision;
  }

  async closeByTitle(title: string, connectionId?: number): Promise<boolean> {
    const matches = this.registry.byTitle(title, connectionId);
    matches.forEach((r) => this.registry.settle(r.id, { kind: 'withdrawn', reason: 'close-tab' }));
    return matches.length > 0;
  }

  async closeAll(connectionId?: number): Promise<number> {
    const all = connectionId === undefined ? this.registry.all() : this.registry.byConnection(connectionId);
    all.forEach((r) => this.registry.settle(r.id, { kind: 'withdrawn', reason: 'close-tab' }));
    return all.length;
  }

  withdrawForConnection(connectionId: number): void {
    this.registry.byConnection(connectionId).forEach((r) => this.registry.settle(r.id, { kind: 'withdrawn', reason: 'disconnected' }));
  }

  /** Waits until `count` reviews are pending. */
  async waitForPending(count = 1, timeoutMs = 3000): Promise<ReturnType<ReviewRegistry<ReviewRequest>['all']>> {
    const deadline = Date.now() + timeoutMs;
    while (this.registry.size < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} pending review(s), have ${this.registry.size}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 20);
      });
    }
    return this.registry.all();
  }

  /** Decides the oldest pending review. */
  async decide(decision: ReviewDecision | ((request: ReviewRequest) => ReviewDecision)): Promise<ReviewRequest> {
    const [first] = await this.waitForPending(1);
    this.registry.settle(first.id, typeof decision === 'function' ? decision(first.extra) : decision);
    return first.extra;
  }
}

/** Writes straight to disk; `format` stands in for format-on-save. */
/** Saves as the editor does: in the file's encoding (`codec`, UTF-8 unless a test sets one). */
export class DiskDocumentWriter implements DocumentWriter {
  constructor(private readonly codec = new NodeTextCodec()) {}

  /** Dirty buffers without text to merge (a notebook in the notebook editor). */
  dirty = new Set<string>();
  /** Dirty text buffers: the user's unsaved text by path; a write (a save) ends it. */
  unsaved = new Map<string, string>();
  format?: (text: string) => string;
  written: string[] = [];

  isDirty(absolutePath: string): boolean {
    return this.dirty.has(absolutePath) || this.unsaved.has(absolutePath);
  }

  unsavedText(absolutePath: string): string | undefined {
    return this.unsaved.get(absolutePath);
  }

  failWith?: string;

  async write(absolutePath: string, text: string, encoding?: string): Promise<{ savedText: string }> {
    if (this.failWith) throw new Error(this.failWith);
    const saved = this.format ? this.format(text) : text;
    const bytes = await this.codec.encode(saved, encoding ?? this.codec.newFileEncoding(absolutePath));
    await writeWithoutFollowing(absolutePath, bytes); // as VsCodeDocumentWriter: no link swapped in is followed
    this.written.push(absolutePath);
    this.unsaved.delete(absolutePath);
    return { savedText: saved };
  }

  /** openDiff merged with unsaved edits was accepted: what the buffer is told to take once claude wrote it. */
  adopted: Array<{ path: string; text: string; unsaved: string }> = [];

  /**
   * Set: adoptWritten behaves as VS Code's does, polling the file every this many ms (at most 5 s) until
   * it holds `text`, and only then the buffer takes it (its unsaved text ends).
   */
  adoptPollMs?: number;

  async adoptWritten(absolutePath: string, text: string, unsaved: string): Promise<void> {
    this.adopted.push({ path: absolutePath, text, unsaved });
    if (this.adoptPollMs === undefined) return;
    for (let waited = 0; waited < 5_000; waited += this.adoptPollMs) {
      await new Promise((r) => setTimeout(r, this.adoptPollMs));
      if ((await fs.readFile(absolutePath, 'utf8').catch(() => '')) === text) {
        this.unsaved.delete(absolutePath);
        return;
      }
    }
  }

  /** Set: showing an applied file fails with this message (VS Code's "Could NOT open editor"). */
  showFailsWith?: string;
  shown: string[] = [];

  async showApplied(absolutePath: string): Promise<void> {
    if (this.showFailsWith) throw new Error(this.showFailsWith);
    this.shown.push(absolutePath);
  }
}

/** A Problems panel the test fills; `afterWrite` lets a test add problems when a file is saved. */
export class StaticDiagnostics implements DiagnosticsSource {
  readonly byFile = new Map<string, DiagnosticItem[]>();
  private readonly listeners = new Set<(paths: readonly string[]) => void>();

  /** Replaces a file's problems, as a language server report would, and tells the listeners. */
  set(file: string, items: DiagnosticItem[]): void {
    this.byFile.set(file, items);
    for (const listener of [...this.listeners]) listener([file]);
  }

  all(): FileDiagnostics[] {
    return [...this.byFile].filter(([, d]) => d.length).map(([file, diagnostics]) => ({ uri: `file://${file}`, diagnostics }));
  }

  forFile(absolutePath: string): DiagnosticItem[] {
    return this.byFile.get(absolutePath) ?? [];
  }

  onDidChange(listener: (paths: readonly string[]) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

export function diagnostic(message: string, line = 0, severity: DiagnosticItem['severity'] = 'Error'): DiagnosticItem {
  return { message, severity, range: { start: { line, character: 0 }, end: { line, character: 1 } }, source: 'test', code: '1' };
}

/**
 * A notebook whose "kernel" is a script: each run answers with the outputs `kernel(code)` gives, after
 * `delayMs`, or never (`hang`) until the run is cancelled or times out. Records the runs and what the
 * approver was asked. `open: false` is VS Code without a notebook editor.
 */
export class ScriptedNotebook implements NotebookKernelHost {
  open = true;
  readonly runs: Array<{ code: string; timeoutMs: number; cancelled?: boolean }> = [];
  readonly asked: Array<{ code: string; notebook: string }> = [];
  /** Run / Don't Run (undefined: never answers, like a notification left alone). */
  answer: boolean | undefined = true;
  constructor(
    private readonly kernel: (code: string) => { outputs: CellOutput[]; success?: boolean; hang?: boolean; end?: NotebookRunOutcome['end']; delayMs?: number },
  ) {}

  readonly approver: CodeApprover = {
    approve: (request, signal) => {
      this.asked.push({ code: request.code, notebook: request.notebook });
      if (this.answer !== undefined) return Promise.resolve(this.answer);
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
    },
  };

  activeNotebook(): NotebookTarget | { error: string } {
    if (!this.open) return { error: 'No notebook is open in VS Code.' };
    return {
      label: 'analysis.ipynb',
      language: 'python',
      run: (code, options) => {
        const record: { code: string; timeoutMs: number; cancelled?: boolean } = { code, timeoutMs: options.timeoutMs };
        this.runs.push(record);
        const requested = performance.now();
        const script = this.kernel(code);
        return new Promise<NotebookRunOutcome>((resolve) => {
          const progress = options.onProgress && setInterval(() => options.onProgress!(performance.now() - requested, []), options.progressEveryMs ?? 1000);
          const done = (outcome: Omit<NotebookRunOutcome, 'timing'>) => {
            if (progress) clearInterval(progress);
            clearTimeout(timer);
            resolve({ ...outcome, timing: { requested, ended: performance.now() } });
          };
          const timer = script.hang
            ? setTimeout(() => done({ end: 'timed-out', outputs: script.outputs, cellIndex: 3, success: false }), options.timeoutMs)
            : setTimeout(
                () => done({ end: script.end ?? 'finished', outputs: script.outputs, success: script.success ?? true, cellIndex: 3 }),
                script.delayMs ?? 0,
              );
          options.signal.addEventListener(
            'abort',
            () => {
              record.cancelled = true;
              done({ end: 'cancelled', outputs: script.outputs, success: false, cellIndex: 3 });
            },
            { once: true },
          );
        });
      },
    };
  }
}

/** Which of ScriptedLanguageFeatures' methods never answer (another extension's stuck provider). */
export type LanguageMethod =
  'open' | 'definitions' | 'references' | 'hover' | 'outline' | 'workspaceSymbols' | 'prepareCallHierarchy' | 'incomingCalls' | 'outgoingCalls' | 'rename';

/**
 * VS Code's language features as the test scripts them: answers keyed by `path:line:character`
 * (0-based), a language id by file extension, and methods that never answer. Records every question.
 */
export class ScriptedLanguageFeatures implements LanguageFeatures {
  readonly asked: string[] = [];
  readonly hang = new Set<LanguageMethod>();
  /** Call hierarchy items whose incoming/outgoing calls never answer (by name). */
  readonly hangCallsOf = new Set<string>();
  released = 0;
  readonly definitionsAt = new Map<string, SourceLocation[]>();
  readonly implementationsAt = new Map<string, SourceLocation[]>();
  readonly referencesAt = new Map<string, SourceLocation[]>();
  readonly hoverAt = new Map<string, string[]>();
  readonly outlines = new Map<string, OutlineSymbol[]>();
  symbols: FoundSymbol[] = [];
  readonly callsAt = new Map<string, CallItem[]>();
  readonly incoming = new Map<string, CallStep[]>();
  readonly outgoing = new Map<string, CallStep[]>();
  /** Rename edits by position; a string is the provider's refusal. */
  readonly renameAt = new Map<string, RenameEdit | string>();
  /** Documents VS Code holds open, by path: their (unsaved) text. */
  readonly openDocuments = new Map<string, string>();
  languageOf: (file: string) => string = (file) => (/\.[cm]?[jt]sx?$/.test(file) ? 'typescript' : 'plaintext');

  static key(file: string, position: Position): string {
    return `${file}:${position.line}:${position.character}`;
  }

  private answer<T>(method: LanguageMethod, detail: string, value: T): Promise<T> {
    this.asked.push(`${method} ${detail}`);
    return this.hang.has(method) ? new Promise<T>(() => undefined) : Promise.resolve(value);
  }

  open(file: string, at?: Position): Promise<OpenedForLanguage | undefined> {
    const languageId = this.languageOf(file);
    return this.answer('open', at ? ScriptedLanguageFeatures.key(file, at) : file, { languageId, hasLanguageSupport: languageId !== 'plaintext' });
  }
  definitions(file: string, position: Position, kind: 'definition' | 'implementation'): Promise<SourceLocation[]> {
    const key = ScriptedLanguageFeatures.key(file, position);
    return this.answer('definitions', `${kind} ${key}`, (kind === 'definition' ? this.definitionsAt : this.implementationsAt).get(key) ?? []);
  }
  references(file: string, position: Position): Promise<SourceLocation[]> {
    const key = ScriptedLanguageFeatures.key(file, position);
    return this.answer('references', key, this.referencesAt.get(key) ?? []);
  }
  hover(file: string, position: Position): Promise<string[]> {
    const key = ScriptedLanguageFeatures.key(file, position);
    return this.answer('hover', key, this.hoverAt.get(key) ?? []);
  }
  outline(file: string): Promise<OutlineSymbol[]> {
    return this.answer('outline', file, this.outlines.get(file) ?? []);
  }
  workspaceSymbols(query: string): Promise<FoundSymbol[]> {
    return this.answer(
      'workspaceSymbols',
      query,
      this.symbols.filter((s) => s.name.includes(query)),
    );
  }
  prepareCallHierarchy(file: string, position: Position): Promise<CallItem[]> {
    const key = ScriptedLanguageFeatures.key(file, position);
    return this.answer('prepareCallHierarchy', key, this.callsAt.get(key) ?? []);
  }
  incomingCalls(item: CallItem): Promise<CallStep[]> {
    if (this.hangCallsOf.has(item.name)) return (this.asked.push(`incomingCalls ${item.name}`), new Promise<CallStep[]>(() => undefined));
    return this.answer('incomingCalls', item.name, this.incoming.get(item.name) ?? []);
  }
  outgoingCalls(item: CallItem): Promise<CallStep[]> {
    return this.answer('outgoingCalls', item.name, this.outgoing.get(item.name) ?? []);
  }
  async rename(file: string, position: Position, newName: string): Promise<RenameEdit> {
    const key = ScriptedLanguageFeatures.key(file, position);
    const edit = await this.answer('rename', `${key} ${newName}`, this.renameAt.get(key) ?? { files: [] });
    if (typeof edit === 'string') throw new RenameRefusedError(edit);
    return edit;
  }

  openDocumentLines(file: string): OpenDocumentLines | undefined {
    const text = this.openDocuments.get(file);
    if (text === undefined) return undefined;
    const lines = text.split(/\r?\n/);
    return { lineCount: lines.length, lineAt: (line) => lines[line], text: () => text };
  }
  release(): void {
    this.released++;
  }
}

/** A rename edit replacing, in each file, the given 0-based [line, character] places of `length` characters by `newText`. */
export function renameEdit(newText: string, length: number, places: Record<string, Array<[number, number]>>): RenameEdit {
  return {
    files: Object.entries(places).map(([file, at]) => ({
      location: { uri: `file://${file}`, path: file },
      replacements: at.map(([line, character]) => ({ range: { start: { line, character }, end: { line, character: character + length } }, newText })),
    })),
  };
}

/** A location in a file, 0-based, one line long. */
export function sourceLocation(file: string, line: number, character: number, length = 1): SourceLocation {
  return { uri: `file://${file}`, path: file, range: { start: { line, character }, end: { line, character: character + length } } };
}
