import * as vscode from 'vscode';
import type { CommandApprover } from '../host/terminal';

/** A modal Run / Reject question that shows the exact command (approvalMode "always"). */
export const modalCommandApprover: CommandApprover = {
  async approve(command, cwd) {
    const choice = await vscode.window.showWarningMessage(
      'Claude wants to run a command in the terminal',
      { modal: true, detail: `${command}\n\nin ${cwd}` },
      'Run',
      'Reject',
    );
    return choice === 'Run';
  },
};
