/**
 * executeCode driven by the real `claude` in the integrated terminal (scripted fake model, outer test
 * test/real/vscode-execute-code.test.ts): the model's mcp__ide__executeCode calls run in the notebook's
 * kernel after the user clicks Run in VS Code's question (a notification, clicked by the outer test
 * through a probe), one is refused with Don't Run, and one is cancelled with Esc in claude.
 * Runs only with $NC_EXEC_CLAUDE.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { describe, it, before, after } from '../bdd';
import { screen, startClaudeInTerminal, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { record, recordOutcomes, setUserSetting, toolsRunActive } from '../toolsClient';
import { installedExtension, probe, sleep, waitFor } from '../util';
import { showNotebook } from './notebook-execute.test';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
}
const WORKSPACE = process.env.NC_EXEC_CLAUDE ?? '';

/** The question's notification, as the outer test read it before clicking `button`. */
interface Asked {
  message: string;
  buttons: string[];
}

describe('executeCode with claude in the terminal', function () {
  this.timeout(180_000);
  let api: NativeClaudeApi;
  let editor: vscode.NotebookEditor;
  recordOutcomes();

  before(async function () {
    if (!toolsRunActive() || !WORKSPACE) this.skip();
    await setUserSetting('nativeClaude', 'approvalMode', 'write-only');
    api = (await installedExtension<NativeClaudeApi>()).exports;
    editor = await showNotebook();
    const debugFile = process.env.NC_EXEC_CLAUDE_DEBUG;
    await startClaudeInTerminal(WORKSPACE, () => api.status().sessionCount >= 1, debugFile ? ['--debug-file', debugFile] : []);
  });

  after(async () => {
    if (!WORKSPACE) return;
    record('claude', { finalScreen: await screen().catch((e: Error) => e.message) });
  });

  const lastCell = () => editor.notebook.cellAt(editor.notebook.cellCount - 1);

  it('[claude] 42, 43, ZeroDivisionError, an image, a refusal, a cancellation', async () => {
    const cellsBefore = editor.notebook.cellCount;
    await submit('scenario:notebook');
    const asked: Asked[] = [];
    const answer = async (button: string, code: string) => {
      const question = await probe<Asked>('notification', { button, contains: code }, 60_000);
      asked.push(question);
    };
    await answer('Run', 'x = 6 * 7; print(x)');
    await answer('Run', 'print(x + 1)');
    await answer('Run', '1/0');
    await answer('Run', 'display_png(png_bytes())');
    await answer("Don't Run", "os.remove('data.csv')");
    await answer('Run', 'time.sleep(60)');
    const cell = await waitFor('the long cell', () => (lastCell().document.getText().includes('time.sleep(60)') ? lastCell() : undefined), 20_000);
    await sleep(2000);
    const escAt = Date.now();
    await tmux('send-keys', '-t', 'main', 'Escape');
    await waitFor('the long cell to be interrupted', () => cell.executionSummary?.success !== undefined, 15_000);
    const interruptedMs = Date.now() - escAt;
    const outputs = cell.outputs.flatMap((o) => o.items.map((i) => new TextDecoder().decode(i.data).slice(0, 300)));
    record('claude', { asked, interruptedMs, success: cell.executionSummary?.success, outputs });
    assert.strictEqual(cell.executionSummary?.success, false, 'the cell did not finish its 60 s');
    assert.ok(
      outputs.some((o) => o.includes('KeyboardInterrupt')),
      `interrupted: ${outputs.join(' | ')}`,
    );
    // What claude prints differs per line (2.1: "Interrupted"; 2.0.77: "MCP error -32001: AbortError: This
    // operation was aborted"; 1.0.128: nothing under the call); the interrupted cell above is the check.
    record('claude', { screenAfterEsc: (await waitForScreen(/Interrupted|AbortError/, 3_000).catch(() => screen())).split('\n').slice(-12) });
    await sleep(500);
    await submit('finish');
    await waitForScreen('done notebook', 60_000);
    const texts = editor.notebook
      .getCells()
      .slice(cellsBefore)
      .map((c) => c.document.getText());
    record('claude', { cells: texts, screen: (await screen()).split('\n').slice(-30) });
    // Five ran (the refused code never became a cell).
    assert.deepStrictEqual(texts, ['x = 6 * 7; print(x)', 'print(x + 1)', '1/0', 'display_png(png_bytes())', 'import time; time.sleep(60)']);
  });
});
