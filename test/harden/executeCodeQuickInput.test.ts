// Hardening — executeCode must not touch the user's own UI. When a cell showed no sign of a kernel 1.5 s
// after it was handed over, the run closed "the kernel picker" with `workbench.action.closeQuickOpen`,
// which closes whatever quick input is open: with a kernel that is merely slow to start (a Jupyter
// kernel's first start takes seconds), that was the user's own Quick Open or command palette, mid-typing,
// and any token holder can trigger executeCode. Now no quick input is ever closed: VS Code's kernel
// picker, when there is no kernel, is the user's to answer. The real notebook host
// (src/vscode/notebooks/vsCodeNotebookKernel.ts) against a stand-in of the notebook part of the `vscode` module,
// with a kernel that takes 3 s to start.

const executed: string[] = [];
const notebookListeners = new Set<(e: unknown) => void>();

jest.mock(
  'vscode',
  () => {
    class WorkspaceEdit {
      edits: Array<{ insert?: { index: number; cells: Array<{ value: string }> } }> = [];
      set(_uri: unknown, edits: WorkspaceEdit['edits']) {
        this.edits.push(...edits);
      }
    }
    const cells: Array<Record<string, unknown>> = [];
    const notebook = {
      uri: { scheme: 'file', fsPath: '/w/a.ipynb', path: '/w/a.ipynb', toString: () => 'file:///w/a.ipynb' },
      isClosed: false,
      metadata: {},
      get cellCount() {
        return cells.length;
      },
      cellAt: (i: number) => cells[i],
      getCells: () => cells,
    };
    const editor = { notebook, revealRange: () => undefined };
    const event = () => ({ dispose: () => undefined });
    return {
      WorkspaceEdit,
      NotebookEdit: { insertCells: (index: number, cells: unknown[]) => ({ insert: { index, cells } }), deleteCells: () => ({}) },
      NotebookCellData: class {
        constructor(
          readonly kind: number,
          readonly value: string,
          readonly languageId: string,
        ) {}
      },
      NotebookCellKind: { Markup: 1, Code: 2 },
      NotebookRange: class {
        constructor(
          readonly start: number,
          readonly end: number,
        ) {}
      },
      NotebookEditorRevealType: { InCenterIfOutsideViewport: 2 },
      window: { activeNotebookEditor: editor, visibleNotebookEditors: [editor] },
      workspace: {
        asRelativePath: () => 'a.ipynb',
        applyEdit: async (edit: WorkspaceEdit) => {
          for (const e of edit.edits) {
            if (!e.insert) continue;
            for (const data of e.insert.cells) {
              const cell: Record<string, unknown> = {
                kind: 2,
                outputs: [],
                executionSummary: undefined,
                document: { getText: () => data.value, languageId: 'python' },
              };
              Object.defineProperty(cell, 'index', { get: () => cells.indexOf(cell) });
              cells.push(cell);
            }
          }
          return true;
        },
        onDidChangeNotebookDocument: (listener: (e: unknown) => void) => (
          notebookListeners.add(listener),
          { dispose: () => notebookListeners.delete(listener) }
        ),
        onDidCloseNotebookDocument: event,
      },
      commands: {
        executeCommand: async (command: string) => {
          executed.push(command);
          if (command !== 'notebook.cell.execute') return undefined;
          // A kernel that takes 3 s to start, then runs the cell and prints.
          await new Promise((r) => setTimeout(r, 3000));
          const cell = cells[cells.length - 1];
          cell.outputs = [{ items: [{ mime: 'application/vnd.code.notebook.stdout', data: Buffer.from('42\n') }] }];
          cell.executionSummary = { executionOrder: 1, success: true, timing: { startTime: Date.now() - 5, endTime: Date.now() } };
          for (const listener of notebookListeners)
            listener({ notebook, contentChanges: [], cellChanges: [{ cell, outputs: cell.outputs, executionSummary: cell.executionSummary }] });
          return undefined;
        },
      },
    };
  },
  { virtual: true },
);

import { VsCodeNotebookKernelHost } from '../../src/vscode/notebooks/vsCodeNotebookKernel';

jest.setTimeout(30_000);

test("a kernel slow to start: the user's own quick input (Quick Open, the command palette) is never closed", async () => {
  const target = new VsCodeNotebookKernelHost().activeNotebook();
  if ('error' in target) throw new Error(target.error);
  const outcome = await target.run('print(6 * 7)', { signal: new AbortController().signal, timeoutMs: 60_000 });
  expect(outcome).toMatchObject({ end: 'finished', success: true });
  expect(executed).toEqual(['notebook.cell.execute']);
});
