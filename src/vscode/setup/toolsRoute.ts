import * as vscode from 'vscode';
import { ClaudeMcpCommand } from '../../cliSetup/claudeMcpCommand';
import { ClaudeUserConfig } from '../../cliSetup/claudeUserConfig';
import { ToolsConsent } from '../../cliSetup/toolsConsent';
import { claudeCommand } from '../settings';
import { notify } from '../notify';

/** The tools-route consent with VS Code's notifications as its UI (the logic is in src/cliSetup/toolsConsent.ts). */
export function createToolsConsent(state: vscode.Memento, log: vscode.LogOutputChannel): ToolsConsent {
  return new ToolsConsent(state, {
    ask: (question, ...choices) => notify.info(question, ...choices),
    inform: (message) => void notify.info(message),
    fail: (message) => void notify.error(message, 'Show Log').then((c) => c && log.show()),
  }, log, new ClaudeMcpCommand(new ClaudeUserConfig(), { executable: claudeCommand().program, log: (m) => log.info(m) }));
}
