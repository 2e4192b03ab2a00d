import * as vscode from 'vscode';
import { terminalCandidates } from '../../terminal/processAncestry';
import type { TerminalDirectory } from '../../terminal/sessionTerminals';

/** The window's integrated terminals for {@link SessionTerminals}: shell pids, the one in front, changes. */
export function vscodeTerminalDirectory(): TerminalDirectory<vscode.Terminal> {
  return {
    candidates: () => terminalCandidates(vscode.window.terminals),
    active: () => vscode.window.activeTerminal,
    onDidChangeActive: (listener) => vscode.window.onDidChangeActiveTerminal(() => listener()),
    onDidOpenOrClose: (listener) =>
      vscode.Disposable.from(
        vscode.window.onDidOpenTerminal(() => listener()),
        vscode.window.onDidCloseTerminal(() => listener()),
      ),
  };
}
