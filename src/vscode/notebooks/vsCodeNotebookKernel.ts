// executeCode's notebook in VS Code, through the public notebook API only: the code goes into a new
// code cell at the end of the active notebook (a WorkspaceEdit), is revealed, and runs with
// `notebook.cell.execute` — so with whatever controller (kernel) the notebook uses, for any language.
// The cell is followed as an object (not an index: the user may edit the notebook meanwhile) through
// onDidChangeNotebookDocument until its execution summary says it ended. The notebook is never saved.

import * as vscode from 'vscode';
import type { CellOutput, NotebookKernelHost, NotebookRunEnd, NotebookRunOptions, NotebookRunOutcome, NotebookTarget } from '../../host/notebookKernel';

/**
 * After `notebook.cell.execute` returned, how long a cell may show no sign of a kernel (no output, no
 * execution order, no change of its execution state) before the run counts as not handed to any kernel.
 * VS Code resolves the command after the kernel accepted the cells; a kernel that accepted the cell
 * marks it at once, while VS Code completes a cell no kernel took without running it.
 */
const NO_KERNEL_GRACE_MS = 2_000;
/** After an interrupt, how long to wait for the cell to stop before answering anyway. */
const INTERRUPT_WAIT_MS = 5_000;
/*
 * With no kernel selected (and more than one, or none, that could run the notebook), VS Code answers
 * `notebook.cell.execute` with its kernel picker, and no public API says beforehand whether a notebook
 * has a kernel. The picker is the user's to answer: a kernel chosen runs the cell (already allowed), Esc
 * runs nothing and the model is told to have the user select a kernel. It is never closed from here:
 * `workbench.action.closeQuickOpen` closes whatever quick input is open, which, with a kernel merely slow
 * to start, is the user's own Quick Open or command palette (docs/security.md).
 */

const NO_NOTEBOOK =
  'No notebook is open in VS Code: executeCode runs code in the kernel of the active notebook editor. ' +
  'Ask the user to open the notebook (e.g. a .ipynb file) whose kernel should run the code, with a kernel selected, then call executeCode again.';

function outputsOf(cell: vscode.NotebookCell): CellOutput[] {
  return cell.outputs.map((o) => ({ items: o.items.map((i) => ({ mime: i.mime, data: i.data })) }));
}

/** The language of the new cell: the notebook's code cells', else what its metadata says, else Python. */
function notebookLanguage(notebook: vscode.NotebookDocument): string {
  const cells = notebook.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code);
  const last = cells[cells.length - 1];
  if (last) return last.document.languageId;
  const metadata = notebook.metadata as { metadata?: { language_info?: { name?: unknown }; kernelspec?: { language?: unknown } } } | undefined;
  const named = metadata?.metadata?.language_info?.name ?? metadata?.metadata?.kernelspec?.language;
  return typeof named === 'string' && named ? named : 'python';
}

function labelOf(notebook: vscode.NotebookDocument): string {
  return notebook.uri.scheme === 'file' ? vscode.workspace.asRelativePath(notebook.uri, false) : notebook.uri.path.split('/').pop() || notebook.uri.toString();
}

export class VsCodeNotebookKernelHost implements NotebookKernelHost {
  activeNotebook(): NotebookTarget | { error: string } {
    // The active notebook editor stays active while the user types in the terminal; with none active,
    // a single visible notebook is unambiguous.
    const visible = vscode.window.visibleNotebookEditors;
    const editor = vscode.window.activeNotebookEditor ?? (visible.length === 1 ? visible[0] : undefined);
    if (!editor)
      return {
        error:
          visible.length > 1
            ? `${NO_NOTEBOOK.split(':')[0]} in front: several notebooks are visible and none is active. Ask the user to click into the notebook whose kernel should run the code, then call executeCode again.`
            : NO_NOTEBOOK,
      };
    const notebook = editor.notebook;
    const language = notebookLanguage(notebook);
    const label = labelOf(notebook);
    return { label, language, run: (code, options) => runInNotebook(notebook, language, code, options) };
  }
}

