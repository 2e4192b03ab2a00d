import * as vscode from 'vscode';
import { SharingPolicy } from '../../selection/sharingPolicy';
import { affectsSetting, setting, updateSetting } from '../settings';
import { workspaceFolderPaths } from '../workspace/workspaceFolders';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

/** The current `nativeClaude.shareSelection` / `excludeFromSharing` settings as a policy. */
export function currentSharingPolicy(): SharingPolicy {
  return new SharingPolicy({ shareSelection: setting('shareSelection'), exclude: setting('excludeFromSharing') }, workspaceFolderPaths);
}

/**
 * The toggle command, and a status bar item shown only while sharing is off (so a user who turned it
 * off sees why claude no longer shows their selection, and turns it back on with one click).
 * `onChange` runs whenever either setting changes.
 */
export function registerSelectionSharing(onChange: () => void): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('nativeClaude.sharing', vscode.StatusBarAlignment.Right, 99);
  item.name = 'Claude: selection sharing';
  item.text = '$(eye-closed) Claude: selection not shared';
  item.tooltip = 'Claude does not see what you select. Click to share selections again.';
  item.command = COMMANDS.toggleSelectionSharing;
  const show = () => (currentSharingPolicy().sharesSelection ? item.hide() : item.show());
  show();
  return vscode.Disposable.from(
    item,
    registerCommand(
      COMMANDS.toggleSelectionSharing,
      async () => {
        const next = !setting('shareSelection');
        // Where the user set it (workspace or user); a new setting goes to the user settings.
        await updateSetting('shareSelection', next);
        void vscode.window.setStatusBarMessage(next ? 'Claude sees your selection again' : 'Claude no longer sees your selection', 3000);
        return next;
      },
      'Could not change sharing the selection',
    ),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!affectsSetting(event, 'shareSelection', 'excludeFromSharing')) return;
      show();
      onChange();
    }),
  );
}
