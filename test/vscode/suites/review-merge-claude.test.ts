/**
 * The inner half of test/real/vscode-review-merge.test.ts: ONE window and ONE real claude (default
 * permission mode, so each Edit/Write opens a review), every scenario on a file the user has typed into
 * and not saved. The rounds run the same scenarios on the same paths again (the files deleted and
 * written anew between rounds), so every later round runs in a window with history.
 *
 *   disjoint  claude's Edit touches line 6, the user typed on line 1: the review shows the merge; accepted,
 *             claude writes it and the editor ends clean holding it; claude's next Edit of the file works.
 *   reject    the same, rejected: the buffer exactly as typed and dirty, the disk unchanged.
 *   conflict  both changed line 6: conflict markers; an accept with markers left is refused; the user
 *             resolves them (by hand in round 1, with the Keep Both lens after); accepted, claude writes
 *             the resolution, the editor ends clean.
 *   write     claude's Write replaces the file: one conflict over the whole file; resolved by hand.
 *   crlf      a CRLF file: the merge keeps CRLF, bytes exact on disk.
 *   latin1    the tools route's apply_diff on a Latin-1 file (files.encoding): the merge written through
 *             the user's own editor, which ends clean; every byte Latin-1 (é stays e9).
 * The outer test scripts the model and checks what reached it. Runs only with $NC_MERGE_SPEC.
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
}
interface Spec {
  workspace: string;
  results: string;
  rounds: number;
  /** The scenarios' texts: the outer test scripts the model with the same ones. */
  texts: MergeTexts;
}
interface MergeTexts {
  saved: string;
  typed: string;
  merged: string;
  mergedThenSeven: string;
  conflictTyped: string;
  conflictMarkers: string;
  conflictResolved: string;
  writeMarkers: string;
  writeResolved: string;
  /** What 2.1.328 writes for writeResolved (it drops the last newline of a Write accepted with other text). */
  writeOnDisk: string;
  crlfSaved: string;
  crlfTyped: string;
  crlfMerged: string;
  /** latin1.ini, in ISO 8859-1 (the outer test's files.encoding for ini): the é is byte e9. */
  latin1Saved: string;
  latin1Typed: string;
  latin1Merged: string;
}

const SPEC_PATH = process.env.NC_MERGE_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = {};
const SCENARIOS = ['disjoint', 'reject', 'conflict', 'write', 'crlf', 'latin1'];

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

