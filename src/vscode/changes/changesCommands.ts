import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileChange } from '../../changes/changeLedger';
import type { ChangeTracker, Confirm, HunkSelector } from '../../changes/changeTracker';
import { COMMANDS, type CommandId } from '../../host/commandIds';
import type { Logger } from '../../util/logger';
import { registerCommand } from '../commandTable';
import { notify } from '../notify';
import { beforeUri } from './beforeContent';

/** A file as the commands name it: a resource of the view, or (scripts, tests) its session and path. */
export type FileTarget = { sessionId: string; filePath: string };

/** Options a script may pass to the commands instead of answering the question (tests). */
interface ScriptedAnswer {
  answer?: 'undo' | 'cancel';
}

/** Set in the extension host's environment by the real-VS Code test harness only (see {@link scriptedAnswersAllowed}). */
export const SCRIPTED_ANSWERS_VARIABLE = 'NATIVE_CLAUDE_TEST_SCRIPTED_ANSWERS';

/**
 * Whether the commands may take a scripted answer instead of asking "Undo anyway?": only under the
 * extension test runner. Otherwise any other extension, or a command link, could skip the question and
 * overwrite the user's later edits. The real-VS Code tests run the installed .vsix (Production mode, a
 * window running extension tests refuses every dialog), so they set {@link SCRIPTED_ANSWERS_VARIABLE}
 * when they start VS Code; it is read once at activation, and no command, link or setting can set it.
 */
export function scriptedAnswersAllowed(mode: vscode.ExtensionMode, env: Record<string, string | undefined>): boolean {
  return mode === vscode.ExtensionMode.Test || env[SCRIPTED_ANSWERS_VARIABLE] === '1';
}

/** A change as VS Code's quick diff passes it to `scm/change/title` commands (1-based lines; end 0: none). */
interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

/**
 * Keep and undo, per file, per session and per hunk (the quick diff's peek), Undo Again and Redo: the
 * commands of Claude's changes. Each failure is said once (commandTable.ts), and the list is refreshed
 * after each command, failed or not.
 */
export class ChangesCommands {
  constructor(
    private readonly tracker: ChangeTracker,
    private readonly refresh: () => void,
    private readonly log: Logger,
    /** From {@link scriptedAnswersAllowed}; false: a scripted answer is ignored and the question asked. */
    private readonly acceptScriptedAnswers: boolean,
  ) {}

  register(): vscode.Disposable[] {
    // Each handler states the arguments VS Code hands it (a resource state, a selection, a target).
    const run = <A extends unknown[]>(id: CommandId, work: (...args: A) => Promise<unknown>) =>
      registerCommand(
        id,
        async (...args: A) => {
          try {
            return await work(...args);
          } finally {
            this.refresh();
          }
        },
        "Claude's changes",
      );
    return [
      run(COMMANDS.changesOpen, async (target: FileTarget) => {
        const change = this.find(target);
        const name = path.basename(change.path);
        const now = vscode.Uri.file(change.path);
        const left = beforeUri(change);
        const deleted = change.claudeLeft !== undefined && !('blob' in change.claudeLeft);
        // The row's tooltip (why it is faded) is not shown in every VS Code (code-server: aria-label only): the title says it too.
        const title = change.attribution === 'certain' ? `${name} (before Claude ↔ now)` : `${name} (before Claude ↔ now · not attributed with certainty)`;
        await vscode.commands.executeCommand('vscode.diff', left, deleted ? beforeUri({ ...change, before: { absent: true } }) : now, title);
      }),
      run(COMMANDS.changesKeepFile, async (...targets: unknown[]) => {
        for (const t of fileTargets(targets)) await this.tracker.keepFile(t.sessionId, t.filePath);
      }),
      run(COMMANDS.changesUndoFile, async (...targets: unknown[]) => {
        const scripted = targets.find(isScripted);
        const undone: boolean[] = [];
        for (const t of fileTargets(targets)) undone.push(await this.undoWhole(t, this.confirmer(scripted)));
        return undone;
      }),
      run(COMMANDS.changesKeepAll, async (group?: { id: string } | string) => {
        const id = typeof group === 'string' ? group : group?.id;
        for (const f of this.tracker.list().find((s) => s.id === id)?.files ?? []) await this.tracker.keepFile(id!, f.path);
      }),
      run(COMMANDS.changesUndoAll, async (group?: { id: string } | string, scripted?: ScriptedAnswer) => {
        const id = typeof group === 'string' ? group : group?.id;
        const undone: boolean[] = [];
        for (const f of [...(this.tracker.list().find((s) => s.id === id)?.files ?? [])])
          undone.push(await this.undoWhole({ sessionId: id!, filePath: f.path }, this.confirmer(scripted)));
        return undone;
      }),
      run(COMMANDS.changesUndoHunk, async (uri: vscode.Uri, changes: LineChange[], index: number, scripted?: ScriptedAnswer) => {
        const { target, at } = this.hunkTarget(uri, changes, index);
        return this.tracker.undoHunk(target.sessionId, target.filePath, at, this.confirmer(scripted));
      }),
      run(COMMANDS.changesKeepHunk, async (uri: vscode.Uri, changes: LineChange[], index: number) => {
        const { target, at } = this.hunkTarget(uri, changes, index);
        await this.tracker.keepHunk(target.sessionId, target.filePath, at);
        return true;
      }),
      run(COMMANDS.changesUndoAgain, async (...targets: unknown[]) => {
        const scripted = targets.find(isScripted);
        const undone: boolean[] = [];
        for (const t of fileTargets(targets)) undone.push(await this.tracker.undoAgain(t.sessionId, t.filePath, this.confirmer(scripted)));
        return undone;
      }),
      run(COMMANDS.changesRedo, async () => {
        const filePath = await this.tracker.redo();
        if (!filePath) void notify.info("Claude's changes: no undo to take back.");
        return filePath;
      }),
    ];
  }

