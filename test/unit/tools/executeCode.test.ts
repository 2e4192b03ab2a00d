import { describeRun, EXECUTE_CODE_MAX_MS, overheadFigures } from '../../../src/tools/executeCode';
import { ERROR_MIME, STDOUT_MIME } from '../../../src/tools/notebookOutput';
import type { NotebookRunOutcome } from '../../../src/host/notebookKernel';

const printed = [{ items: [{ mime: STDOUT_MIME, data: new TextEncoder().encode('42\n') }] }];
const raised = [{ items: [{ mime: ERROR_MIME, data: new TextEncoder().encode('{"name":"ValueError","message":"x"}') }] }];
const run = (outcome: Partial<NotebookRunOutcome>) =>
  describeRun({ end: 'finished', outputs: [], cellIndex: 4, ...outcome }, 'analysis.ipynb', EXECUTE_CODE_MAX_MS);

describe('tools: executeCode, the sentence after the outputs', () => {
  test('where it ran, with or without output', () => {
    expect(run({ success: true, outputs: printed })).toBe('Ran in cell 5 of analysis.ipynb.');
    expect(run({ success: true })).toBe('Ran without output in cell 5 of analysis.ipynb.');
  });

  test('an exception, and a failure without one (the kernel died or restarted)', () => {
    expect(run({ success: false, outputs: raised })).toBe('The code raised an error (above), in cell 5 of analysis.ipynb.');
    expect(run({ success: false })).toMatch(
      /^The run in cell 5 of analysis\.ipynb failed without an error message: the kernel may have died or been restarted .*Ask the user to check the kernel/,
    );
  });

  test('interrupted by the caller or the bound; a kernel that did not stop is named', () => {
    expect(run({ end: 'cancelled', success: false })).toBe(
      'The run was cancelled and the cell interrupted, in cell 5 of analysis.ipynb; the outputs above are what it printed before.',
    );
    expect(run({ end: 'timed-out', stillRunning: true })).toMatch(
      /^The code did not finish within 300 s and the cell was interrupted, in cell 5 .*The kernel has not stopped yet: .* Split the work into shorter steps/,
    );
  });

  test('no kernel, the notebook closed, the cell deleted, the cell edited: each says what to do', () => {
    expect(run({ end: 'no-kernel', cellIndex: undefined })).toMatch(
      /^The cell was not run: analysis\.ipynb has no kernel selected .*Ask the user to select a kernel/,
    );
    expect(run({ end: 'notebook-closed', cellIndex: undefined })).toMatch(
      /^The notebook analysis\.ipynb was closed during the run; .*Ask the user to open it again/,
    );
    expect(run({ end: 'cell-deleted', cellIndex: undefined })).toMatch(/^The user deleted the cell during the run; .*Ask the user how to proceed/);
    expect(run({ success: true, outputs: printed, cellEdited: true })).toBe(
      "Ran in cell 5 of analysis.ipynb. The user changed the cell's text during the run; the outputs are those of the code you sent.",
    );
  });
});

describe('tools: executeCode, the overhead figures it logs', () => {
  test("call → cell running (hand-over plus pickup), kernel end → answer, the kernel's own time", () => {
    const timing = { requested: 1030, ended: 1200, toKernelStartMs: 20, kernelMs: 100, endSeenAfterMs: 5 };
    expect(overheadFigures(timing, 1000, 1210)).toBe(
      'overhead 50 ms from the call to the cell running (30 ms to hand it over), 15 ms from its end to the answer; the kernel ran it in 100 ms',
    );
  });

  test('a kernel that reports no times: only the hand-over', () => {
    expect(overheadFigures({ requested: 1030 }, 1000, 2000)).toBe('overhead 30 ms until the cell was handed to the kernel (the kernel reported no times)');
  });
});
