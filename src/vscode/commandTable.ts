import * as vscode from 'vscode';
import type { CommandId } from '../host/commandIds';
import { notify } from './notify';

let log: vscode.LogOutputChannel | undefined;

/** Where a failed command is logged (the extension's channel), set once at activation. */
export function reportCommandFailuresTo(channel: vscode.LogOutputChannel): void {
  log = channel;
}

/**
 * Registers one of the extension's commands (every id is in src/host/commandIds.ts) with the one error
 * path: a handler that throws is logged and shown as `<failure>: <message>` with **Show Log**, and the
 * command answers undefined. `failure` says what could not be done ("Claude's changes",
 * "Could not start the IDE server"). The handler's own answer is returned (the tests read it).
 */
export function registerCommand<A extends unknown[]>(id: CommandId, handler: (...args: A) => unknown, failure: string): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...(args as A));
    } catch (error) {
      const message = `${failure}: ${(error as Error).message}`;
      log?.error(`${id}: ${message}`);
      void notify.error(message, 'Show Log').then((choice) => choice && log?.show());
      return undefined;
    }
  });
}
