/**
 * executeCode in real VS Code with a real kernel: the test-only python kernel (test/vscode/python-kernel)
 * is the notebook's controller, the calls come over the real IDE route (`/`) with the MCP SDK's client.
 * The inner half of test/real/vscode-execute-code.test.ts; approvalMode is "never" here (the question is
 * answered with claude in notebook-with-claude.test.ts). Runs only when that test started code-server.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, it, before } from '../bdd';
import { ideRoute, record, recordOutcomes, toolsRunActive, type ToolsConnection } from '../toolsClient';
import { openNotebook, pythonKernel, type PythonKernelApi } from '../notebook';
import { sleep, waitFor } from '../util';

/** The notebook the outer test wrote (NC_EXEC_NOTEBOOK). */
export const NOTEBOOK = process.env.NC_EXEC_NOTEBOOK ?? '';

/** The notebook shown and the active notebook editor (what executeCode runs in). */
export async function showNotebook(file = NOTEBOOK): Promise<vscode.NotebookEditor> {
  const editor = await openNotebook(file);
  await waitFor('the notebook editor to be active', () => vscode.window.activeNotebookEditor?.notebook === editor.notebook, 10_000);
  return editor;
}

export const textsOf = (result: CallToolResult) => result.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);

describe('executeCode in VS Code with a real kernel (direct calls, approvalMode never)', function () {
  this.timeout(120_000);
  let ide: ToolsConnection;
  let kernel: PythonKernelApi;
  let editor: vscode.NotebookEditor;
  recordOutcomes();

  const call = async (code: string, options: { signal?: AbortSignal } = {}): Promise<CallToolResult & { ms: number }> => {
    const started = performance.now();
    const result = (await ide.client.callTool({ name: 'executeCode', arguments: { code }, _meta: { 'claudecode/toolUseId': 'toolu_nc_inner' } }, undefined, {
      timeout: 120_000,
      ...options,
    })) as CallToolResult;
    return { ...result, ms: performance.now() - started };
  };
  const lastCell = () => editor.notebook.cellAt(editor.notebook.cellCount - 1);

  before(async function () {
    if (!toolsRunActive() || !NOTEBOOK) this.skip();
    kernel = await pythonKernel();
    ide = await ideRoute();
    editor = await showNotebook();
    // Focus elsewhere, as when the user types to claude in the terminal: the notebook stays the active one.
    vscode.window.createTerminal({ name: 'user' }).show(false);
    await sleep(500);
  });

  it('[nb-list] the IDE route lists executeCode with its {code} schema', async () => {
    const { tools } = await ide.client.listTools();
    const tool = tools.find((t) => t.name === 'executeCode');
    record('nb-list', { names: tools.map((t) => t.name), schema: tool?.inputSchema });
    assert.ok(tool, 'executeCode is listed');
    assert.deepStrictEqual(tool.inputSchema.required, ['code']);
  });

  it('[nb-state] x = 6 * 7; print(x) → 42, then print(x + 1) → 43: cells appended and shown, the notebook unsaved, the file untouched', async () => {
    const onDisk = fs.readFileSync(NOTEBOOK);
    const before = editor.notebook.cellCount;
    const first = await call('x = 6 * 7; print(x)');
    const second = await call('print(x + 1)');
    record('nb-state', { first: textsOf(first), second: textsOf(second), cells: editor.notebook.cellCount, visible: editor.visibleRanges });
    assert.deepStrictEqual(textsOf(first), ['42\n', `Ran in cell ${before + 1} of analysis.ipynb.`]);
    assert.deepStrictEqual(textsOf(second), ['43\n', `Ran in cell ${before + 2} of analysis.ipynb.`]);
    assert.strictEqual(editor.notebook.cellCount, before + 2);
    assert.strictEqual(lastCell().document.getText(), 'print(x + 1)');
    assert.strictEqual(lastCell().document.languageId, 'python');
    assert.ok(
      editor.visibleRanges.some((r) => r.start <= before + 1 && r.end > before + 1),
      `the cell is shown: ${JSON.stringify(editor.visibleRanges)}`,
    );
    assert.strictEqual(editor.notebook.isDirty, true, 'the added cells are unsaved changes');
    assert.deepStrictEqual(fs.readFileSync(NOTEBOOK), onDisk, 'the notebook was not saved');
    assert.strictEqual(vscode.window.activeTerminal?.name, 'user');
  });

  it('[nb-error] 1/0 → ZeroDivisionError with its traceback, no escapes', async () => {
    const result = await call('1/0');
    const [text, sentence] = textsOf(result);
    record('nb-error', { texts: textsOf(result) });
    assert.match(text, /^ZeroDivisionError: division by zero\n/);
    assert.match(text, /Traceback|line 1/);
    assert.ok(!text.includes('\u001b'), 'no ANSI escapes');
    assert.match(sentence, /^The code raised an error \(above\), in cell \d+ of analysis\.ipynb\.$/);
  });

  it('[nb-image] a PNG display → an image item (base64 PNG)', async () => {
    const result = await call('display_png(png_bytes())');
    const image = result.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
    record('nb-image', { types: result.content.map((c) => c.type), mime: image?.mimeType, bytes: image && Buffer.from(image.data, 'base64').length });
    assert.ok(image, 'an image item');
    assert.strictEqual(image.mimeType, 'image/png');
    assert.strictEqual(Buffer.from(image.data, 'base64').subarray(1, 4).toString(), 'PNG');
  });

  it('[nb-edit] the user adds a cell above during the run: the answer names where the cell is now', async () => {
    const pending = call('import time; time.sleep(2); print("slept")');
    await waitFor('the cell to be added', () => lastCell().document.getText().includes('time.sleep(2)'), 10_000);
    await sleep(500);
    const edit = new vscode.WorkspaceEdit();
    edit.set(editor.notebook.uri, [
      vscode.NotebookEdit.insertCells(0, [new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, '# added by the user', 'markdown')]),
    ]);
    assert.ok(await vscode.workspace.applyEdit(edit));
    const result = await call('print(x)');
    const answer = await pending;
    record('nb-edit', { texts: textsOf(answer), cells: editor.notebook.cellCount });
    const index = editor.notebook.getCells().findIndex((c) => c.document.getText().includes('time.sleep(2)'));
    assert.deepStrictEqual(textsOf(answer), ['slept\n', `Ran in cell ${index + 1} of analysis.ipynb.`]);
    assert.strictEqual(textsOf(result)[0], '42\n', 'a second call queued behind it ran after it');
  });

  it('[nb-cancel] the caller cancels: the cell is interrupted, the kernel and its state stay', async () => {
    const pid = kernel.process(editor.notebook.uri)?.pid;
    const controller = new AbortController();
    const pending = call('import time\nfor i in range(600): time.sleep(0.1)', { signal: controller.signal });
    await waitFor('the cell to be added', () => lastCell().document.getText().includes('range(600)'), 10_000);
    const cell = lastCell();
    await sleep(1500);
    const cancelledAt = Date.now();
    controller.abort();
    await assert.rejects(pending, /abort/i);
    await waitFor('the cell to end', () => cell.executionSummary?.success !== undefined, 10_000);
    const stoppedMs = Date.now() - cancelledAt;
    const outputs = cell.outputs.flatMap((o) => o.items.map((i) => `${i.mime} ${new TextDecoder().decode(i.data).slice(0, 200)}`));
    const after = await call('print(x)');
    record('nb-cancel', {
      stoppedMs,
      success: cell.executionSummary?.success,
      outputs,
      after: textsOf(after),
      pid,
      pidAfter: kernel.process(editor.notebook.uri)?.pid,
    });
    assert.strictEqual(cell.executionSummary?.success, false);
    assert.ok(
      outputs.some((o) => o.includes('KeyboardInterrupt')),
      `interrupted: ${outputs.join(' | ')}`,
    );
    assert.strictEqual(textsOf(after)[0], '42\n', 'the state stays');
    assert.strictEqual(kernel.process(editor.notebook.uri)?.pid, pid, 'the same python process');
  });

  it("[nb-overhead] 20 calls of `pass` (the extension log has each call's overhead)", async () => {
    const ms: number[] = [];
    const cells: number[] = [];
    for (let i = 0; i < 20; i++) {
      const result = await call(`pass  # ${i}`);
      const m = /^Ran without output in cell (\d+)/.exec(textsOf(result)[0]);
      assert.ok(m, textsOf(result)[0]);
      cells.push(Number(m[1]));
      ms.push(Math.round(result.ms));
    }
    record('nb-overhead', { callMs: ms, cells });
  });

  it('[nb-died] the kernel dies mid-run: a clear answer; the next call gets a fresh kernel', async () => {
    const result = await call('import os, time; print("going"); time.sleep(0.3); os._exit(3)');
    const next = await call('print("fresh", "x" in globals())');
    record('nb-died', { texts: textsOf(result), next: textsOf(next) });
    assert.match(textsOf(result).join('\n'), /died|KernelDied/);
    assert.deepStrictEqual(textsOf(next)[0], 'fresh False\n');
  });

  it("[nb-nokernel] no kernel: VS Code's kernel picker is left to the user; on Esc a clear answer within seconds, no cell left", async () => {
    const before = editor.notebook.cellCount;
    kernel.disable();
    await sleep(500);
    const started = Date.now();
    let result: CallToolResult;
    let answered = false;
    let escAfterMs: number | undefined;
    try {
      const pending = call('print(1)').finally(() => (answered = true));
      // The extension no longer closes the picker (it closed any quick input, the user's own too): the
      // user answers it. Nothing answers before they do; then they press Esc (no kernel chosen).
      await sleep(3000);
      assert.strictEqual(answered, false, 'the run waits for the user at the kernel picker');
      escAfterMs = Date.now() - started;
      while (!answered) {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await Promise.race([pending.catch(() => undefined), sleep(500)]);
      }
      result = await pending;
    } finally {
      kernel.enable();
    }
    const ms = Date.now() - started - (escAfterMs ?? 0);
    await sleep(300);
    record('nb-nokernel', { texts: textsOf(result), isError: result.isError, ms, cells: editor.notebook.cellCount, before });
    assert.strictEqual(result.isError, true);
    assert.match(textsOf(result).join('\n'), /has no kernel selected/);
    assert.ok(ms < 10_000, `answered in ${ms} ms`);
    await waitFor('the unrun cell to be removed', () => editor.notebook.cellCount === before, 5_000);
    await kernel.select(editor);
    const again = await call('print("back")');
    assert.strictEqual(textsOf(again)[0], 'back\n');
  });

  it('[nb-closed] the user closes the notebook during the run: an answer that says what happened', async () => {
    const pending = call('import time; time.sleep(3); print("late")');
    await waitFor('the cell to be added', () => lastCell().document.getText().includes('time.sleep(3)'), 10_000);
    await sleep(500);
    // The user closes it and drops the unsaved changes (Revert and Close: no dialog).
    await vscode.window.showNotebookDocument(editor.notebook);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    const result = await pending;
    // VS Code keeps a notebook document open a while after its last editor closed (or for good, while an
    // extension holds it): then the cell runs to its end and the answer is its output.
    const closed = editor.notebook.isClosed;
    record('nb-closed', { texts: textsOf(result), isError: result.isError, documentClosed: closed });
    if (closed) assert.match(textsOf(result).join('\n'), /was closed during the run/);
    else assert.match(textsOf(result).join('\n'), /^late\n\nRan in cell \d+ of analysis\.ipynb\.$/);
  });

  it('[nb-none] no notebook open: an error saying what to do', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor('no notebook editor', () => vscode.window.activeNotebookEditor === undefined && vscode.window.visibleNotebookEditors.length === 0, 10_000);
    const result = await call('print(1)');
    record('nb-none', { texts: textsOf(result), isError: result.isError });
    assert.strictEqual(result.isError, true);
    assert.match(textsOf(result)[0], /^No notebook is open in VS Code: .*Ask the user to open the notebook/);
  });
});