  /** Claude wrote a file again after the user undid its change: said at once, with the way back. */
  warnRewrite(target: FileTarget, attribution: FileChange['attribution']): void {
    const name = vscode.workspace.asRelativePath(target.filePath, false);
    const who = attribution === 'certain' ? 'Claude' : 'Claude (not attributed with certainty: its Bash, or another program)';
    const choice = notify.warn(`${who} wrote ${name} again after you undid its change.`, 'Show Change', 'Undo Again');
    void choice.then((c) => {
      if (c === 'Show Change') return vscode.commands.executeCommand(COMMANDS.changesOpen, target);
      if (c === 'Undo Again') return vscode.commands.executeCommand(COMMANDS.changesUndoAgain, target);
      return undefined;
    });
  }

  /** The question "undo anyway?" as a modal dialog; a scripted answer only where {@link scriptedAnswersAllowed}. */
  private confirmer(scripted?: ScriptedAnswer): Confirm {
    if (scripted?.answer && this.acceptScriptedAnswers) return async () => scripted.answer === 'undo';
    if (scripted?.answer)
      this.log.warn(
        `Claude's changes: a command was called with a scripted answer ("${String(scripted.answer).slice(0, 20)}"); it is ignored outside the extension's tests, and the user is asked.`,
      );
    return async (question) => (await vscode.window.showWarningMessage(question, { modal: true }, 'Undo Anyway')) === 'Undo Anyway';
  }

  private async undoWhole(target: FileTarget, confirm: Confirm): Promise<boolean> {
    const done = await this.tracker.undoFile(target.sessionId, target.filePath, confirm);
    if (done) {
      const choice = notify.info(`Undid Claude's change to ${vscode.workspace.asRelativePath(target.filePath, false)}.`, "Redo Claude's change");
      void choice.then((c) => c && vscode.commands.executeCommand(COMMANDS.changesRedo));
    }
    return done;
  }

  /** The session listing `uri` and the hunk the quick diff's change number `index` covers. */
  private hunkTarget(uri: vscode.Uri, changes: LineChange[], index: number): { target: FileTarget; at: HunkSelector } {
    const filePath = uri.fsPath;
    const session = this.tracker.list().find((s) => s.files.some((f) => f.path === filePath));
    if (!session) throw new Error(`${filePath} is not in the list of Claude's changes.`);
    const change = changes?.[index];
    if (!change) throw new Error('no change at that place: look at the file again.');
    return { target: { sessionId: session.id, filePath }, at: { startLine: change.modifiedStartLineNumber, endLine: change.modifiedEndLineNumber } };
  }

  private find(target: FileTarget): FileChange {
    const change = this.tracker
      .list()
      .find((s) => s.id === target.sessionId)
      ?.files.find((f) => f.path === target.filePath);
    if (!change) throw new Error(`${target.filePath} is no longer in the list.`);
    return change;
  }
}

function isScripted(value: unknown): value is ScriptedAnswer {
  return typeof value === 'object' && value !== null && 'answer' in value;
}

/** Resource states from the view (one, or the selection as an array), or {sessionId, filePath} objects. */
function fileTargets(args: unknown[]): FileTarget[] {
  const flat: unknown[] = args.flat();
  return flat.filter(
    (a): a is FileTarget =>
      typeof a === 'object' && a !== null && typeof (a as FileTarget).sessionId === 'string' && typeof (a as FileTarget).filePath === 'string',
  );
}