describe('one window, one claude: its proposals for files with unsaved edits, reviewed as merges', function () {
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

  /** The user types `text` over the whole of `document` (shown in an editor). */
  async function typeOver(document: vscode.TextDocument, text: string): Promise<void> {
    const editor = await vscode.window.showTextDocument(document, { preview: false });
    const all = new vscode.Range(editor.document.lineAt(0).range.start, editor.document.lineAt(editor.document.lineCount - 1).rangeIncludingLineBreak.end);
    assert.ok(await editor.edit((b) => b.replace(all, text)));
  }

  /** The file saved as `saved`, open in an editor, the user's typing in it (whole text `typed`), not saved. */
  async function dirtyFile(rel: string, saved: string, typed: string, encoding: BufferEncoding = 'utf8'): Promise<vscode.TextDocument> {
    fs.writeFileSync(abs(rel), Buffer.from(saved, encoding));
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(abs(rel)), { preview: false });
    await waitFor(`${rel} as saved in its editor`, () => editor.document.getText() === saved, 10_000);
    await typeOver(editor.document, typed);
    assert.strictEqual(editor.document.isDirty, true);
    return editor.document;
  }

  /** The review of `rel` that claude's proposal opened, once its text is `expected`. */
  async function review(rel: string, expected: string) {
    const opened = await openedReview(rel, 30_000);
    await waitFor(`the review of ${rel} to show the merge`, () => opened.document.getText() === expected, 5_000).catch(() => {
      throw new Error(`the review of ${rel} shows ${JSON.stringify(opened.document.getText())}, expected ${JSON.stringify(expected)}`);
    });
    return opened;
  }

  /** After an accept: claude wrote `onDisk`, and the user's editor is clean and holds it. */
  async function writtenAndClean(rel: string, document: vscode.TextDocument, onDisk: string): Promise<void> {
    await waitFor(`claude to write ${rel}`, () => read(rel) === onDisk, 20_000).catch(() => {
      throw new Error(`${rel} on disk: ${JSON.stringify(read(rel))}, expected ${JSON.stringify(onDisk)}`);
    });
    await waitFor(`${rel}'s editor to be clean and hold what claude wrote`, () => !document.isDirty && document.getText() === onDisk, 10_000).catch(() => {
      throw new Error(`${rel}'s editor: dirty ${document.isDirty}, text ${JSON.stringify(document.getText())}`);
    });
  }

  /** claude ended the scenario's turn (the model's `done <name>`). */
  const done = (prompt: string) => waitForScreen(`done ${prompt.replace('scenario:', '')}`, 30_000);

  /** A review ended without a decision in it: its tab is gone and its claude's dialog too. */
  async function dialogGone(rel: string): Promise<void> {
    await waitFor(`the review of ${rel} to end`, () => !api.reviews().some((r) => r.filePath === abs(rel)), 15_000);
    await waitFor("claude's permission dialog to close", async () => !/Do you want to (make this edit|create|overwrite)/.test(await screen()), 15_000, 200);
  }

  async function scenario(name: string, round: number): Promise<void> {
    const t = spec!.texts;
    const rel = `${name}.txt`;
    // The prompt names the round too: each round's tool calls get their own ids (the path stays the same).
    const prompt = `scenario:${name}-${round}`;
    const started = Date.now();
    const facts: Record<string, unknown> = {};
    data[`${name}-${round}`] = facts;
    switch (name) {
      case 'disjoint': {
        const document = await dirtyFile(rel, t.saved, t.typed);
        await submit(prompt);
        const first = await review(rel, t.merged);
        facts.title = first.tab.label;
        await vscode.commands.executeCommand('nativeClaude.acceptReview', first.input.modified);
        await writtenAndClean(rel, document, t.merged);
        // claude's next Edit starts from what it wrote (the merge): no "modified since read".
        const second = await review(rel, t.mergedThenSeven);
        await vscode.commands.executeCommand('nativeClaude.acceptReview', second.input.modified);
        await writtenAndClean(rel, document, t.mergedThenSeven);
        await done(prompt);
        break;
      }
      case 'reject': {
        const document = await dirtyFile(rel, t.saved, t.typed);
        await submit(prompt);
        const opened = await review(rel, t.merged);
        await vscode.commands.executeCommand('nativeClaude.rejectReview', opened.input.modified);
        await dialogGone(rel);
        await sleep(1000);
        facts.after = { buffer: document.getText(), dirty: document.isDirty, onDisk: read(rel) };
        assert.deepStrictEqual(facts.after, { buffer: t.typed, dirty: true, onDisk: t.saved });
        break;
      }
      case 'conflict': {
        const document = await dirtyFile(rel, t.saved, t.conflictTyped);
        await submit(prompt);
        const opened = await review(rel, t.conflictMarkers);
        facts.title = opened.tab.label;
        assert.match(opened.tab.label, /\(1 conflict\)$/);
        await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
        await sleep(1500);
        facts.afterFirstAccept = { pending: api.reviews().some((r) => r.filePath === abs(rel)), onDisk: read(rel) };
        assert.deepStrictEqual(facts.afterFirstAccept, { pending: true, onDisk: t.saved }, 'an accept with conflict markers left was not refused');
        if (round === 1) {
          // Resolved by hand: the whole right side typed over.
          await typeOver(opened.document, t.conflictResolved);
        } else {
          // Resolved with the conflict's lens Keep Both (yours, then Claude's): the same text.
          const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', opened.input.modified)) ?? [];
          facts.lenses = lenses.map((l) => l.command?.title);
          const both = lenses.find((l) => l.command?.title === 'Keep Both');
          assert.ok(both?.command, `no Keep Both lens among ${JSON.stringify(facts.lenses)}`);
          assert.strictEqual(await vscode.commands.executeCommand(both.command.command, ...(both.command.arguments ?? [])), true);
          assert.strictEqual(opened.document.getText(), t.conflictResolved);
        }
        await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
        await writtenAndClean(rel, document, t.conflictResolved);
        await done(prompt);
        break;
      }
      case 'write': {
        const document = await dirtyFile(rel, t.saved, t.typed);
        await submit(prompt);
        const opened = await review(rel, t.writeMarkers);
        await typeOver(opened.document, t.writeResolved);
        await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
        await writtenAndClean(rel, document, t.writeOnDisk);
        await done(prompt);
        break;
      }
      case 'crlf': {
        const document = await dirtyFile(rel, t.crlfSaved, t.crlfTyped);
        facts.eol = document.eol === vscode.EndOfLine.CRLF ? 'CRLF' : 'LF';
        await submit(prompt);
        // The review holds the merge in the proposal's line ends: claude proposes `\n` for a CRLF file
        // and restores CRLF when it writes (docs/review.md).
        const opened = await review(rel, t.merged);
        await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
        await writtenAndClean(rel, document, t.crlfMerged);
        facts.bytes = fs.readFileSync(abs(rel)).toString('hex');
        await done(prompt);
        break;
      }
      case 'latin1': {
        const ini = 'latin1.ini';
        const document = await dirtyFile(ini, t.latin1Saved, t.latin1Typed, 'latin1');
        facts.encoding = document.encoding;
        await submit(prompt);
        // claude may ask before the model's first use of a tool of the tools route; the user says yes.
        await waitFor(
          'the review of latin1.ini (or claude asking first)',
          async () => {
            if (proposalTabs().some((p) => path.posix.basename(p.input.modified.path) === ini)) return true;
            if (/Do you want to proceed\?/.test(await screen())) await answer(/Do you want to proceed\?/, ['Enter'], 15_000);
            return false;
          },
          30_000,
          250,
        );
        const opened = await review(ini, t.latin1Merged);
        await vscode.commands.executeCommand('nativeClaude.acceptReview', opened.input.modified);
        // Written through the user's document: clean at once, the bytes Latin-1.
        await waitFor('latin1.ini written in Latin-1', () => fs.readFileSync(abs(ini)).equals(Buffer.from(t.latin1Merged, 'latin1')), 20_000).catch(() => {
          throw new Error(
            `latin1.ini on disk: ${fs.readFileSync(abs(ini)).toString('hex')}, expected ${Buffer.from(t.latin1Merged, 'latin1').toString('hex')}`,
          );
        });
        await waitFor("latin1.ini's editor to be clean", () => !document.isDirty && document.getText() === t.latin1Merged, 10_000);
        facts.bytes = fs.readFileSync(abs(ini)).toString('hex');
        await done(prompt);
        break;
      }
      default:
        throw new Error(`no scenario ${name}`);
    }
    facts.ms = Date.now() - started;
    facts.tabsLeft = proposalTabs().length;
    assert.strictEqual(proposalTabs().length, 0, 'no review tab left');
  }

  it('runs the scenarios, round after round in one window', async function () {
    try {
      for (let round = 1; round <= spec!.rounds; round++) {
        for (const name of SCENARIOS) await scenario(name, round);
        // The next round on the same paths: every file deleted and written anew, the editors closed unsaved.
        for (const document of vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && d.isDirty)) {
          await vscode.window.showTextDocument(document);
          await vscode.commands.executeCommand('workbench.action.files.revert');
        }
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        for (const file of [...SCENARIOS.map((n) => `${n}.txt`), 'latin1.ini']) fs.rmSync(abs(file), { force: true });
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
