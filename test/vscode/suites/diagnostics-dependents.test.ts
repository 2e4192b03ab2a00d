/**
 * The inner half of test/real/vscode-diagnostics-dependents.test.ts: ONE window and ONE claude for every
 * scenario, in order, so each later one runs in a window with history. claude is driven as a user would:
 * prompts typed into the integrated terminal, reviews saved with Ctrl+S (claude's own) or accepted with
 * the review's command (the tools route's). The outer test scripts the model and checks what reached it.
 * A language server held back on purpose is registered here for `.ini` files: its first check of a
 * document takes HELD_BACK_MS, and it answers hovers only once that check is done (as TypeScript does
 * while it loads a project), so claude's `{}` after its write runs out of time every run.
 * Runs only with $NC_DEPENDENTS_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import { answer, screen, startClaudeInTerminal, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { openedReview, PROPOSAL_SCHEME } from '../toolsClient';
import { installedExtension, sleep, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
}
interface Spec {
  workspace: string;
  results: string;
  debugFile?: string;
  /** Prompts in order (`scenario:<name>`); the names say what the inner side does. */
  scenarios: string[];
  /** How long the held-back server's first check of a document takes. */
  heldBackMs: number;
}

const SPEC_PATH = process.env.NC_DEPENDENTS_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = { scenarios: {} };

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

function tabUris(): string[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input as { uri?: vscode.Uri } | undefined)?.uri?.fsPath ?? '');
}

/** A language server held back on purpose: a first check that takes `ms`, hovers answered only after it. */
function heldBackServer(ms: number): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('held-back');
  const checked = new Map<string, Promise<void>>();
  const check = (doc: vscode.TextDocument) => {
    if (doc.languageId !== 'ini' || doc.uri.scheme !== 'file') return undefined;
    const key = doc.uri.toString();
    if (!checked.has(key)) {
      checked.set(
        key,
        sleep(ms).then(() => {
          const line = doc
            .getText()
            .split('\n')
            .findIndex((l) => /^\s*[\w.]+\s*$/.test(l));
          collection.set(
            doc.uri,
            line < 0
              ? []
              : [
                  Object.assign(
                    new vscode.Diagnostic(new vscode.Range(line, 0, line, 1), 'held-back: a key without a value', vscode.DiagnosticSeverity.Error),
                    { source: 'held-back' },
                  ),
                ],
          );
        }),
      );
    }
    return checked.get(key);
  };
  for (const doc of vscode.workspace.textDocuments) void check(doc);
  return vscode.Disposable.from(
    collection,
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      checked.delete(doc.uri.toString());
      collection.delete(doc.uri);
    }),
    vscode.languages.registerHoverProvider('ini', {
      provideHover: async (doc) => {
        await check(doc);
        return new vscode.Hover('checked');
      },
    }),
  );
}

describe('one window, one claude: the problems a change causes elsewhere, and a history that changes nothing', function () {
  this.timeout(900_000);
  let api: NativeClaudeApi;
  let server: vscode.Disposable | undefined;

  before(async function () {
    if (!spec) this.skip();
    server = heldBackServer(spec.heldBackMs);
    const ext = await installedExtension<NativeClaudeApi>();
    api = ext.exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    await startClaudeInTerminal(spec.workspace, () => api.status().sessionCount === 1, spec.debugFile ? ['--debug-file', spec.debugFile] : []);
  });

  after(() => server?.dispose());

  it('runs the scenarios', async function () {
    try {
      for (const name of spec!.scenarios) await runScenario(name);
      // The check tabs (the files that use the changed ones) are closed again: no tab of theirs is left.
      const dependents = ['src/main.ts', 'src/u1.ts', 'src/u2.ts', 'src/u3.ts', 'src/caller.ts', 'src/clean/user.ts'].map((f) => path.join(spec!.workspace, f));
      await waitFor('no check tab left', () => !tabUris().some((u) => dependents.includes(u)), 16_000, 200).catch(() => undefined);
      data.tabsAtEnd = tabUris();
      assert.deepStrictEqual(
        tabUris().filter((u) => dependents.includes(u)),
        [],
        'check tabs left open',
      );
      record('passed');
    } catch (error) {
      record('failed', error as Error);
      throw error;
    }
  });

  async function runScenario(name: string): Promise<void> {
    const started = Date.now();
    const abs = (rel: string) => path.join(spec!.workspace, rel);
    if (name === 'new-session') {
      // The user quits claude (its tmux server killed, claude with it) and starts a new one in the same
      // window, in a new terminal; it writes its own debug file.
      await tmux('kill-server');
      await waitFor("claude's session to end", () => api.status().sessionCount === 0, 20_000);
      await startClaudeInTerminal(spec!.workspace, () => api.status().sessionCount === 1, spec!.debugFile ? ['--debug-file', `${spec!.debugFile}.2`] : []);
      return;
    }
    if (name === 'accept-edits') {
      // Shift+Tab: claude's permission mode from default to accept-edits (claude writes files itself).
      await tmux('send-keys', '-t', 'main', 'BTab');
      await waitForScreen(/accept edits on/i, 10_000);
      return;
    }
    await submit(`scenario:${name}`);
    if (name.startsWith('json-')) {
      const file = jsonFileOf(name);
      const review = await waitFor(
        `the review of ${file}`,
        () =>
          vscode.window.tabGroups.all
            .flatMap((g) => g.tabs)
            .find(
              (t) =>
                t.input instanceof vscode.TabInputTextDiff &&
                t.input.modified.scheme === PROPOSAL_SCHEME &&
                path.posix.basename(t.input.modified.path) === file,
            ),
        30_000,
      );
      const modified = (review.input as vscode.TabInputTextDiff).modified.toString();
      await waitFor('the proposal to be the active editor', () => vscode.window.activeTextEditor?.document.uri.toString() === modified, 10_000);
      await waitForScreen(/Opened changes in/, 10_000);
      await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
      await vscode.commands.executeCommand('workbench.action.files.save');
    }
    if (name === 'apply-diff') {
      const review = await openedReview('api.ts', 60_000);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    }
    // claude asks before the model's first use of an IDE tool; the user says yes.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const shown = await screen();
      if (shown.includes(`done ${name}`)) break;
      if (/Do you want to proceed\?/.test(shown)) await answer(/Do you want to proceed\?/, ['Enter'], 15_000);
      if (Date.now() > deadline) throw new Error(`claude did not finish ${name} within 90 s. Screen:\n${shown}`);
      await sleep(200);
    }
    (data.scenarios as Record<string, unknown>)[name] = { doneAfterMs: Date.now() - started };
    // The JSON flow's file is deleted before the next run: the same path is then a new file again. After
    // json-rename-from it is renamed instead (as `mv` would), and json-rename-back then writes the old path.
    if (name === 'json-rename-from') fs.renameSync(abs('data.json'), abs('renamed.json'));
    else if (name.startsWith('json-')) for (const file of [jsonFileOf(name), 'renamed.json']) fs.rmSync(abs(file), { force: true });
  }

  /** The file a JSON flow's claude writes: data.json for the same-path and rename flows, else a new name. */
  function jsonFileOf(name: string): string {
    return name.startsWith('json-fresh') ? `${name}.json` : 'data.json';
  }
});
