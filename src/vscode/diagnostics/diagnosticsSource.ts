// The Problems panel as a DiagnosticsSource (src/host/diagnostics.ts), for the model's
// get_diagnostics tool and the CLI's getDiagnostics call (docs/protocol.md#getdiagnostics), and the documents
// VS Code's language servers check (CheckedDocuments), so the tools can wait for fresh problems.
//
// Only types are imported from 'vscode': the extension passes `vscode.languages`, `vscode.workspace`,
// `vscode.window` and `vscode.Uri.file`, so this file also runs under plain Node with fakes.

import { existsSync, promises as fs } from 'node:fs';
import type * as vscode from 'vscode';
import type {
  CheckedDocuments,
  DiagnosticItem,
  DiagnosticsSource,
  Disposable,
  FileDiagnostics,
  LoadOutcome,
  Position,
  SeverityName,
} from '../../host/diagnostics';
import { readBytesIfExists, readTextIfExists } from '../../workspace/readTextIfExists';
import { stripBom } from '../../workspace/textFormat';

/** The part of `vscode.languages` used here. */
export interface DiagnosticsApi {
  getDiagnostics(resource: vscode.Uri): vscode.Diagnostic[];
  getDiagnostics(): [vscode.Uri, vscode.Diagnostic[]][];
  readonly onDidChangeDiagnostics: vscode.Event<vscode.DiagnosticChangeEvent>;
}

/** The parts of `vscode.workspace` and `vscode.window` used to load and watch documents. */
export interface DocumentsApi {
  workspace: Pick<
    typeof vscode.workspace,
    'textDocuments' | 'openTextDocument' | 'onDidOpenTextDocument' | 'onDidChangeTextDocument' | 'createFileSystemWatcher'
  >;
  window: Pick<typeof vscode.window, 'tabGroups' | 'onDidChangeTextEditorSelection'>;
  /**
   * Asks the language servers of the document a question that needs its project loaded (a hover at a
   * word: `vscode.executeHoverProvider`), after activating the extensions that declare
   * `onLanguage:<languageId>`; resolves with the number of answers.
   */
  askLanguageServers(document: vscode.TextDocument, position: vscode.Position): Promise<number>;
  /** Files that use changed files (src/vscode/diagnostics/fileReferences.ts); CheckedDocuments.dependentsOf. */
  dependentsOf?: CheckedDocuments['dependentsOf'];
  /** How long check tabs stay after the last check that needed them (default CHECK_TABS_IDLE_MS). */
  checkTabsIdleMs?: number;
  /**
   * Adds a tab for `uri` without activating it or taking focus: `vscode.open` with
   * `{preview: false, preserveFocus: true, background: true}`. Pinned, so it never replaces the
   * user's own preview tab; inactive, so the editor the user is looking at stays in front.
   */
  showInBackground(uri: vscode.Uri): Thenable<unknown>;
  now?: () => number;
}

// vscode.DiagnosticSeverity: Error = 0, Warning = 1, Information = 2, Hint = 3.
const SEVERITY_NAMES = ['Error', 'Warning', 'Information', 'Hint'] as const satisfies Record<vscode.DiagnosticSeverity, SeverityName>;

/** Larger files are not loaded just to check them (VS Code's language servers skip huge files anyway). */
const LOAD_MAX_BYTES = 2 * 1024 * 1024;
/** Paths remembered as changed on disk; the oldest are forgotten beyond this. */
const CHANGED_MAX = 5000;
const NOT_WATCHED = /[\\/](?:\.git|node_modules)[\\/]/;
/** vscode.TextEditorSelectionChangeKind.Command: a selection the user did not make with keyboard or mouse. */
const SELECTION_BY_COMMAND = 3;
/**
 * Languages nothing checks: their files are settled as soon as they are loaded, and never get a check
 * tab. Every other language does, because checkers look only at documents shown in a tab: VS Code's
 * TypeScript/JavaScript support (its bufferSyncSupport skips other open documents unless project
 * diagnostics are on, VS Code 1.139), and every language server whose client pulls diagnostics (LSP
 * 3.17; vscode-languageclient pulls only for documents visible in a tab, and clears a document's
 * problems when its last tab closes): JSON's and CSS's in 1.139. Which server pulls cannot be asked.
 */
