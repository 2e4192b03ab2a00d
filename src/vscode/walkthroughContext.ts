import * as vscode from 'vscode';
import type { BridgeStatus } from '../server/ideBridge';
import { findExecutable } from '../util/findExecutable';
import { PROPOSAL_SCHEME } from './proposalFileSystem';

/**
 * The context keys the first-run walkthrough (package.json contributes.walkthroughs) completes its steps
 * on. VS Code remembers a completed step, so a key only has to become true once while the user does it.
 */
export const WALKTHROUGH_KEYS = {
  /** `claudeCommand` is an executable on the extension host's PATH. */
  cliFound: 'nativeClaude.cliFound',
  /** At least one claude session is connected to this window now. */
  sessionConnected: 'nativeClaude.sessionConnected',
  /** A review diff has been shown in this window. */
  reviewSeen: 'nativeClaude.reviewSeen',
  /** The CLI's user config holds the tools entry. */
  toolsEnabled: 'nativeClaude.toolsEnabled',
} as const;

/** Tab inputs the API knows; the walkthrough (Welcome) editor is none of them. */
const KNOWN_TAB_INPUTS = [
  vscode.TabInputText,
  vscode.TabInputTextDiff,
  vscode.TabInputCustom,
  vscode.TabInputWebview,
  vscode.TabInputNotebook,
  vscode.TabInputNotebookDiff,
  vscode.TabInputTerminal,
];

/**
 * Sets the walkthrough's context keys from what the extension observes.
 *
 * VS Code 1.139 ticks a step only when its key *changes* to true while the walkthrough service exists, and
 * that service is created when a walkthrough is first opened: a key already true then does not count
 * (test/real/vscode-walkthrough.test.ts). So when an editor the API cannot name opens (the Welcome page),
 * the keys that are true are set again (false, then true).
 */
export class WalkthroughContext implements vscode.Disposable {
  private readonly values = new Map<string, boolean>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly toolsInstalled: () => Promise<boolean>) {
    this.subscriptions = [
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        const tabs = [...e.opened, ...e.changed];
        if (tabs.some((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === PROPOSAL_SCHEME)) {
          this.set(WALKTHROUGH_KEYS.reviewSeen, true);
        }
        if (e.opened.some((tab) => !KNOWN_TAB_INPUTS.some((known) => tab.input instanceof known))) this.announceAgain();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('nativeClaude.claudeCommand') && this.checkCli()),
    ];
    this.checkCli();
    this.refreshTools();
  }

  bridgeChanged(status: BridgeStatus): void {
    this.set(WALKTHROUGH_KEYS.sessionConnected, status.ideSessions > 0);
    if (status.ideSessions > 0) this.set(WALKTHROUGH_KEYS.cliFound, true);
  }

  /** Re-reads the CLI's user config (after the tools were enabled or removed). */
  readonly refreshTools = (): void => {
    this.toolsInstalled().then(
      (installed) => this.set(WALKTHROUGH_KEYS.toolsEnabled, installed),
      () => undefined, // an unreadable config is reported where it is edited
    );
  };

  /** Sets every true key again, now and once more shortly after (the walkthrough may still be registering). */
  private announceAgain(): void {
    const again = async () => {
      for (const [key, value] of this.values) {
        if (!value) continue;
        await vscode.commands.executeCommand('setContext', key, false);
        await vscode.commands.executeCommand('setContext', key, true);
      }
    };
    void again();
    const timer = setTimeout(() => void again(), 1500);
    this.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }

  private checkCli(): void {
    const command = vscode.workspace.getConfiguration('nativeClaude').get<string>('claudeCommand', 'claude');
    if (findExecutable(command)) this.set(WALKTHROUGH_KEYS.cliFound, true);
  }

  private set(key: string, value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
