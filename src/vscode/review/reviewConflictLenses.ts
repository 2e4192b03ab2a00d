import * as vscode from 'vscode';
import { conflictRegions, keptLines } from '../../review/threeWayMerge';
import { PROPOSAL_SCHEME } from './proposalFileSystem';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

type Keep = 'ours' | 'theirs' | 'both';
const LENSES: Array<[Keep, string]> = [
  ['ours', 'Keep Your Edits'],
  ['theirs', "Keep Claude's Change"],
  ['both', 'Keep Both'],
];

/**
 * "Keep Your Edits | Keep Claude's Change | Keep Both" above each conflict left in a review of a merge
 * with unsaved edits. VS Code's own merge-conflict lenses are registered for file, untitled and a few
 * other schemes only (code-server 4.139.1), never for a review's in-memory right side.
 */
export function registerReviewConflictLenses(log: vscode.LogOutputChannel): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses(document) {
      return conflictRegions(document.getText()).flatMap((region) => {
        const range = new vscode.Range(region.start, 0, region.start, 0);
        return LENSES.map(
          ([keep, title]) => new vscode.CodeLens(range, { title, command: COMMANDS.keepConflictSide, arguments: [document.uri, region.start, keep] }),
        );
      });
    },
  };

  /** Keeps one side of the conflict starting at `start`; anything but a review's conflict is left alone. */
  const keep = async (uri: unknown, start: unknown, side: unknown): Promise<boolean> => {
    if (!(uri instanceof vscode.Uri) || uri.scheme !== PROPOSAL_SCHEME || typeof start !== 'number' || !LENSES.some(([k]) => k === side)) {
      log.warn(`${COMMANDS.keepConflictSide}: not a conflict in a review of Claude's proposal, nothing changed`);
      return false;
    }
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    // The text may have changed since the lens was drawn: the conflict must still start on that line.
    const region = document && conflictRegions(document.getText()).find((r) => r.start === start);
    if (!document || !region) return false;
    const eol = document.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
    const lines = keptLines(region, side as Keep);
    const edit = new vscode.WorkspaceEdit();
    if (region.end + 1 < document.lineCount) {
      edit.replace(uri, new vscode.Range(region.start, 0, region.end + 1, 0), lines.map((l) => l + eol).join(''));
    } else {
      // The closing marker is the last line, without a line break after it: neither gets one.
      edit.replace(uri, new vscode.Range(region.start, 0, region.end, document.lineAt(region.end).text.length), lines.join(eol));
    }
    return vscode.workspace.applyEdit(edit);
  };

  return vscode.Disposable.from(
    changed,
    vscode.languages.registerCodeLensProvider({ scheme: PROPOSAL_SCHEME }, provider),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.scheme === PROPOSAL_SCHEME) changed.fire();
    }),
    registerCommand(COMMANDS.keepConflictSide, keep, 'Could not resolve the conflict'),
  );
}
