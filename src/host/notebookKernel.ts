/**
 * The notebook the user has open, as executeCode needs it (src/tools/executeCode.ts): the code runs in
 * a cell of the active notebook editor, with whatever kernel (notebook controller) the notebook uses.
 * In VS Code: src/vscode/notebooks/vsCodeNotebookKernel.ts.
 */

/** One item of a cell output: a MIME type and its bytes, as VS Code keeps them. */
export interface CellOutputItem {
  readonly mime: string;
  readonly data: Uint8Array;
}

/** One cell output: the same content in one or more MIME types (or a stream split into several items). */
export interface CellOutput {
  readonly items: readonly CellOutputItem[];
}

/**
 * How a run ended:
 * - `finished`: the kernel ended the execution (`success` says how);
 * - `cancelled`: the caller's signal aborted it and the cell was interrupted;
 * - `timed-out`: the bound passed and the cell was interrupted;
 * - `no-kernel`: VS Code handed the cell to no kernel (none selected and none chosen, or the kernel does not take the language);
 * - `notebook-closed`: the notebook was closed during the run;
 * - `cell-deleted`: the cell was deleted during the run.
 */
export type NotebookRunEnd = 'finished' | 'cancelled' | 'timed-out' | 'no-kernel' | 'notebook-closed' | 'cell-deleted';

export interface NotebookRunOutcome {
  readonly end: NotebookRunEnd;
  /** The execution's success as the kernel reported it (undefined when it never said). */
  readonly success?: boolean;
  /** The cell's outputs when the run ended (or when it was last seen). */
  readonly outputs: readonly CellOutput[];
  /** Where the cell is now (0-based), when it still exists. */
  readonly cellIndex?: number;
  /** The kernel's execution counter for this run (Jupyter's `[n]`), when it set one. */
  readonly executionOrder?: number;
  /** After an interrupt: the cell had not stopped when the wait for it ended. */
  readonly stillRunning?: boolean;
  /** The user changed the cell's text during the run (the outputs are still those of the code sent). */
  readonly cellEdited?: boolean;
  /** When the run's stages happened, for the overhead figures in the log (src/tools/executeCode.ts). */
  readonly timing?: RunTiming;
}

export interface RunTiming {
  /** performance.now() when the cell was handed to the kernel (after it was added and shown). */
  readonly requested: number;
  /** performance.now() when the end of the run was seen. */
  readonly ended?: number;
  /** From the hand-over to the kernel's start of the cell, and from the kernel's end to the end being seen (ms; when the kernel reports its times). */
  readonly toKernelStartMs?: number;
  readonly kernelMs?: number;
  readonly endSeenAfterMs?: number;
}

export interface NotebookRunOptions {
  /** Aborts the run: the cell is interrupted (`cancelled`). */
  readonly signal: AbortSignal;
  /** After this long the cell is interrupted (`timed-out`). */
  readonly timeoutMs: number;
  /** Called every `progressEveryMs` while the cell runs (the elapsed time and what the cell printed so far). */
  readonly onProgress?: (elapsedMs: number, outputs: readonly CellOutput[]) => void;
  readonly progressEveryMs?: number;
}

/** The notebook the code would run in, found before the user is asked. */
export interface NotebookTarget {
  /** The notebook's name as the user knows it (workspace-relative path or untitled name). */
  readonly label: string;
  /** The language the new cell gets (the notebook's: its code cells', else its metadata's). */
  readonly language: string;
  /** Adds a code cell with `code`, shows it, runs it with the notebook's kernel and waits for it to end. */
  run(code: string, options: NotebookRunOptions): Promise<NotebookRunOutcome>;
}

export interface NotebookKernelHost {
  /** The active notebook editor's notebook, or a sentence saying why there is none to run code in. */
  activeNotebook(): NotebookTarget | { error: string };
}

/** Asks the user before code runs (Run / Don't Run); resolves false on Don't Run, dismissal or abort. */
export interface CodeApprover {
  approve(request: { code: string; notebook: string; language: string }, signal: AbortSignal): Promise<boolean>;
}
