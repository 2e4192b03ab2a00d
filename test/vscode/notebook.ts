/**
 * Notebook helpers for inner suites, with the test python kernel (test/vscode/python-kernel, loaded with
 * `extraDevelopmentPaths: [PYTHON_KERNEL_EXTENSION_PATH]` in runSuiteInVsCode): write and open a .ipynb
 * (VS Code's built-in `jupyter-notebook` serializer), append a cell through a WorkspaceEdit, run or cancel it
 * with the public commands, and read its outputs. Only public API (what a product's code could do).
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import { nextEvent } from './util';

export const PYTHON_KERNEL_EXTENSION_ID = 'native-claude-test.native-claude-test-python-kernel';

/** What the test kernel's activate() returns (test/vscode/python-kernel/extension.js#api). */
export interface PythonKernelApi {
  extensionId: string;
  controllerId: string;
  notebookType: string;
  label: string;
  isEnabled(): boolean;
  /** Creates the controller again (after disable()). */
  enable(): void;
  /** Disposes the controller and kills its python processes: no kernel exists for the notebook type. */
  disable(): void;
  /** `notebook.selectKernel` with this controller's id: selects it without a picker. */
  select(editor?: vscode.NotebookEditor): Thenable<unknown>;
  /** Interrupts the notebook's running cell as the interruptHandler does (also when no editor shows it). */
  interrupt(uri: vscode.Uri): void;
  /** Whether VS Code told the controller it is selected for the notebook (undefined: never told). */
  isSelected(uri: vscode.Uri): boolean | undefined;
  /** The notebook's python process. */
  process(uri: vscode.Uri): { pid: number; alive: boolean } | undefined;
  log(): string[];
}

/** The test kernel extension's API, activated. */
export async function pythonKernel(): Promise<PythonKernelApi> {
  const ext = vscode.extensions.getExtension<PythonKernelApi>(PYTHON_KERNEL_EXTENSION_ID);
  if (!ext) throw new Error(`${PYTHON_KERNEL_EXTENSION_ID} is not loaded: pass extraDevelopmentPaths: [PYTHON_KERNEL_EXTENSION_PATH] to runSuiteInVsCode`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** Writes an nbformat-4 python notebook with these code cells. */
export function writeNotebook(file: string, cells: string[] = []): void {
  const nb = {
    cells: cells.map((source) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source })),
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  fs.writeFileSync(file, JSON.stringify(nb, null, 1) + '\n');
}

/** Opens the .ipynb with VS Code's built-in serializer and shows it. */
export async function openNotebook(file: string): Promise<vscode.NotebookEditor> {
  const doc = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
  if (doc.notebookType !== 'jupyter-notebook') throw new Error(`${file} opened as ${doc.notebookType}, not jupyter-notebook`);
  return vscode.window.showNotebookDocument(doc, { preview: false });
}

/** Appends a python code cell (NotebookEdit.insertCells through a WorkspaceEdit); returns it. */
export async function appendCell(nb: vscode.NotebookDocument, code: string): Promise<vscode.NotebookCell> {
  const index = nb.cellCount;
  const edit = new vscode.WorkspaceEdit();
  edit.set(nb.uri, [vscode.NotebookEdit.insertCells(index, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, code, 'python')])]);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`inserting a cell into ${nb.uri.toString()} was refused`);
  return nb.cellAt(index);
}

const ended = (s: vscode.NotebookCellExecutionSummary | undefined) => !!s && (s.success !== undefined || s.timing?.endTime !== undefined);

/**
 * Resolves with the cell's executionSummary once onDidChangeNotebookDocument reports its run ended
 * (success set, or an end time).
 */
export function cellEnded(cell: vscode.NotebookCell, timeoutMs = 30_000): Promise<vscode.NotebookCellExecutionSummary> {
  return nextEvent(
    vscode.workspace.onDidChangeNotebookDocument,
    `cell ${cell.index} of ${cell.notebook.uri.path} to end its run`,
    timeoutMs,
    (e) => e.notebook === cell.notebook && e.cellChanges.some((c) => c.cell === cell && ended(c.executionSummary)),
  ).then(() => cell.executionSummary!);
}

/** `notebook.cell.execute` for one cell, as a user's run would. Resolves when the command does. */
export function executeCell(cell: vscode.NotebookCell): Thenable<unknown> {
  return vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: cell.index, end: cell.index + 1 }], document: cell.notebook.uri });
}

/** `notebook.cell.cancelExecution` for one cell (the kernel's interruptHandler, when it has one). */
export function cancelCell(cell: vscode.NotebookCell): Thenable<unknown> {
  return vscode.commands.executeCommand('notebook.cell.cancelExecution', { ranges: [{ start: cell.index, end: cell.index + 1 }], document: cell.notebook.uri });
}

/** Runs the cell and waits for its end (the event, and the command's promise). */
export async function runCell(cell: vscode.NotebookCell, timeoutMs = 30_000): Promise<vscode.NotebookCellExecutionSummary> {
  const end = cellEnded(cell, timeoutMs);
  await Promise.all([executeCell(cell), end]);
  return cell.executionSummary!;
}

export interface OutputItemView {
  mime: string;
  /** The item's bytes as UTF-8 (images too: compare with `bytes` for those). */
  text: string;
  bytes: Uint8Array;
}
export interface OutputView {
  metadata?: Record<string, unknown>;
  items: OutputItemView[];
}

/** The cell's outputs, items decoded. */
export function outputsOf(cell: vscode.NotebookCell): OutputView[] {
  return cell.outputs.map((o) => ({
    metadata: o.metadata,
    items: o.items.map((i) => ({ mime: i.mime, text: Buffer.from(i.data).toString('utf8'), bytes: i.data })),
  }));
}

/** The concatenated text of every output item of `mime` (e.g. 'application/vnd.code.notebook.stdout'). */
export function textOf(cell: vscode.NotebookCell, mime: string): string {
  return outputsOf(cell)
    .flatMap((o) => o.items)
    .filter((i) => i.mime === mime)
    .map((i) => i.text)
    .join('');
}

export const STDOUT = 'application/vnd.code.notebook.stdout';
export const STDERR = 'application/vnd.code.notebook.stderr';
export const ERROR = 'application/vnd.code.notebook.error';
