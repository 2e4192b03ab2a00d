import * as vscode from 'vscode';
import { plainNotificationText } from '../util/notificationText';

/**
 * The extension's notifications (non-modal): every message passes through plainNotificationText, since
 * most of them carry text from outside (a file name claude chose, an error's message) and a notification
 * turns `[label](command:…)` into a link that runs the command. Modal questions call
 * `vscode.window.show*Message(…, { modal: true })` directly: a dialog shows plain text.
 * test/unit/vscode/notify.test.ts keeps every other notification going through here.
 */
export const notify = {
  info: <T extends string>(message: string, ...items: T[]): Thenable<T | undefined> =>
    vscode.window.showInformationMessage(plainNotificationText(message), ...items),
  warn: <T extends string>(message: string, ...items: T[]): Thenable<T | undefined> =>
    vscode.window.showWarningMessage(plainNotificationText(message), ...items),
  error: <T extends string>(message: string, ...items: T[]): Thenable<T | undefined> =>
    vscode.window.showErrorMessage(plainNotificationText(message), ...items),
};
