// Hardening — Claude's changes: the undo commands (nativeClaude.changes.undoFile / undoAll / undoHunk / undoAgain)
// took a scripted `{answer: 'undo'}` from any caller (another extension, a command link) and then
// overwrote lines the user edited after claude without asking "Undo anyway?". Outside the extension's
// tests the scripted answer is now ignored and the question asked. The commands are the real ones of
// src/vscode/changes/claudeChanges.ts, registered against a stand-in of the `vscode` module (it cannot run in
// Node); the tracker, the before-image store and the files are real.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { ClaudeChanges } from '../../src/vscode/changes/claudeChanges';
import { SCRIPTED_ANSWERS_VARIABLE, scriptedAnswersAllowed } from '../../src/vscode/changes/changesCommands';
import { memoryLogger } from '../../src/util/logger';
import { oneClaude, standIn } from './support/vscodeStandIn';

const { commands, questions, errors } = standIn;

jest.setTimeout(30_000);

describe("hardening: a scripted answer cannot skip Claude's changes' undo question", () => {
  let root: string;
  let file: string;
  let changes: ClaudeChanges;
  let log: string[];
  const { session, bridge, windowSessions } = oneClaude;

  async function start(acceptScriptedAnswers?: boolean) {
    changes = new ClaudeChanges(path.join(root, 'storage'), bridge, windowSessions, () => false, memoryLogger(log), acceptScriptedAnswers);
    // claude changes two lines, then the user edits both after it: undoing them must ask first.
    await fs.writeFile(file, 'one\ntwo\nthree\n');
    await changes.tracker.beforeWrite(1, file, 'baseline');
    await fs.writeFile(file, 'one\nTWO\nTHREE\n');
    expect(await changes.tracker.fileChanged(file)).toBeDefined();
    await fs.writeFile(file, 'one\nTWO (mine)\nTHREE (mine)\n');
  }

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-scripted-')));
    file = path.join(root, 'a.txt');
    standIn.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: root } }];
    log = [];
  });
  afterEach(async () => {
    changes.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  const run = (name: string, ...args: unknown[]) => commands.get(`nativeClaude.changes.${name}`)!(...args);
  const calls: Array<[string, () => unknown[]]> = [
    ['undoFile', () => [{ sessionId: session, filePath: file }, { answer: 'undo' }]],
    ['undoAll', () => [session, { answer: 'undo' }]],
    [
      'undoHunk',
      () => [
        vscode.Uri.file(file),
        [{ originalStartLineNumber: 2, originalEndLineNumber: 3, modifiedStartLineNumber: 2, modifiedEndLineNumber: 3 }],
        0,
        { answer: 'undo' },
      ],
    ],
  ];

  test.each(calls)(
    "%s with {answer: 'undo'} from a caller, outside the tests: the question is asked, and Cancel keeps the user's lines",
    async (name, args) => {
      await start();
      const result = await run(name, ...args());
      expect(errors).toEqual([]);
      expect(questions).toEqual([expect.stringMatching(/(changed|edited) after Claude.s change.*anyway\?/)]);
      expect(result).toEqual(name === 'undoHunk' ? false : [false]);
      expect(await fs.readFile(file, 'utf8')).toBe('one\nTWO (mine)\nTHREE (mine)\n');
      expect(log.join('\n')).toMatch(/scripted answer \("undo"\); it is ignored outside the extension's tests/);
    },
  );

  test("undoAgain with {answer: 'undo'} from a caller, outside the tests: the question is asked, and Cancel keeps the user's lines", async () => {
    await start();
    // The user undoes claude's change (answering the question), claude writes the file again over the
    // undo, then the user edits claude's new lines: Undo Again must ask before it overwrites them.
    standIn.dialogAnswer = 'Undo Anyway';
    expect(await run('undoFile', { sessionId: session, filePath: file })).toEqual([true]);
    questions.length = 0;
    standIn.dialogAnswer = undefined;
    await changes.tracker.beforeWrite(1, file, 'baseline');
    await fs.writeFile(file, 'one\nTWO again\nthree\n');
    expect(await changes.tracker.fileChanged(file)).toMatchObject({ rewroteUndo: expect.objectContaining({ undoneAt: expect.any(Number) }) });
    await fs.writeFile(file, 'one\nTWO again (mine)\nthree\n');
    const result = await run('undoAgain', { sessionId: session, filePath: file }, { answer: 'undo' });
    expect(errors).toEqual([]);
    expect(questions).toEqual([expect.stringMatching(/anyway\?/i)]);
    expect(result).toEqual([false]);
    expect(await fs.readFile(file, 'utf8')).toBe('one\nTWO again (mine)\nthree\n');
  });

  test('the user answering Undo Anyway in the dialog still undoes', async () => {
    await start();
    standIn.dialogAnswer = 'Undo Anyway';
    expect(await run('undoFile', { sessionId: session, filePath: file }, { answer: 'cancel' })).toEqual([true]);
    expect(questions).toHaveLength(1);
    expect(await fs.readFile(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  test("under the extension's tests the scripted answer is taken, with no dialog", async () => {
    await start(true);
    expect(await run('undoFile', { sessionId: session, filePath: file }, { answer: 'undo' })).toEqual([true]);
    expect(questions).toEqual([]);
    expect(await fs.readFile(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  test('scripted answers are allowed in Test mode or with the harness variable, never in Production or Development', () => {
    expect(scriptedAnswersAllowed(vscode.ExtensionMode.Production, {})).toBe(false);
    expect(scriptedAnswersAllowed(vscode.ExtensionMode.Development, {})).toBe(false);
    expect(scriptedAnswersAllowed(vscode.ExtensionMode.Production, { [SCRIPTED_ANSWERS_VARIABLE]: 'true' })).toBe(false);
    expect(scriptedAnswersAllowed(vscode.ExtensionMode.Test, {})).toBe(true);
    expect(scriptedAnswersAllowed(vscode.ExtensionMode.Production, { [SCRIPTED_ANSWERS_VARIABLE]: '1' })).toBe(true);
  });
});
