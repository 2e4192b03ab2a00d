import * as vscode from 'vscode';
import { ClaudeMcpCommand } from '../../cliSetup/claudeMcpCommand';
import { ClaudeUserConfig } from '../../cliSetup/claudeUserConfig';
import { ToolsConsent } from '../../cliSetup/toolsConsent';
import { claudeCommand } from '../settings';
import { notify } from '../notify';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

/** The tools-route consent with VS Code's notifications as its UI (the logic is in src/cliSetup/toolsConsent.ts). */
export function createToolsConsent(state: vscode.Memento, log: vscode.LogOutputChannel): ToolsConsent {
  return new ToolsConsent(
    state,
    {
      ask: (question, ...choices) => notify.info(question, ...choices),
      inform: (message) => void notify.info(message),
      fail: (message) => void notify.error(message, 'Show Log').then((c) => c && log.show()),
    },
    log,
    new ClaudeMcpCommand(new ClaudeUserConfig(), { executable: claudeCommand().program, log: (m) => log.info(m) }),
  );
}

/** Claude: Let Claude Use VS Code Tools / Remove Claude's VS Code Tools; `after` runs once either is done (the walkthrough's tick). */
export function registerToolsCommands(consent: ToolsConsent, after: () => void): vscode.Disposable[] {
  return [
    registerCommand(COMMANDS.enableTools, () => consent.enable().then(after), "Could not enable VS Code's tools"),
    registerCommand(COMMANDS.removeTools, () => consent.remove().then(after), "Could not remove VS Code's tools"),
  ];
}