const UNCHECKED_LANGUAGES = new Set(['plaintext']);
/**
 * A language server that is still registering its providers (its extension activated a moment ago)
 * answers nothing: the question is asked again this often, for at most this long.
 */
const ASK_AGAIN_MS = 250;
const ASK_AGAIN_FOR_MS = 1000;
/** `askLanguageServers`' answer when the only answers say the server is still loading the project. */
export const STILL_LOADING_ANSWER = -1;
/**
 * A server still loading its project is asked again for this long (its syntax server answers
 * meanwhile, from the file alone).
 */
const ASK_WHILE_LOADING_FOR_MS = 30_000;
/**
 * Check tabs close this long after the last check that needed them: claude's next edit of the same
 * file in the turn asks again at once, and a tab closed and reopened in between costs TypeScript a
 * fresh check (its problems vanish with the tab), which once made the next call miss its budget.
 */
export const CHECK_TABS_IDLE_MS = 10_000;

/** The file a plain text tab shows (not diffs, notebooks or webviews). */
function tabUri(tab: vscode.Tab): string | undefined {
  const input = tab.input as { uri?: vscode.Uri; notebookType?: string } | undefined;
  return input?.uri && input.notebookType === undefined ? input.uri.toString() : undefined;
}

/**
 * Words a JS/TS line starts with that name nothing: TypeScript's hover answers nothing there, however
 * ready it is, so the question is asked at the name after them (`export function compute` → `compute`).
 */
const LEADING_KEYWORDS = new Set(
  'abstract as async await class const declare default enum export extends from function implements import interface let module namespace new private protected public readonly return static type var'.split(
    ' ',
  ),
);

/**
 * Where to ask a language server about a file: the first word that is not on a comment line and not a
 * JS/TS keyword, so the answer needs the file's project (TypeScript's quick info builds the program and
 * its type checker).
 */
