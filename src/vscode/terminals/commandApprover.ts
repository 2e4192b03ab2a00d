import * as vscode from 'vscode';
import type { CodeApprover } from '../../host/notebookKernel';
import type { CommandApprover } from '../../host/terminal';
import { notify } from '../notify';
import { INVISIBLE_NOTE, revealInvisible } from '../../util/invisibleCharacters';
import { plainNotificationText } from '../../util/notificationText';

/** A modal Run / Reject question that shows the exact command (approvalMode "always"). */
export const modalCommandApprover: CommandApprover = {
  async approve(command, cwd) {
    const shown = revealInvisible(command);
    const choice = await vscode.window.showWarningMessage(
      'Claude wants to run a command in the terminal',
      { modal: true, detail: `${shown.text}\n\nin ${cwd}${shown.found ? `\n\n${INVISIBLE_NOTE}` : ''}` },
      'Run',
      'Reject',
    );
    return choice === 'Run';
  },
};

/** Code short enough to read in a notification; longer code is shown in a modal dialog's detail. */
const NOTIFICATION_MAX_CHARS = 600;
const NOTIFICATION_MAX_LINES = 10;
/**
 * VS Code cuts a notification's message past 1,000 characters (and adds "..."): the message as shown
 * (with the notebook's name, the line marks and notify's word joiners) must fit, else the modal.
 */
const NOTIFICATION_SHOWN_MAX_CHARS = 1000;

/**
 * executeCode's Run / Don't Run (approvalMode "write-only" and "always"). A notification, not a modal
 * dialog, so keyboard focus stays in the terminal where the user talks to claude; the code is in the
 * message. Code too long for a notification (over 10 lines or 600 characters, or a message as shown over
 * VS Code's 1,000-character cut) goes in a modal dialog
 * (scrollable detail) instead, the one case that takes focus: the user must be able to read all of
 * what would run. So does code with invisible or direction-changing characters, written out as ⟦U+…⟧
 * with a sentence saying why (util/invisibleCharacters.ts). A cancelled call answers false at once (the
 * notification stays; a later click does nothing).
 */
export const notebookCodeApprover: CodeApprover = {
  async approve({ code, notebook }, signal) {
    const run = 'Run';
    const shown = revealInvisible(code);
    const lines = shown.text.split('\n');
    const question = `Claude wants to run code in the kernel of ${notebook}`;
    // A notification shows its message on one line: line breaks are marked.
    const message = `${question}: ${lines.join(' ⏎ ')}`;
    const fits =
      shown.text.length <= NOTIFICATION_MAX_CHARS &&
      lines.length <= NOTIFICATION_MAX_LINES &&
      !shown.found &&
      plainNotificationText(message).length <= NOTIFICATION_SHOWN_MAX_CHARS;
    const asked = fits
      ? notify.info(message, run, "Don't Run")
      : vscode.window.showWarningMessage(question, { modal: true, detail: shown.found ? `${shown.text}\n\n${INVISIBLE_NOTE}` : shown.text }, run, "Don't Run");
    if (signal.aborted) return false;
    const cancelled = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    return (await Promise.race([asked, cancelled])) === run;
  },
};
