/**
 * The inner half of test/real/vscode-language-claude.test.ts: ONE fresh window and ONE real claude typed
 * into its terminal, asking VS Code's TypeScript through the language tools of the tools route. Nothing
 * opens an editor or warms a language server before claude's first prompt: the first scenario's tool call
 * is the window's first question to TypeScript. The scenarios run in the order given (the outer test
 * repeats them in later rounds, so those run in a window with history). At the end, no tab is left that
 * the user did not have (the tabs the tools open for a check close again). The outer test scripts the
 * model and checks what it received. Runs only with $NC_LANGUAGE_CLAUDE_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import { before, describe, it } from '../bdd';
import { screen, startClaudeInTerminal, submit, waitForDone } from '../claudeInTerminal';
import { installedExtension, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
}
interface Spec {
  workspace: string;
  results: string;
  debugFile: string;
  /** Prompts in order (`scenario:<name>`). */
  scenarios: string[];
}

const SPEC_PATH = process.env.NC_LANGUAGE_CLAUDE_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = { scenarios: {} };

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

/** Every tab now, as `<label> <uri>`. */
function tabsNow(): string[] {
  return vscode.window.tabGroups.all.flatMap((g) =>
    g.tabs.map((t) => {
      const input = t.input as { uri?: vscode.Uri; modified?: vscode.Uri } | undefined;
      return `${t.label} ${(input?.uri ?? input?.modified)?.toString() ?? ''}`;
    }),
  );
}

describe('one fresh window, one claude: the language tools through the tools route', function () {
  this.timeout(600_000);
  let api: NativeClaudeApi;
  let tabsBefore: string[] = [];

  before(async function () {
    if (!spec) this.skip();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    tabsBefore = tabsNow();
    const started = Date.now();
    await startClaudeInTerminal(spec.workspace, () => api.status().sessionCount === 1, ['--debug-file', spec.debugFile]);
    data.claudeReadyAfterMs = Date.now() - started;
  });

  it('runs the scenarios', async function () {
    try {
      for (const name of spec!.scenarios) {
        const started = Date.now();
        await submit(`scenario:${name}`);
        const { proceedAnswered } = await waitForDone(name, 90_000);
        (data.scenarios as Record<string, unknown>)[name] = { doneAfterMs: Date.now() - started, proceedAnswered };
      }
      // The check tabs close 10 s after the last check that needed them (as the diagnostics' do).
      await waitFor('no tab left that the user did not have', () => JSON.stringify(tabsNow()) === JSON.stringify(tabsBefore), 16_000, 200).catch(
        () => undefined,
      );
      data.tabsBefore = tabsBefore;
      data.tabsAfter = tabsNow();
      assert.deepStrictEqual(tabsNow(), tabsBefore, 'tabs after the scenarios');
      record('passed');
    } catch (error) {
      data.screen = await screen().catch((e: Error) => e.message);
      record('failed', error as Error);
      throw error;
    }
  });
});
