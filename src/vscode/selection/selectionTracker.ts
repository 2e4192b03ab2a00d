import * as vscode from 'vscode';
import type { IdeSessionSource } from '../../server/sessionSource';
import type { SharingPolicy } from '../../selection/sharingPolicy';
import { MAX_SELECTION_TEXT_CHARS, SelectionNotifier, type EditorState, type SelectionChangedParams } from '../../selection/selectionNotifier';
import type { Logger } from '../../util/logger';
import { DisposableStore } from '../disposables';

/**
 * Only files on this machine's disk are worth telling claude about: the CLI reads them by path.
 * This leaves out `output` (output channels show up as text editors when the panel has focus),
 * `native-claude-*` (this extension's own diff-review documents), `untitled` (no path yet), `git`
 * and other SCM views, settings, notebooks' cells and any virtual file system.
 */
export function isRealFile(uri: vscode.Uri): boolean {
  return uri.scheme === 'file';
}

/**
 * The file on disk an editor shows, if any: a file editor's own path, or for a cell of a notebook saved
 * on disk (`vscode-notebook-cell:`) the notebook's path. The CLI shows a notebook selection like any
 * other ("N lines selected" from the .ipynb, with the cell's text; line numbers count inside the cell,
 * as Anthropic's extension does). Anything else (untitled notebooks, output, terminals) has no path.
 */
export function diskPathOf(document: vscode.TextDocument): string | undefined {
  if (isRealFile(document.uri)) return document.uri.fsPath;
  if (document.uri.scheme !== 'vscode-notebook-cell') return undefined;
  const notebook = vscode.workspace.notebookDocuments.find((nb) => nb.getCells().some((cell) => cell.document === document));
  return notebook && isRealFile(notebook.uri) ? notebook.uri.fsPath : undefined;
}

/**
 * The VS Code side of `selection_changed`: turns the active real-file editor's primary selection into
 * snapshots for the {@link SelectionNotifier}. When focus moves to a terminal, a panel or a non-file
 * editor, the last real-file state stays (that is what the user looked at before typing to claude);
 * only when that file is closed and no real file is active is the state cleared. Terminal selections
 * are never sent (VS Code's API does not expose them). With sharing off, or in a file the exclude
 * patterns name, claude is told "nothing selected" and nothing of that file is sent.
 */
export class SelectionTracker implements vscode.Disposable {
  private readonly notifier: SelectionNotifier;
  private readonly subscriptions = new DisposableStore();
  /** `uri.toString()` of the file the notifier's state is about. */
  private tracked?: string;

  constructor(
    sessions: IdeSessionSource,
    log: Logger,
    private policy: () => SharingPolicy,
  ) {
    this.notifier = new SelectionNotifier({ sessions, log });
    this.subscriptions.push(
      // Background editors can change selection too (reveal, diff views): only the active one counts.
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor === vscode.window.activeTextEditor) this.track(event.textEditor);
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => editor && this.track(editor)),
      vscode.window.tabGroups.onDidChangeTabs((event) => event.closed.length > 0 && this.forgetIfClosed()),
    );
    const active = vscode.window.activeTextEditor;
    if (active) this.track(active);
  }

  /** What a session connecting now would be sent (for status and end-to-end tests). */
  get current(): SelectionChangedParams | undefined {
    return this.notifier.current;
  }

  /** The sharing settings changed: apply them to what the editor shows now. */
  refresh(): void {
    const active = vscode.window.activeTextEditor;
    if (active && diskPathOf(active.document) !== undefined) this.track(active);
    else if (this.tracked !== undefined && !this.policy().sharesSelection) this.withhold();
  }

  dispose(): void {
    this.subscriptions.dispose();
    this.notifier.dispose();
  }

  private track(editor: vscode.TextEditor): void {
    const filePath = diskPathOf(editor.document);
    if (filePath === undefined) return;
    // For a notebook cell, the notebook's URI: that is what its tab holds.
    this.tracked = isRealFile(editor.document.uri) ? editor.document.uri.toString() : vscode.Uri.file(filePath).toString();
    if (this.policy().mayShareSelectionOf(filePath)) this.notifier.update(editorState(editor, filePath));
    else this.withhold();
  }

  /** Nothing of this file (or, with sharing off, of any file) goes out; claude's pill disappears. */
  private withhold(): void {
    this.notifier.clear();
  }

  private forgetIfClosed(): void {
    if (this.tracked === undefined) return;
    const active = vscode.window.activeTextEditor;
    if (active && diskPathOf(active.document) !== undefined) return;
    if (openTabUris().has(this.tracked)) return;
    this.tracked = undefined;
    this.notifier.clear();
  }
}

/** The active editor's primary selection; reads at most one character past the text cap. */
function editorState(editor: vscode.TextEditor, filePath = editor.document.uri.fsPath, maxTextChars = MAX_SELECTION_TEXT_CHARS): EditorState {
  const { document, selection } = editor;
  return {
    filePath,
    selection: {
      start: { line: selection.start.line, character: selection.start.character },
      end: { line: selection.end.line, character: selection.end.character },
    },
    text: boundedText(document, selection, maxTextChars),
  };
}

/** A select-all on a 50 MB file must not build a 50 MB string on every selection event. */
function boundedText(document: vscode.TextDocument, range: vscode.Range, max: number): string {
  if (range.isEmpty) return '';
  const start = document.offsetAt(range.start);
  const end = document.offsetAt(range.end);
  const stop = end - start > max ? document.positionAt(start + max + 1) : range.end;
  return document.getText(new vscode.Range(range.start, stop));
}

function openTabUris(): Set<string> {
  const uris = new Set<string>();
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputNotebook) {
        uris.add(input.uri.toString());
      } else if (input instanceof vscode.TabInputTextDiff || input instanceof vscode.TabInputNotebookDiff) {
        uris.add(input.original.toString());
        uris.add(input.modified.toString());
      }
    }
  }
  return uris;
}
