// executeCode (the model's mcp__ide__executeCode): runs code in the kernel of the notebook the user
// has open, in a new cell the user sees, after asking them (approvalMode), and answers with the
// cell's outputs (src/tools/notebookOutput.ts). Finding the notebook, adding and running the cell and
// watching it end are the NotebookKernelHost's business (src/vscode/notebooks/vsCodeNotebookKernel.ts).

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApprovalMode } from '../host/approvalMode';
import type { CellOutput, CodeApprover, NotebookKernelHost, NotebookRunOutcome, RunTiming } from '../host/notebookKernel';
import type { Logger } from '../util/logger';
import { ERROR_MIME, OUTPUT_BOUNDS, outputsToContent } from './notebookOutput';
import { defineTool, errorResult, textResult } from './toolDefinition';

/** How long a cell may run before it is interrupted (the model is told; it can split the work or ask the user). */
export const EXECUTE_CODE_MAX_MS = 5 * 60_000;
/** MCP progress while the cell runs (2.1.328 shows the message under the running tool). */
const EXECUTE_CODE_PROGRESS_MS = 5_000;

/** Asks the user first unless approvalMode is "never": running code in their kernel is an action in their editor. */
export interface CodeApproval {
  mode(): ApprovalMode;
  approver: CodeApprover;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function hasError(outputs: readonly CellOutput[]): boolean {
  return outputs.some((o) => o.items.some((i) => i.mime === ERROR_MIME));
}

/** Where the cell is, as the user finds it: "cell 5 of analysis.ipynb". */
function where(outcome: NotebookRunOutcome, notebook: string): string {
  return outcome.cellIndex === undefined ? notebook : `cell ${outcome.cellIndex + 1} of ${notebook}`;
}

/** The sentence after the outputs: how the run ended, and what to do when it did not end well. */
export function describeRun(outcome: NotebookRunOutcome, notebook: string, timeoutMs: number): string {
  const cell = where(outcome, notebook);
  const edited = outcome.cellEdited ? " The user changed the cell's text during the run; the outputs are those of the code you sent." : '';
  const still = outcome.stillRunning
    ? ' The kernel has not stopped yet: it may still be busy. Ask the user to check the notebook (interrupt or restart the kernel) before running more code.'
    : '';
  switch (outcome.end) {
    case 'finished':
      if (outcome.success === false && !hasError(outcome.outputs)) {
        return `The run in ${cell} failed without an error message: the kernel may have died or been restarted (its state, your variables included, may be gone). Ask the user to check the kernel before running more code.${edited}`;
      }
      if (outcome.success === false) return `The code raised an error (above), in ${cell}.${edited}`;
      return `${outcome.outputs.length ? 'Ran' : 'Ran without output'} in ${cell}.${edited}`;
    case 'cancelled':
      return `The run was cancelled and the cell interrupted, in ${cell}; the outputs above are what it printed before.${still}`;
    case 'timed-out':
      return (
        `The code did not finish within ${seconds(timeoutMs)} and the cell was interrupted, in ${cell}; the outputs above are what it printed before.${still} ` +
        'Split the work into shorter steps, or ask the user to run the long part themselves.'
      );
    case 'no-kernel':
      return (
        `The cell was not run: ${notebook} has no kernel selected (or its kernel does not run this language). ` +
        'Ask the user to select a kernel for the notebook (the kernel picker at the top right of the notebook), then call executeCode again.'
      );
    case 'notebook-closed':
      return `The notebook ${notebook} was closed during the run; the outputs above are the last seen. Ask the user to open it again before running more code.`;
    case 'cell-deleted':
      return `The user deleted the cell during the run; the outputs above are the last seen. Ask the user how to proceed.`;
  }
}

/**
 * The extension's own share of a call, for the log (docs/protocol.md#executecode): from the call (or the
 * user's Run) until the cell runs — adding and showing it, then VS Code and the kernel picking it up —
 * and from the kernel's end until the answer is sent.
 */
export function overheadFigures(timing: RunTiming, from: number, answered: number): string {
  const ms = (n: number) => `${Math.round(n)} ms`;
  const toRequest = timing.requested - from;
  if (timing.toKernelStartMs === undefined || timing.kernelMs === undefined || timing.endSeenAfterMs === undefined || timing.ended === undefined) {
    return `overhead ${ms(toRequest)} until the cell was handed to the kernel (the kernel reported no times)`;
  }
  const toRunning = toRequest + timing.toKernelStartMs;
  const afterEnd = timing.endSeenAfterMs + (answered - timing.ended);
  return `overhead ${ms(toRunning)} from the call to the cell running (${ms(toRequest)} to hand it over), ${ms(afterEnd)} from its end to the answer; the kernel ran it in ${ms(timing.kernelMs)}`;
}

const inputSchema = z.object({
  code: z.string().min(1).describe("The code to run, in the notebook's language (e.g. Python for a Python kernel)."),
});

export function executeCodeTool(kernels: NotebookKernelHost, approval?: CodeApproval, log?: Logger) {
  return defineTool({
    name: 'executeCode',
    title: "Execute code in the notebook's kernel",
    description:
      'Run code in the kernel of the notebook the user has open in VS Code (the active notebook editor), in a new cell added at the end of the notebook. ' +
      "State persists across calls: it is the user's own kernel, with their variables and imports. " +
      "The user is asked first (Run / Don't Run) unless they chose not to be. " +
      "Returns the cell's outputs: printed text and results as text, an exception as its name, message and traceback, plots and other images as images. " +
      `At most ${OUTPUT_BOUNDS.maxTextChars} characters of text (longer output keeps its start and end) and ${OUTPUT_BOUNDS.maxImages} images of up to 1 MiB; ` +
      `a run is interrupted after ${seconds(EXECUTE_CODE_MAX_MS)}. ` +
      'Use it to inspect data (shapes, dtypes, heads of DataFrames), check results and plot, in the notebook the user works in.',
    inputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    handle: async ({ code }, context): Promise<CallToolResult> => {
      const arrived = performance.now();
      const target = kernels.activeNotebook();
      if ('error' in target) return errorResult(target.error);
      const asked = approval !== undefined && approval.mode() !== 'never';
      if (asked) {
        context.progress?.(`Waiting for the user to allow running the code in ${target.label}`);
        const allowed = await approval.approver.approve({ code, notebook: target.label, language: target.language }, context.signal);
        if (context.signal.aborted) return errorResult('The call was cancelled before the user answered; the code was not run.');
        if (!allowed) {
          return textResult(`The user chose not to run this code in ${target.label}. Do not run it again as it is; ask the user how they want to proceed.`);
        }
      }
      const approved = performance.now();
      const outcome = await target.run(code, {
        signal: context.signal,
        timeoutMs: EXECUTE_CODE_MAX_MS,
        progressEveryMs: EXECUTE_CODE_PROGRESS_MS,
        onProgress: context.progress && ((elapsed) => context.progress!(`Running in ${target.label}: ${seconds(elapsed)}`)),
      });
      // The stated bound is on the whole answer's text: the closing sentence's room is taken from the outputs'.
      const closing = describeRun(outcome, target.label, EXECUTE_CODE_MAX_MS);
      const content = outputsToContent(outcome.outputs, { ...OUTPUT_BOUNDS, maxTextChars: OUTPUT_BOUNDS.maxTextChars - closing.length });
      content.push({ type: 'text', text: closing });
      const answered = performance.now();
      if (log && outcome.timing)
        log.info(
          `executeCode in ${where(outcome, target.label)}: ${outcome.end}${outcome.success === false ? ' (failed)' : ''}; ${overheadFigures(outcome.timing, asked ? approved : arrived, answered)}`,
        );
      const failed = outcome.end === 'no-kernel' || outcome.end === 'notebook-closed';
      return failed ? { content, isError: true } : { content };
    },
  });
}
