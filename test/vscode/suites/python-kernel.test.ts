/**
 * The test python kernel (test/vscode/python-kernel) in real VS Code, driven only through the public
 * notebook API and commands: how VS Code picks the controller, text/result/error/image outputs, state
 * that persists between cells, streaming, interrupt, the process dying, and no kernel at all. The inner
 * half of test/real/vscode-python-kernel.test.ts; runs only when that test started code-server.
 */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import {
  appendCell,
  cancelCell,
  cellEnded,
  ERROR,
  executeCell,
  openNotebook,
  outputsOf,
  pythonKernel,
  runCell,
  STDOUT,
  textOf,
  writeNotebook,
  type PythonKernelApi,
} from '../notebook';
import { record, recordOutcomes, toolsRunActive, workspaceRoot } from '../toolsClient';
import { nextEvent, probe, sleep, waitFor } from '../util';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('test python kernel', function () {
  this.timeout(60_000);
  let kernel: PythonKernelApi;
  let ws: string;
  let nb: vscode.NotebookDocument;
  recordOutcomes();

  before(async function () {
    if (!toolsRunActive()) this.skip();
    ws = workspaceRoot();
    kernel = await pythonKernel();
  });

  after(async () => {
    if (kernel && !kernel.isEnabled()) kernel.enable();
  });

  it('[selection] Preferred affinity does not select the controller; a run with it the only kernel does, and notebook.selectKernel {id, extension} does', async () => {
    const fileA = path.join(ws, 'selection-run.ipynb');
    writeNotebook(fileA);
    const editorA = await openNotebook(fileA);
    // Give VS Code time to act on the affinity, if it would.
    await sleep(1500);
    const beforeRun = kernel.isSelected(editorA.notebook.uri);
    record('selection', { beforeRun: beforeRun ?? 'never told' });
    assert.notStrictEqual(beforeRun, true, 'VS Code selected the Preferred controller before any run');
    const cell = await appendCell(editorA.notebook, 'print("ran without a picker")');
    const summary = await runCell(cell);
    record('selection', { firstRun: summary, afterRun: kernel.isSelected(editorA.notebook.uri) });
    assert.strictEqual(textOf(cell, STDOUT), 'ran without a picker\n');
    assert.strictEqual(kernel.isSelected(editorA.notebook.uri), true);

    const fileB = path.join(ws, 'selection-command.ipynb');
    writeNotebook(fileB);
    const editorB = await openNotebook(fileB);
    const answer = await kernel.select(editorB);
    await waitFor('the controller to be told it is selected for selection-command.ipynb', () => kernel.isSelected(editorB.notebook.uri) === true, 5_000);
    record('selection', { selectCommandAnswer: answer ?? null });
  });

  it('[persist] state persists between cells: x = 6 * 7; print(x) → 42, then print(x + 1) → 43', async () => {
    const file = path.join(ws, 'kernel.ipynb');
    writeNotebook(file);
    const editor = await openNotebook(file);
    nb = editor.notebook;
    await kernel.select(editor);
    const a = await appendCell(nb, 'x = 6 * 7\nprint(x)');
    const sa = await runCell(a);
    const b = await appendCell(nb, 'print(x + 1)');
    const sb = await runCell(b);
    // Which copy ran: the development folder or the installed .vsix.
    const kernelPath = vscode.extensions.getExtension('native-claude-test.native-claude-test-python-kernel')?.extensionPath;
    record('persist', { kernelPath, first: sa, second: sb, outputs: [outputsOf(a), outputsOf(b)] });
    assert.strictEqual(textOf(a, STDOUT), '42\n');
    assert.strictEqual(textOf(b, STDOUT), '43\n');
    assert.strictEqual(sa.success, true);
    assert.strictEqual(sb.success, true);
    assert.ok(sa.executionOrder! >= 1 && sb.executionOrder === sa.executionOrder! + 1, `execution orders ${sa.executionOrder}, ${sb.executionOrder}`);
    assert.ok(sb.timing && sb.timing.endTime >= sb.timing.startTime, JSON.stringify(sb.timing));
    assert.deepStrictEqual(
      a.outputs.map((o) => o.metadata?.outputType),
      ['stream'],
    );
  });

  it('[result] the last expression is an execute_result with text/plain', async () => {
    const c = await appendCell(nb, 'y = [x, "a"]\ny');
    const s = await runCell(c);
    const outs = outputsOf(c);
    record('result', { summary: s, outputs: outs.map((o) => ({ metadata: o.metadata, items: o.items.map((i) => [i.mime, i.text]) })) });
    assert.strictEqual(s.success, true);
    assert.strictEqual(outs.length, 1);
    assert.strictEqual(outs[0].metadata?.outputType, 'execute_result');
    assert.deepStrictEqual(
      outs[0].items.map((i) => [i.mime, i.text]),
      [['text/plain', "[42, 'a']"]],
    );
  });

  it('[error] an exception is an error output (name, message, ANSI-coloured traceback) and success false', async () => {
    const c = await appendCell(nb, 'def f():\n    return 1/0\nf()');
    const s = await runCell(c);
    const items = outputsOf(c).flatMap((o) => o.items);
    record('error', { summary: s, items: items.map((i) => [i.mime, i.text]) });
    assert.strictEqual(s.success, false);
    assert.deepStrictEqual(
      items.map((i) => i.mime),
      [ERROR],
    );
    const err = JSON.parse(items[0].text) as { name: string; message: string; stack: string };
    assert.strictEqual(err.name, 'ZeroDivisionError');
    assert.strictEqual(err.message, 'division by zero');
    assert.match(err.stack, /\x1b\[[0-9;]*m/, 'the traceback has ANSI colour escapes');
    const plain = err.stack.replace(/\x1b\[[0-9;]*m/g, '');
    assert.match(plain, /Cell In\[\d+\], line 3\n----> 3 f\(\)/);
    assert.match(plain, /----> 2 return 1\/0/);
    assert.match(plain, /ZeroDivisionError: division by zero$/);
  });

  it('[image] display_png(png_bytes(...)) is an image/png output; display_html/display_json give text/html and application/json', async () => {
    const c = await appendCell(
      nb,
      'display_png(png_bytes(32, 16, lambda x, y: (x * 8, y * 16, 128)))\ndisplay_html("<b>bold</b>")\ndisplay_json({"k": [1, 2]})\nprint("after")',
    );
    const s = await runCell(c);
    const outs = outputsOf(c);
    record('image', { summary: s, outputs: outs.map((o) => ({ metadata: o.metadata, mimes: o.items.map((i) => i.mime) })) });
    assert.strictEqual(s.success, true);
    assert.deepStrictEqual(
      outs.map((o) => o.items.map((i) => i.mime)),
      [['image/png', 'text/plain'], ['text/html', 'text/plain'], ['application/json', 'text/plain'], [STDOUT]],
    );
    const png = outs[0].items[0].bytes;
    assert.deepStrictEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
    // IHDR: width 32, height 16.
    assert.deepStrictEqual([Buffer.from(png).readUInt32BE(16), Buffer.from(png).readUInt32BE(20)], [32, 16]);
    assert.strictEqual(outs[1].items[0].text, '<b>bold</b>');
    assert.deepStrictEqual(JSON.parse(outs[2].items[0].text), { k: [1, 2] });
    assert.strictEqual(outs[0].metadata?.outputType, 'display_data');
  });

  it('[stream] output appears while the cell still runs', async () => {
    const c = await appendCell(nb, 'import time\nprint("tick 1", flush=True)\ntime.sleep(1.5)\nprint("tick 2")');
    const seenWhileRunning = nextEvent(vscode.workspace.onDidChangeNotebookDocument, 'tick 1 while running', 15_000, (e) =>
      e.cellChanges.some((ch) => ch.cell === c && textOf(c, STDOUT).includes('tick 1') && !c.executionSummary?.timing?.endTime),
    );
    const started = Date.now();
    const end = cellEnded(c);
    void executeCell(c);
    await seenWhileRunning;
    const tickAfterMs = Date.now() - started;
    const s = await end;
    record('stream', { tickAfterMs, totalMs: Date.now() - started, outputs: outputsOf(c).map((o) => o.items.map((i) => [i.mime, i.text])) });
    assert.strictEqual(s.success, true);
    assert.strictEqual(textOf(c, STDOUT), 'tick 1\ntick 2\n');
    assert.ok(tickAfterMs < Date.now() - started - 1000, `tick 1 came ${tickAfterMs} ms after the start, the cell ended at ${Date.now() - started} ms`);
  });

  it('[interrupt] notebook.cell.cancelExecution interrupts a running cell (KeyboardInterrupt, success false); state survives', async () => {
    const pidBefore = kernel.process(nb.uri)?.pid;
    const c = await appendCell(nb, 'import time\nprint("sleeping", flush=True)\ntime.sleep(60)\nprint("not reached")');
    const end = cellEnded(c, 20_000);
    const started = Date.now();
    const running = executeCell(c);
    await waitFor('the cell to print before sleeping', () => textOf(c, STDOUT).includes('sleeping'), 10_000);
    await cancelCell(c);
    const s = await end;
    const ms = Date.now() - started;
    await running;
    const items = outputsOf(c).flatMap((o) => o.items);
    record('interrupt', { summary: s, ms, items: items.map((i) => [i.mime, i.text]) });
    assert.strictEqual(s.success, false);
    assert.ok(ms < 15_000, `the cell took ${ms} ms`);
    assert.deepStrictEqual(
      items.map((i) => i.mime),
      [STDOUT, ERROR],
    );
    const err = JSON.parse(items[1].text) as { name: string; stack: string };
    assert.strictEqual(err.name, 'KeyboardInterrupt');
    assert.match(
      err.stack.replace(/\x1b\[[0-9;]*m/g, ''),
      /----> 3 time\.sleep\(60\)\nKeyboardInterrupt: $/,
      'the traceback ends in the cell, not in the driver',
    );
    const next = await appendCell(nb, 'print(x)');
    await runCell(next);
    assert.strictEqual(textOf(next, STDOUT), '42\n');
    assert.strictEqual(kernel.process(nb.uri)?.pid, pidBefore, 'the same python process');
  });

  it('[died] the process dying mid-run ends the cell with success false and a KernelDied error; the next run gets a fresh process', async () => {
    const pidBefore = kernel.process(nb.uri)?.pid;
    const c = await appendCell(nb, 'import os\nprint("bye", flush=True)\nos._exit(1)');
    const s = await runCell(c);
    const items = outputsOf(c).flatMap((o) => o.items);
    record('died', { summary: s, pidBefore, items: items.map((i) => [i.mime, i.text]) });
    assert.strictEqual(s.success, false);
    assert.strictEqual(items[items.length - 1].mime, ERROR);
    const err = JSON.parse(items[items.length - 1].text) as { name: string; message: string };
    assert.strictEqual(err.name, 'KernelDied');
    assert.match(err.message, /ended with exit code 1/);
    const next = await appendCell(nb, 'print("x" in globals())');
    const s2 = await runCell(next);
    record('died', { next: s2, pidAfter: kernel.process(nb.uri)?.pid });
    assert.strictEqual(textOf(next, STDOUT), 'False\n');
    assert.notStrictEqual(kernel.process(nb.uri)?.pid, pidBefore);
    assert.strictEqual(s2.executionOrder, 1, 'the execution count restarts with the process');
  });

  it('[queue] cells of one run go one after another; after a failing cell the rest of that run is dropped (as Jupyter does)', async () => {
    const a = await appendCell(nb, 'q = 1\nprint("first")');
    const b = await appendCell(nb, 'print("second", q)');
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: a.index, end: b.index + 1 }], document: nb.uri });
    await waitFor('both cells to end', () => a.executionSummary?.success !== undefined && b.executionSummary?.success !== undefined, 10_000);
    assert.deepStrictEqual([textOf(a, STDOUT), textOf(b, STDOUT)], ['first\n', 'second 1\n']);
    assert.strictEqual(b.executionSummary!.executionOrder, a.executionSummary!.executionOrder! + 1);
    const bad = await appendCell(nb, '1/0');
    const dropped = await appendCell(nb, 'print("dropped")');
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: bad.index, end: dropped.index + 1 }], document: nb.uri });
    record('queue', { ran: [a.executionSummary, b.executionSummary], bad: bad.executionSummary ?? null, dropped: dropped.executionSummary ?? null });
    assert.strictEqual(bad.executionSummary?.success, false);
    assert.deepStrictEqual(outputsOf(dropped), []);
    assert.strictEqual(dropped.executionSummary?.success, undefined);
  });

  it('[interrupt-stuck] a cell that ignores the interrupt is killed after the grace period (KernelDied), the next run gets a fresh process', async () => {
    const pidBefore = kernel.process(nb.uri)?.pid;
    const c = await appendCell(nb, 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint("deaf", flush=True)\ntime.sleep(60)');
    const end = cellEnded(c, 30_000);
    const running = executeCell(c);
    await waitFor('the cell to print before sleeping', () => textOf(c, STDOUT).includes('deaf'), 10_000);
    const started = Date.now();
    await cancelCell(c);
    const s = await end;
    const ms = Date.now() - started;
    await running;
    const items = outputsOf(c).flatMap((o) => o.items);
    record('interrupt-stuck', { summary: s, msAfterCancel: ms, items: items.map((i) => [i.mime, i.text]) });
    assert.strictEqual(s.success, false);
    const err = JSON.parse(items[items.length - 1].text) as { name: string; message: string };
    assert.strictEqual(err.name, 'KernelDied');
    assert.match(err.message, /did not stop within \d+ ms of the interrupt/);
    const next = await appendCell(nb, 'print("fresh")');
    await runCell(next);
    assert.strictEqual(textOf(next, STDOUT), 'fresh\n');
    assert.notStrictEqual(kernel.process(nb.uri)?.pid, pidBefore);
  });

  it('[close] closing the notebook editor during a run: the document stays open, the run goes on (cancelExecution without an editor does not reach it)', async () => {
    const file = path.join(ws, 'close.ipynb');
    writeNotebook(file);
    const editor = await openNotebook(file);
    const doc = editor.notebook;
    await kernel.select(editor);
    const c = await appendCell(doc, 'import time\nprint("long", flush=True)\ntime.sleep(60)');
    const started = Date.now();
    const end = cellEnded(c, 30_000);
    let commandMs: number | undefined;
    const running = Promise.resolve(executeCell(c)).then(() => (commandMs = Date.now() - started));
    await waitFor('the cell to print before sleeping', () => textOf(c, STDOUT).includes('long'), 10_000);
    let closedAfterMs: number | undefined;
    const sub = vscode.workspace.onDidCloseNotebookDocument((d) => {
      if (d === doc) closedAfterMs = Date.now() - started;
    });
    try {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      const tabOpen = () =>
        vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputNotebook && t.input.uri.fsPath === file));
      await waitFor('the notebook tab to close', () => !tabOpen(), 10_000);
      await sleep(2000);
      const afterClose = {
        isClosed: doc.isClosed,
        closedAfterMs: closedAfterMs ?? null,
        cellEnded: c.executionSummary?.timing?.endTime !== undefined,
        commandMs: commandMs ?? null,
      };
      await cancelCell(c);
      await sleep(2000);
      const afterCancelCommand = { cellEnded: c.executionSummary?.timing?.endTime !== undefined, commandMs: commandMs ?? null };
      record('close', { afterClose, afterCancelCommand });
      assert.deepStrictEqual({ isClosed: afterClose.isClosed, cellEnded: afterClose.cellEnded }, { isClosed: false, cellEnded: false });
    } finally {
      // The kernel's own interrupt ends the run whatever VS Code did.
      kernel.interrupt(doc.uri);
      sub.dispose();
    }
    const s = await end;
    await running;
    record('close', { summary: s, commandMs });
    assert.strictEqual(s.success, false);
  });

  it('[no-kernel] with no controller, notebook.cell.execute opens the kernel picker and waits on it; the cell does not run', async () => {
    kernel.disable();
    const c = await appendCell(nb, 'print("must not run")');
    let resolved = false;
    const command = Promise.resolve(executeCell(c)).then(
      () => (resolved = true),
      (e) => ((resolved = true), String(e)),
    );
    const picker = await probe<{ visible: boolean; placeholder: string; items: string[] }>('quickInput', undefined, 15_000);
    record('no-kernel', { picker, resolvedWhilePickerOpen: resolved, summary: c.executionSummary ?? null });
    assert.strictEqual(picker.visible, true);
    assert.strictEqual(resolved, false, 'the command waits for the picker');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    const answer = await command;
    record('no-kernel', { commandAnswer: answer, outputs: outputsOf(c).length, summaryAfter: c.executionSummary ?? null });
    assert.deepStrictEqual(outputsOf(c), []);
    assert.ok(!c.executionSummary || c.executionSummary.success === undefined, JSON.stringify(c.executionSummary));
    kernel.enable();
    await kernel.select(vscode.window.activeNotebookEditor);
    const again = await appendCell(nb, 'print("back")');
    await runCell(again);
    assert.strictEqual(textOf(again, STDOUT), 'back\n');
  });
});