// Long (~125 lines) on purpose: one run's state (the cell, its timers, the kernel's signs, the interrupt)
// is shared by the closures that watch it end, as in terminalRunner's execute.
async function runInNotebook(notebook: vscode.NotebookDocument, language: string, code: string, options: NotebookRunOptions): Promise<NotebookRunOutcome> {
  if (notebook.isClosed) return { end: 'notebook-closed', outputs: [] };
  const index = notebook.cellCount;
  const edit = new vscode.WorkspaceEdit();
  edit.set(notebook.uri, [vscode.NotebookEdit.insertCells(index, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, code, language)])]);
  if (!(await vscode.workspace.applyEdit(edit)))
    throw new Error(`VS Code did not add the cell to ${labelOf(notebook)} (the notebook may be read-only). Nothing was run.`);
  const cell = notebook.cellAt(index);
  if (cell.document.getText() !== code) throw new Error(`The notebook changed while the cell was being added; nothing was run. Call executeCode again.`);
  const editor = vscode.window.visibleNotebookEditors.find((e) => e.notebook === notebook);
  // Shown without moving focus: the user keeps typing where they were.
  editor?.revealRange(new vscode.NotebookRange(index, index + 1), vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);

  return new Promise<NotebookRunOutcome>((resolve, reject) => {
    let lastOutputs = outputsOf(cell);
    let signs = false; // the kernel touched the cell after VS Code handed it over
    let commandDone = false;
    let settled = false;
    let interrupted: 'cancelled' | 'timed-out' | undefined;
    const started = performance.now();
    let requestedAt = started;
    let requestedEpoch = Date.now();
    const disposables: vscode.Disposable[] = [];
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const range = () => ({ ranges: [{ start: cell.index, end: cell.index + 1 }], document: notebook.uri });

    const stop = () => {
      settled = true;
      for (const d of disposables) d.dispose();
      for (const t of timers) clearTimeout(t);
      options.signal.removeEventListener('abort', onAbort);
    };
    const finish = (end: NotebookRunEnd, extra: Partial<NotebookRunOutcome> = {}) => {
      if (settled) return;
      stop();
      const alive = !notebook.isClosed && cell.index >= 0;
      const summary = alive ? cell.executionSummary : undefined;
      const kernel = summary?.timing;
      const endedEpoch = Date.now();
      resolve({
        end,
        success: summary?.success,
        outputs: alive ? outputsOf(cell) : lastOutputs,
        cellIndex: alive ? cell.index : undefined,
        executionOrder: summary?.executionOrder,
        cellEdited: alive && cell.document.getText() !== code,
        timing: {
          requested: requestedAt,
          ended: performance.now(),
          ...(kernel && {
            toKernelStartMs: kernel.startTime - requestedEpoch,
            kernelMs: kernel.endTime - kernel.startTime,
            endSeenAfterMs: endedEpoch - kernel.endTime,
          }),
        },
        ...extra,
      });
    };
    const ended = () => cell.executionSummary?.success !== undefined || cell.executionSummary?.timing !== undefined;
    const settleIfEnded = () => {
      if (!ended()) return false;
      finish(interrupted ?? 'finished');
      return true;
    };
    const interrupt = (why: 'cancelled' | 'timed-out') => {
      if (settled || interrupted) return;
      interrupted = why;
      void vscode.commands.executeCommand('notebook.cell.cancelExecution', range()).then(undefined, () => undefined);
      timers.push(setTimeout(() => finish(why, { stillRunning: !ended() }), INTERRUPT_WAIT_MS));
    };
    const onAbort = () => interrupt('cancelled');

    disposables.push(
      vscode.workspace.onDidChangeNotebookDocument((e) => {
        if (e.notebook !== notebook || settled) return;
        if (e.contentChanges.some((c) => c.removedCells.includes(cell)) || cell.index < 0) return finish('cell-deleted');
        for (const change of e.cellChanges) {
          if (change.cell !== cell) continue;
          if (change.outputs) lastOutputs = outputsOf(cell);
          if (commandDone && (change.outputs || change.executionSummary)) signs = true;
          if (cell.executionSummary?.executionOrder !== undefined || cell.outputs.length) signs = true;
        }
        settleIfEnded();
      }),
      vscode.workspace.onDidCloseNotebookDocument((closed) => closed === notebook && finish('notebook-closed')),
    );
    if (options.signal.aborted) return finish('cancelled'); // cancelled while the cell was being added: it never ran
    options.signal.addEventListener('abort', onAbort, { once: true });
    timers.push(setTimeout(() => interrupt('timed-out'), options.timeoutMs));
    if (options.onProgress && options.progressEveryMs) {
      const every = options.progressEveryMs;
      const tick = () => {
        if (settled) return;
        options.onProgress!(performance.now() - started, lastOutputs);
        timers.push(setTimeout(tick, every));
      };
      timers.push(setTimeout(tick, every));
    }
    requestedAt = performance.now();
    requestedEpoch = Date.now();
    vscode.commands.executeCommand('notebook.cell.execute', range()).then(
      () => {
        commandDone = true;
        // A kernel ends its handler when it is done with the cells (a dropped, never-started cell gets no end time).
        if (interrupted && !settled) return finish(interrupted, { stillRunning: false });
        if (settled || settleIfEnded()) return;
        if (cell.executionSummary?.executionOrder !== undefined || cell.outputs.length) signs = true;
        // VS Code completes a cell no kernel took (none selected and none chosen, or a language the
        // kernel does not run) without running it; a kernel that took it marks it.
        timers.push(
          setTimeout(() => {
            if (signs || interrupted || settled) return;
            finish('no-kernel');
            void removeUnrunCell(notebook, cell, code);
          }, NO_KERNEL_GRACE_MS),
        );
      },
      (error: unknown) => {
        if (settled) return;
        stop();
        reject(new Error(`VS Code could not run the cell in ${labelOf(notebook)}: ${error instanceof Error ? error.message : String(error)}`));
      },
    );
  });
}

/** A cell no kernel ran goes again (it never ran, so it shows nothing), unless the user touched it. */
async function removeUnrunCell(notebook: vscode.NotebookDocument, cell: vscode.NotebookCell, code: string): Promise<void> {
  if (notebook.isClosed || cell.index < 0 || cell.outputs.length || cell.document.getText() !== code) return;
  const edit = new vscode.WorkspaceEdit();
  edit.set(notebook.uri, [vscode.NotebookEdit.deleteCells(new vscode.NotebookRange(cell.index, cell.index + 1))]);
  await vscode.workspace.applyEdit(edit);
}
