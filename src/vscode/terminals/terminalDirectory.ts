import * as vscode from 'vscode';
import type { TerminalDirectory } from '../../terminal/sessionTerminals';

/** The window's integrated terminals for {@link SessionTerminals}: shell pids, the one in front, changes. */
export function vscodeTerminalDirectory(): TerminalDirectory<vscode.Terminal> {
  return {
    candidates: () => Promise.all(vscode.window.terminals.map(async (terminal) => ({ terminal, name: terminal.name, pid: await processIdOf(terminal) }))),
    active: () => vscode.window.activeTerminal,
    onDidChangeActive: (listener) => vscode.window.onDidChangeActiveTerminal(() => listener()),
    onDidOpenOrClose: (listener) =>
      vscode.Disposable.from(
        vscode.window.onDidOpenTerminal(() => listener()),
        vscode.window.onDidCloseTerminal(() => listener()),
      ),
  };
}

/** `processId` stays pending for a terminal whose process has not started; don't wait on it for long. */
export function processIdOf(terminal: vscode.Terminal, timeoutMs = 500): Promise<number | undefined> {
  return Promise.race([
    Promise.resolve(terminal.processId).catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs)),
  ]);
}
