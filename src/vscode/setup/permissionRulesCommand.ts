import * as vscode from 'vscode';
import { probeCli } from '../../health/cliProbe';
import { matchesToolLevelRules } from '../../util/cliVersion';
import { ClaudeUserSettings, offerPermissionRules, rulesToAdd } from '../../cliSetup/permissionRules';
import { approvalModes, claudeCommand } from '../settings';
import { notify } from '../notify';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

/** The version of the claude a terminal would run, when it can be told (decides the rule form). */
async function cliVersion(): Promise<string | undefined> {
  return (await probeCli(claudeCommand())).version;
}

/** `nativeClaude.addPermissionRules`: the offer from src/cliSetup/permissionRules.ts with a modal dialog as its UI. */
export function registerPermissionRulesCommand(log: vscode.LogOutputChannel, serverName: () => string): vscode.Disposable {
  return registerCommand(
    COMMANDS.addPermissionRules,
    async () => {
      const version = await cliVersion();
      // The rules go to the CLI's user settings, for every project: only the user's own mode may decide
      // them, not one this workspace made stricter (another workspace would not confirm what they allow).
      const { user } = approvalModes();
      return offerPermissionRules({
        settings: new ClaudeUserSettings(),
        rules: rulesToAdd(user, matchesToolLevelRules(version ?? ''), serverName()),
        cliVersion: version,
        serverName: serverName(),
        log,
        ui: {
          ask: (question, detail, ...choices) => vscode.window.showInformationMessage(question, { modal: true, detail }, ...choices),
          inform: (message) => void notify.info(message),
          fail: (message) => void notify.error(message, 'Show Log').then((c) => c && log.show()),
        },
      });
    },
    'Could not offer the permission rules',
  );
}
