/**
 * The inner half of test/real/vscode-diagnostics-cold.test.ts: ONE scenario in a window nobody used
 * before (a new code-server, its language servers cold), driven the way a user would: claude started
 * in the integrated terminal, a prompt typed at once, the review saved with Ctrl+S (File > Save). No
 * editor is opened and no language server is warmed by the test. Runs only with $NC_COLD_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import { answer, screen, startClaudeInTerminal, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { installedExtension, sleep, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
}
interface Spec {
  scenario: 'json-review' | 'ts-accept-edits' | 'model-uri';
  workspace: string;
  results: string;
  /** The file the scenario is about (absolute). */
  file: string;
  /** claude's debug log (--debug-file), read by the outer test. */
  debugFile?: string;
}

const PROPOSAL_SCHEME = 'native-claude-proposal';
const SPEC_PATH = process.env.NC_COLD_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = {};

/** Every tab now, as `<label> <uri>`, to compare before and after (no tab may be left that the user did not have). */
function tabsNow(): string[] {
  return vscode.window.tabGroups.all.flatMap((g) =>
    g.tabs.map((t) => {
      const input = t.input as { uri?: vscode.Uri; modified?: vscode.Uri } | undefined;
      return `${t.label} ${(input?.uri ?? input?.modified)?.toString() ?? ''}`;
    }),
  );
}

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

describe('a fresh window: every problem reaches claude', function () {
  this.timeout(120_000);
  let api: NativeClaudeApi;
  let tabsBefore: string[] = [];

  before(async function () {
    if (!spec) this.skip();
    const ext = await installedExtension<NativeClaudeApi>();
    api = ext.exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    tabsBefore = tabsNow();
    const started = Date.now();
    await startClaudeInTerminal(spec.workspace, () => api.status().sessionCount === 1, spec.debugFile ? ['--debug-file', spec.debugFile] : []);
    data.claudeConnectedAfterMs = Date.now() - started;
  });

  after(async () => {
    if (!spec) return;
    data.finalScreen = await screen().catch((e: Error) => e.message);
  });

  it('runs the scenario', async function () {
    try {
      await runScenario(spec!);
      record('passed');
    } catch (error) {
      record('failed', error as Error);
      throw error;
    }
  });

  async function runScenario(s: Spec): Promise<void> {
    if (s.scenario === 'ts-accept-edits') {
      // Shift+Tab: claude's permission mode from default to accept-edits (no review: claude writes the file itself).
      await tmux('send-keys', '-t', 'main', 'BTab');
      await waitForScreen(/accept edits on/i, 10_000);
    }
    const promptedAt = Date.now();
    await submit(`scenario:${s.scenario}`);
    if (s.scenario === 'json-review') {
      const review = await waitFor(
        'the review diff of the new file',
        () =>
          vscode.window.tabGroups.all
            .flatMap((g) => g.tabs)
            .find(
              (t) =>
                t.input instanceof vscode.TabInputTextDiff &&
                t.input.modified.scheme === PROPOSAL_SCHEME &&
                path.posix.basename(t.input.modified.path) === path.basename(s.file),
            ),
        30_000,
      );
      const modified = (review.input as vscode.TabInputTextDiff).modified.toString();
      await waitFor('the proposal to be the active editor', () => vscode.window.activeTextEditor?.document.uri.toString() === modified, 10_000);
      await waitForScreen(/Opened changes in/, 10_000);
      // Ctrl+S on the proposal: the user accepts.
      await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
      await vscode.commands.executeCommand('workbench.action.files.save');
    }
    // claude asks before the model's first use of an IDE tool (model-uri, ts-accept-edits); the user says yes.
    const deadline = Date.now() + 60_000;
    let shown = await screen();
    while (!shown.includes(`done ${s.scenario}`)) {
      if (/Do you want to proceed\?/.test(shown)) await answer(/Do you want to proceed\?/, ['Enter'], 30_000);
      if (Date.now() > deadline) throw new Error(`claude did not finish ${s.scenario} within 60 s. Screen:\n${shown}`);
      await sleep(200);
      shown = await screen();
    }
    data.doneAfterMs = Date.now() - promptedAt;
    data.cliScreen = shown.split('\n').filter((l) => /diagnostic|getDiagnostics|Error|error/i.test(l));
    if (s.scenario !== 'model-uri') {
      assert.ok(fs.existsSync(s.file), `${s.file} was written`);
      // claude prints this under the tool when the diagnostics it got after its write have new items
      // (the problem, or the "Not checked yet" note when TypeScript's first check outlasted claude's wait;
      // the outer test checks which reached the model).
      assert.match(shown, s.scenario === 'ts-accept-edits' ? /Found \d+ new diagnostic issues? in 1 file/ : /Found 1 new diagnostic issue/);
    }
    // The tabs opened only so a language server would check a file are gone again. An accepted review
    // shows the file it wrote (a preview tab, on purpose: the user just accepted that change).
    const expectedTabs = s.scenario === 'json-review' ? [...tabsBefore, `${path.basename(s.file)} ${vscode.Uri.file(s.file).toString()}`] : tabsBefore;
    // They close 10 s after the last check that needed them (src/vscode/diagnostics/diagnosticsSource.ts CHECK_TABS_IDLE_MS).
    await waitFor('no tab left that the user did not have', () => JSON.stringify(tabsNow()) === JSON.stringify(expectedTabs), 16_000, 200).catch(
      () => undefined,
    );
    data.tabsBefore = tabsBefore;
    data.tabsAfter = tabsNow();
    assert.deepStrictEqual(tabsNow(), expectedTabs, 'tabs after the scenario');
    data.problemsInVsCode = vscode.languages.getDiagnostics(vscode.Uri.file(s.file)).map((d) => d.message);
  }
});