function firstWordOffset(text: string): number {
  let offset = 0;
  for (const line of text.slice(0, 20_000).split('\n')) {
    if (!/^\s*(?:\/\/|#|\/?\*|<!--)/.test(line)) {
      for (const word of line.matchAll(/[A-Za-z_$][\w$]*/g)) if (!LEADING_KEYWORDS.has(word[0])) return offset + word.index;
    }
    offset += line.length + 1;
  }
  return 0;
}

/** The offset of a 0-based line and character in `text` (clamped to the text). */
function offsetOf(text: string, at: Position): number {
  let offset = 0;
  for (let line = 0; line < at.line; line++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return Math.min(offset + at.character, text.length);
}

export function severityName(severity: vscode.DiagnosticSeverity): SeverityName {
  return SEVERITY_NAMES[severity] ?? 'Information';
}

/** `code` is a string, a number, or `{ value, target }` (a link to the rule's docs): always a string here. */
export function codeString(code: vscode.Diagnostic['code']): string | undefined {
  if (code === undefined || code === null) return undefined;
  if (typeof code === 'object') return String(code.value);
  return String(code);
}

export function toDiagnosticItem(d: vscode.Diagnostic): DiagnosticItem {
  const item: DiagnosticItem = {
    message: d.message,
    severity: severityName(d.severity),
    // 0-based, as VS Code keeps them and the CLI expects them.
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
  };
  if (d.source) item.source = d.source;
  const code = codeString(d.code);
  if (code !== undefined) item.code = code;
  return item;
}

/** `file://` + the raw fsPath: the CLI compares it without percent-decoding (docs/protocol.md#getdiagnostics). */
function diagnosticsUri(uri: vscode.Uri): string {
  return `file://${uri.fsPath}`;
}

export class VsCodeDiagnosticsSource implements DiagnosticsSource, Disposable {
  readonly documents?: CheckedDocuments;
  private readonly disposables: Disposable[] = [];

  constructor(
    private readonly languages: DiagnosticsApi,
    private readonly fileUri: (absolutePath: string) => vscode.Uri,
    documentsApi?: DocumentsApi,
  ) {
    if (documentsApi) {
      const documents = new VsCodeCheckedDocuments(languages, documentsApi);
      this.documents = documents;
      this.disposables.push(documents);
    }
  }

  all(): FileDiagnostics[] {
    const result: FileDiagnostics[] = [];
    for (const [uri, diagnostics] of this.languages.getDiagnostics()) {
      // Only files on this disk: untitled buffers, git and output URIs are not the CLI's files.
      if (uri.scheme !== 'file' || diagnostics.length === 0 || !this.onDisk(uri.fsPath)) continue;
      result.push({ uri: diagnosticsUri(uri), diagnostics: diagnostics.map(toDiagnosticItem) });
    }
    return result;
  }

  forFile(absolutePath: string): DiagnosticItem[] {
    if (!this.onDisk(absolutePath)) return [];
    return this.languages.getDiagnostics(this.fileUri(absolutePath)).map(toDiagnosticItem);
  }

  /**
   * A deleted file's document can stay loaded (its tab, VS Code's cache of documents an extension
   * opened), and its language server keeps reporting the old text: those problems are of no file on
   * disk. Dropped, or a file written again at that path would start with the old file's problems (claude's
   * baseline then holds them, and the same problems after its write are not new to it). An unsaved
   * buffer of a deleted file keeps its problems: they describe what the user sees.
   */
  private onDisk(absolutePath: string): boolean {
    return existsSync(absolutePath) || (this.documents?.isDirty(absolutePath) ?? false);
  }

  onDidChange(listener: (paths: readonly string[]) => void): Disposable {
    return this.languages.onDidChangeDiagnostics((event) => {
      const paths = event.uris.filter((uri) => uri.scheme === 'file').map((uri) => uri.fsPath);
      if (paths.length) listener(paths);
    });
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** Loaded documents, when they last changed and were last reported on, and files changed on disk. */
class VsCodeCheckedDocuments implements CheckedDocuments, Disposable {
  private readonly documentChangedAt = new Map<string, number>();
  private readonly reportedAt = new Map<string, number>();
  /** Path → sequence number of its latest change on disk; consumers remember the last number they saw. */
  private readonly changedOnDisk = new Map<string, number>();
  private readonly consumers = new Map<string, number>();
  /** Tabs `load` opened only for checking (uri strings), until released or taken over by the user. */
  private readonly checkTabs = new Set<string>();
  /** Files a language server answered about (asked at a position) with its project loaded. */
  private readonly projectAnswered = new Set<string>();
  private closeCheckTabsTimer: NodeJS.Timeout | undefined;
  private sequence = 0;
  private readonly subscriptions: Disposable[] = [];
  private readonly now: () => number;
  readonly dependentsOf?: CheckedDocuments['dependentsOf'];

  constructor(
    languages: DiagnosticsApi,
    private readonly api: DocumentsApi,
  ) {
    this.now = api.now ?? Date.now;
    this.dependentsOf = api.dependentsOf;
    const { workspace } = api;
    this.subscriptions.push(
      workspace.onDidOpenTextDocument((doc) => {
        if (doc.uri.scheme === 'file') this.documentChangedAt.set(doc.uri.fsPath, this.now());
      }),
      workspace.onDidChangeTextDocument((event) => {
        if (event.document.uri.scheme === 'file' && event.contentChanges.length > 0) this.documentChangedAt.set(event.document.uri.fsPath, this.now());
      }),
      languages.onDidChangeDiagnostics((event) => {
        const at = this.now();
        for (const uri of event.uris) if (uri.scheme === 'file') this.reportedAt.set(uri.fsPath, at);
      }),
    );
    const watcher = workspace.createFileSystemWatcher('**/*', false, false, true);
    const record = (uri: vscode.Uri) => {
      if (uri.scheme !== 'file' || NOT_WATCHED.test(uri.fsPath)) return;
      this.changedOnDisk.delete(uri.fsPath); // re-inserted last: the Map stays in change order
      this.changedOnDisk.set(uri.fsPath, ++this.sequence);
      if (this.changedOnDisk.size > CHANGED_MAX) this.changedOnDisk.delete(this.changedOnDisk.keys().next().value!);
    };
    this.subscriptions.push(watcher, watcher.onDidCreate(record), watcher.onDidChange(record));
    // A check tab the user brought to the front (not merely the only tab of its group) or typed or
    // clicked in is theirs from then on.
    this.subscriptions.push(
      api.window.tabGroups.onDidChangeTabs((event) => {
        for (const tab of event.changed) if (tab.isActive && tab.group.tabs.length > 1) this.checkTabs.delete(tabUri(tab) ?? '');
        for (const tab of event.opened) {
          const uri = (tab.input as { uri?: vscode.Uri } | undefined)?.uri;
          if (uri && tabUri(tab) !== undefined && this.tabsShowing(uri) <= 1) this.shownInTab(uri);
        }
      }),
      api.window.onDidChangeTextEditorSelection((event) => {
        if (event.kind !== undefined && event.kind !== SELECTION_BY_COMMAND) this.checkTabs.delete(event.textEditor.document.uri.toString());
      }),
    );
  }

  /**
   * A loaded document shown in a tab when none showed it: its checkers start checking it only now
   * (again, after its last tab closed and its problems were cleared), so it counts as changed: a report
   * from before (that clearing, say) says nothing about it. Otherwise a file deleted and written again
   * with the same text (no reload, no change event) was taken for settled with no problems at once.
   */
  private shownInTab(uri: vscode.Uri): void {
    if (uri.scheme === 'file' && this.loaded(uri.fsPath)) this.documentChangedAt.set(uri.fsPath, this.now());
  }

  private loaded(absolutePath: string): vscode.TextDocument | undefined {
    return this.api.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath);
  }

  /** How many tabs show the file (its own, and diffs with it on either side). */
  private tabsShowing(uri: vscode.Uri): number {
    const key = uri.toString();
    return this.api.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input as { uri?: vscode.Uri; original?: vscode.Uri; modified?: vscode.Uri } | undefined;
        return [input?.uri, input?.original, input?.modified].some((u) => u?.toString() === key);
      }).length;
  }

  private inTab(uri: vscode.Uri): boolean {
    return this.tabsShowing(uri) > 0;
  }

  async load(absolutePath: string, options: { show: boolean }): Promise<LoadOutcome> {
    let document = this.loaded(absolutePath);
    const outcome: LoadOutcome = document ? 'loaded' : 'opened';
    if (!document) {
      const stat = await fs.stat(absolutePath).catch(() => undefined);
      if (!stat?.isFile() || stat.size > LOAD_MAX_BYTES) return 'skipped';
      // Size 0 with content is a kernel pseudo-file (`/proc/self/pagemap` reads without end): never opened.
      if (
        stat.size === 0 &&
        (await readBytesIfExists(absolutePath, { maxBytes: LOAD_MAX_BYTES }).then(
          () => false,
          () => true,
        ))
      )
        return 'skipped';
      try {
        document = await this.api.workspace.openTextDocument(absolutePath);
      } catch {
        return 'skipped'; // binary, or gone meanwhile
      }
    }
    if (options.show && !UNCHECKED_LANGUAGES.has(document.languageId)) {
      // A check needs the tabs now: none closes while it runs.
      clearTimeout(this.closeCheckTabsTimer);
      this.closeCheckTabsTimer = undefined;
      if (!this.inTab(document.uri)) {
        this.checkTabs.add(document.uri.toString());
        await this.api.showInBackground(document.uri);
        this.shownInTab(document.uri);
      }
    }
    return outcome;
  }

  async checkerAnswered(absolutePath: string, at?: Position): Promise<boolean> {
    const document = this.loaded(absolutePath);
    if (!document || UNCHECKED_LANGUAGES.has(document.languageId)) return false;
    // Asked at a position: a server that has answered about the file from its loaded project has it
    // (a project, once loaded, stays); asking again would cost each language tool call a hover.
    if (at && this.projectAnswered.has(absolutePath)) return true;
    const text = document.getText();
    const position = document.positionAt(at ? offsetOf(text, at) : firstWordOffset(text));
    const until = this.now() + ASK_AGAIN_FOR_MS;
    const loadingUntil = this.now() + ASK_WHILE_LOADING_FOR_MS;
    for (;;) {
      const answers = await this.api.askLanguageServers(document, position).then(
        (n) => n,
        () => 0,
      );
      // A "still loading" answer comes from the file alone (TypeScript's syntax server): the project, and
      // with it the file's first check, is not there yet.
      const loading = answers === STILL_LOADING_ANSWER;
      if (answers > 0 && at) this.projectAnswered.add(absolutePath);
      if (answers > 0) return true;
      if (!(loading && this.now() < loadingUntil) && this.now() >= until) return true;
      await new Promise((resolve) => setTimeout(resolve, ASK_AGAIN_MS));
    }
  }

  answeredFromProject(absolutePath: string): boolean {
    return this.projectAnswered.has(absolutePath);
  }

  releaseCheckTabs(): void {
    clearTimeout(this.closeCheckTabsTimer);
    this.closeCheckTabsTimer = undefined;
    if (this.checkTabs.size === 0) return;
    this.closeCheckTabsTimer = setTimeout(() => {
      this.closeCheckTabsTimer = undefined;
      void this.closeCheckTabs();
    }, this.api.checkTabsIdleMs ?? CHECK_TABS_IDLE_MS);
    this.closeCheckTabsTimer.unref?.();
  }

  keepTab(absolutePath: string): void {
    for (const tab of this.api.window.tabGroups.all.flatMap((group) => group.tabs)) {
      const uri = (tab.input as { uri?: vscode.Uri } | undefined)?.uri;
      if (uri?.scheme === 'file' && uri.fsPath === absolutePath) this.checkTabs.delete(uri.toString());
    }
  }

  private async closeCheckTabs(): Promise<void> {
    const tabs = this.api.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const uri = tabUri(tab);
        return uri !== undefined && this.checkTabs.has(uri) && !tab.isDirty;
      });
    this.checkTabs.clear();
    if (tabs.length) await Promise.resolve(this.api.window.tabGroups.close(tabs, true)).catch(() => undefined);
  }

  async matchesDisk(absolutePath: string): Promise<boolean | undefined> {
    const document = this.loaded(absolutePath);
    if (!document) return undefined;
    if (document.isDirty) return false;
    // Bounded (a regular file, at most the size loaded): a deleted file, or one too large or not regular, has nothing better to wait for.
    const disk = await readTextIfExists(absolutePath, { maxBytes: LOAD_MAX_BYTES }).catch(() => undefined);
    if (disk === undefined) return true;
    return stripBom(disk) === document.getText();
  }

  isDirty(absolutePath: string): boolean {
    return this.loaded(absolutePath)?.isDirty ?? false;
  }

  lastChange(absolutePath: string): { document?: number; diagnostics?: number } {
    return { document: this.documentChangedAt.get(absolutePath), diagnostics: this.reportedAt.get(absolutePath) };
  }

  onDidChangeDocument(listener: (path: string) => void): Disposable {
    return this.api.workspace.onDidChangeTextDocument((event) => {
      if (event.document.uri.scheme === 'file' && event.contentChanges.length > 0) listener(event.document.uri.fsPath);
    });
  }

  takeChangedOnDisk(consumer: string): string[] {
    const seen = this.consumers.get(consumer) ?? 0;
    this.consumers.set(consumer, this.sequence);
    return [...this.changedOnDisk].filter(([, n]) => n > seen).map(([p]) => p);
  }

  dispose(): void {
    clearTimeout(this.closeCheckTabsTimer);
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
