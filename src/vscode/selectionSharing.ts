import * as vscode from 'vscode';
import { DEFAULT_EXCLUDE_PATTERNS, SharingPolicy } from '../selection/sharingPolicy';
import { workspaceFolderPaths } from './workspace';

export const TOGGLE_SHARING_COMMAND = 'nativeClaude.toggleSelectionSharing';
const SECTION = 'nativeClaude';

/** The current `nativeClaude.shareSelection` / `excludeFromSharing` settings as a policy. */
export function currentSharingPolicy(): SharingPolicy {
  const config = vscode.workspace.getConfiguration(SECTION);
  return new SharingPolicy(
    { shareSelection: config.get<boolean>('shareSelection', true), exclude: config.get<string[]>('excludeFromSharing', [...DEFAULT_EXCLUDE_PATTERNS]) },
    workspaceFolderPaths,
  );
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
  item.command = TOGGLE_SHARING_COMMAND;
  const show = () => (currentSharingPolicy().sharesSelection ? item.hide() : item.show());
  show();
  return vscode.Disposable.from(
    item,
    vscode.commands.registerCommand(TOGGLE_SHARING_COMMAND, async () => {
      const config = vscode.workspace.getConfiguration(SECTION);
      const next = !config.get<boolean>('shareSelection', true);
      // Where the user set it (workspace or user); a new setting goes to the user settings.
      const inspected = config.inspect<boolean>('shareSelection');
      const target = inspected?.workspaceFolderValue !== undefined || inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await config.update('shareSelection', next, target);
      void vscode.window.setStatusBarMessage(next ? 'Claude sees your selection again' : 'Claude no longer sees your selection', 3000);
      return next;
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(`${SECTION}.shareSelection`) && !event.affectsConfiguration(`${SECTION}.excludeFromSharing`)) return;
      show();
      onChange();
    }),
  );
}
