import * as vscode from 'vscode';
import { buildAtMention, formatAtMention, MentionDispatcher, type AtMentionParams, type MentionOutcome } from '../../selection/atMention';
import type { IdeSession, IdeSessionSource } from '../../server/sessionSource';
import { findClaudeTerminal, parentPidReaderFor, terminalCandidates, type ParentPidReader } from '../../terminal/processAncestry';
import type { Logger } from '../../util/logger';
import type { SharingPolicy } from '../../selection/sharingPolicy';
import { diskPathOf, isRealFile } from './selectionTracker';
import { notify } from '../notify';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

/**
 * `nativeClaude.mentionSelection`: sends `at_mentioned` for the editor's selection (or the whole file
 * when nothing is selected), or for the file(s) clicked in the explorer or on an editor tab; then brings
 * claude's terminal to the front. With no claude connected it keeps the mention for the next session
 * and offers to launch one. The command returns the outcome (for end-to-end tests).
 */
export function registerMentionCommand(
  sessions: IdeSessionSource,
  log: Logger,
  policy: () => SharingPolicy,
  readParent: ParentPidReader = parentPidReaderFor(),
): vscode.Disposable {
  const focusClaudeTerminal = (session: IdeSession | undefined) =>
    claudeTerminal(session, readParent)
      .then((terminal) => terminal?.show(false))
      .catch((error: Error) => log.warn(`Could not bring claude's terminal forward: ${error.message}`));
  const dispatcher = new MentionDispatcher({ sessions, log, onDelivered: (session) => void focusClaudeTerminal(session) });

  const command = registerCommand(
    COMMANDS.mentionSelection,
    async (uri?: unknown, uris?: unknown): Promise<MentionOutcome | undefined> => {
      const target = withoutExcluded(mentionTarget(uri, uris), policy());
      if ('problem' in target) {
        void notify.warn(target.problem);
        return undefined;
      }
      let outcome: MentionOutcome;
      try {
        outcome = await dispatcher.mention(target.mentions);
      } catch (error) {
        const message = (error as Error).message;
        log.error(message);
        void notify.error(message);
        return undefined;
      }
      if (outcome.kind === 'queued') {
        const what = target.mentions.map((m) => formatAtMention(m, vscode.workspace.asRelativePath(m.filePath, false))).join(' ');
        void notify
          .info(`Claude is not connected to this window yet; ${what} will be sent when it connects.`, 'Launch claude')
          .then((choice) => choice && vscode.commands.executeCommand(COMMANDS.launchClaude));
      } else {
        // 'pending' too: claude is starting in a terminal the user will want to type in.
        await focusClaudeTerminal(outcome.sessions[0]);
      }
      return outcome;
    },
    'Could not send to Claude',
  );
  return vscode.Disposable.from(command, dispatcher);
}

type Target = { mentions: AtMentionParams[] } | { problem: string };

/**
 * Menu arguments: the explorer passes (clicked, allSelected[]); an editor tab or the editor's own
 * context menu passes (uri, context); a keybinding or the palette passes nothing.
 */
function mentionTarget(uri: unknown, uris: unknown): Target {
  const selected = Array.isArray(uris) ? uris.filter((u): u is vscode.Uri => u instanceof vscode.Uri) : [];
  if (selected.length > 0) return wholeFiles(selected);
  const editor = vscode.window.activeTextEditor;
  if (uri instanceof vscode.Uri) {
    // The editor's context menu, or the tab of the active editor: its selection (or whole file).
    if (editor && editor.document.uri.toString() === uri.toString()) return fromEditor(editor);
    return wholeFiles([uri]);
  }
  if (!editor) return { problem: 'Open a file (or select lines in it) to mention it to Claude.' };
  return fromEditor(editor);
}

/** Files the exclude patterns name are never mentioned; say so rather than dropping them silently. */
function withoutExcluded(target: Target, policy: SharingPolicy): Target {
  if ('problem' in target) return target;
  const excluded = target.mentions.filter((m) => policy.isExcluded(m.filePath));
  if (excluded.length === 0) return target;
  const names = excluded.map((m) => vscode.workspace.asRelativePath(m.filePath, false)).join(', ');
  const kept = target.mentions.filter((m) => !excluded.includes(m));
  if (kept.length === 0) return { problem: `Not sent to Claude: ${names} is excluded by the setting nativeClaude.excludeFromSharing.` };
  void notify.info(`Not sent to Claude: ${names} (excluded by nativeClaude.excludeFromSharing).`);
  return { mentions: kept };
}

function wholeFiles(uris: readonly vscode.Uri[]): Target {
  const files = uris.filter(isRealFile);
  if (files.length === 0) return { problem: notOnDisk(uris[0]) };
  return { mentions: files.map((u) => buildAtMention(u.fsPath)) };
}

/** The primary selection; an empty one (a bare cursor) mentions the whole file. */
function fromEditor(editor: vscode.TextEditor): Target {
  const { uri } = editor.document;
  if (!isRealFile(uri)) {
    // A notebook cell: the notebook itself (cell line numbers mean nothing in the .ipynb file).
    const notebook = diskPathOf(editor.document);
    return notebook ? { mentions: [buildAtMention(notebook)] } : { problem: notOnDisk(uri) };
  }
  const { start, end } = editor.selection;
  return {
    mentions: [buildAtMention(uri.fsPath, { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } })],
  };
}

function notOnDisk(uri: vscode.Uri): string {
  return uri.scheme === 'untitled'
    ? 'Save this file first: Claude can only be pointed at files on disk.'
    : `Claude can only be pointed at files on disk, not at ${uri.scheme}: documents.`;
}

async function claudeTerminal(session: IdeSession | undefined, readParent: ParentPidReader): Promise<vscode.Terminal | undefined> {
  const candidates = await terminalCandidates(vscode.window.terminals);
  return findClaudeTerminal(session?.cliPid, candidates, readParent, vscode.window.activeTerminal);
}
