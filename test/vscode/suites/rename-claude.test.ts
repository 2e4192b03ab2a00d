/**
 * The inner half of test/real/vscode-rename.test.ts: ONE window (fresh: the first round's rename is the
 * window's first question to VS Code's TypeScript) and ONE real claude (default permission mode) whose
 * scripted model calls the tools route's rename_symbol on an exported function used in three other files.
 * Each round, in its own copy of the project (src/r<round>/): a rename rejected at its first file's review
 * (nothing written, the rest never shown), then the same rename accepted file by file (nothing written
 * before the last accept; then every file's bytes exact, every import updated, the same-named function of
 * another module and the comment untouched; Claude's changes lists the four files), then `twice` renamed to
 * `thrice` while app.ts has unsaved typing (the rename of the buffer, written with it). Later rounds run in the
 * window with the earlier rounds' history. Runs only with $NC_RENAME_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import { answer, screen, startClaudeInTerminal, submit, waitForScreen } from '../claudeInTerminal';
import { openedReview, proposalTabs } from '../toolsClient';
import { installedExtension, sleep, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
  reviews(): Array<{ id: string; filePath: string }>;
  changes(): Promise<ReadonlyArray<{ id: string; label: string; files: Array<{ path: string; attribution: string; source: string }> }>>;
}
interface Spec {
  workspace: string;
  results: string;
  rounds: number;
  /** Per round: each file (workspace-relative) before and after the rename, in review order. */
  files: Array<Array<{ rel: string; before: string; after: string }>>;
  /** Files the rename must not touch, per round, with their text. */
  untouched: Array<Array<{ rel: string; text: string }>>;
}

const SPEC_PATH = process.env.NC_RENAME_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = {};

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

describe('one window, one claude: rename_symbol reviewed as one change', function () {
  this.timeout(900_000);
  let api: NativeClaudeApi;
  const abs = (rel: string) => path.join(spec!.workspace, rel);
  const read = (rel: string) => fs.readFileSync(abs(rel), 'utf8');

  before(async function () {
    if (!spec) this.skip();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    await startClaudeInTerminal(spec.workspace, () => api.status().sessionCount === 1);
  });

  after(async () => {
    if (spec) await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** The review of `rel` opened by the rename, once (its proposal is `expected`); claude may ask before the tool's first use. */
  async function reviewOf(rel: string, expected: string) {
    const base = path.posix.basename(rel);
    await waitFor(
      `the review of ${rel} (or claude asking first)`,
      async () => {
        if (proposalTabs().some((p) => path.posix.basename(p.input.modified.path) === base)) return true;
        if (/Do you want to proceed\?/.test(await screen())) await answer(/Do you want to proceed\?/, ['Enter'], 15_000);
        return false;
      },
      60_000,
      250,
    );
    const opened = await openedReview(base, 10_000);
    assert.strictEqual(api.reviews().length, 1, 'one review at a time');
    assert.strictEqual(api.reviews()[0].filePath, abs(rel), `the review is of ${rel}`);
    await waitFor(`the review of ${rel} to show the rename`, () => opened.document.getText() === expected, 5_000).catch(() => {
      throw new Error(`the review of ${rel} shows ${JSON.stringify(opened.document.getText())}, expected ${JSON.stringify(expected)}`);
    });
    return opened;
  }

  const unchanged = (round: number) => {
    for (const f of spec!.files[round - 1]) assert.strictEqual(read(f.rel), f.before, `${f.rel} unchanged`);
    for (const f of spec!.untouched[round - 1]) assert.strictEqual(read(f.rel), f.text, `${f.rel} unchanged`);
  };

  async function rejected(round: number): Promise<void> {
    const facts: Record<string, unknown> = {};
    data[`reject-${round}`] = facts;
    const started = Date.now();
    const [first] = spec!.files[round - 1];
    await submit(`scenario:reject-${round}`);
    const opened = await reviewOf(first.rel, first.after);
    facts.title = opened.tab.label;
    facts.msToReview = Date.now() - started;
    await vscode.commands.executeCommand('nativeClaude.rejectReview', opened.input.modified);
    await waitForScreen(`done reject-${round}`, 30_000);
    await sleep(500);
    facts.tabsLeft = proposalTabs().length;
    facts.reviewsLeft = api.reviews().length;
    assert.deepStrictEqual({ tabs: facts.tabsLeft, reviews: facts.reviewsLeft }, { tabs: 0, reviews: 0 }, 'the other files were never shown');
    unchanged(round);
  }

  async function accepted(round: number): Promise<void> {
    const facts: Record<string, unknown> = {};
    data[`accept-${round}`] = facts;
    const started = Date.now();
    const files = spec!.files[round - 1];
    await submit(`scenario:accept-${round}`);
    const titles: string[] = [];
    for (const f of files) {
      const opened = await reviewOf(f.rel, f.after);
      titles.push(opened.tab.label);
      // Nothing written before the user's decision on the whole rename.
      unchanged(round);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
    }
    facts.titles = titles;
    await waitForScreen(`done accept-${round}`, 60_000);
    facts.ms = Date.now() - started;
    for (const f of files) assert.strictEqual(read(f.rel), f.after, `${f.rel} renamed, bytes exact`);
    for (const f of spec!.untouched[round - 1]) assert.strictEqual(read(f.rel), f.text, `${f.rel} untouched`);
    // Claude's changes lists the accepted files.
    let listed: string[] = [];
    await waitFor(
      "Claude's changes to list the renamed files",
      async () => {
        listed = (await api.changes()).flatMap((s) => s.files.map((f) => f.path));
        return files.every((f) => listed.includes(abs(f.rel)));
      },
      15_000,
    ).catch(() => {
      throw new Error(`Claude's changes lists ${JSON.stringify(listed)}`);
    });
    facts.listed = listed.filter((p) => p.includes(`/r${round}/`)).map((p) => path.relative(spec!.workspace, p));
    assert.strictEqual(proposalTabs().length, 0, 'no review tab left');
  }

  /**
   * The user typed a line into app.ts and did not save it; then claude renames `twice` to `thrice`: VS Code
   * computes the rename on that buffer, the review of app.ts shows it beside the typing, and the accept
   * writes the typing with the rename (the editor ends clean).
   */
  async function unsavedEdits(round: number): Promise<void> {
    const facts: Record<string, unknown> = {};
    data[`unsaved-${round}`] = facts;
    const files = spec!.files[round - 1];
    const app = files[0];
    const typedLine = '// typed, not saved\n';
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs(app.rel)), { preview: false });
    await waitFor(`${app.rel} as saved in its editor`, () => editor.document.getText() === app.after, 10_000);
    assert.ok(await editor.edit((b) => b.insert(new vscode.Position(1, 0), typedLine)));
    const typed = editor.document.getText();
    assert.strictEqual(editor.document.isDirty, true);
    const thrice = (text: string) => text.replace(/\btwice\b/g, 'thrice');
    await submit(`scenario:unsaved-${round}`);
    const titles: string[] = [];
    for (const f of files) {
      const opened = await reviewOf(f.rel, thrice(f === app ? typed : f.after));
      titles.push(opened.tab.label);
      for (const g of files) assert.strictEqual(read(g.rel), g.after, `${g.rel} unchanged before the last accept`);
      await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
    }
    facts.titles = titles;
    await waitForScreen(`done unsaved-${round}`, 60_000);
    for (const f of files) assert.strictEqual(read(f.rel), thrice(f === app ? typed : f.after), `${f.rel} renamed, bytes exact`);
    await waitFor(
      `${app.rel}'s editor to be clean and hold what was written`,
      () => !editor.document.isDirty && editor.document.getText() === thrice(typed),
      10_000,
    ).catch(() => {
      throw new Error(`${app.rel}'s editor: dirty ${editor.document.isDirty}, text ${JSON.stringify(editor.document.getText())}`);
    });
    assert.strictEqual(proposalTabs().length, 0, 'no review tab left');
  }

  it('rejects, then accepts, the rename, round after round in one window', async function () {
    try {
      for (let round = 1; round <= spec!.rounds; round++) {
        await rejected(round);
        await accepted(round);
        await unsavedEdits(round);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await sleep(500);
      }
      record('passed');
    } catch (error) {
      data.screen = await screen().catch((e: Error) => e.message);
      record('failed', error as Error);
      throw error;
    }
  });
});
