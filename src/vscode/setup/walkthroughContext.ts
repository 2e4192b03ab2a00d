import * as vscode from 'vscode';
import type { BridgeStatus } from '../../server/ideBridge';
import { findExecutable } from '../../util/findExecutable';
import { PROPOSAL_SCHEME } from '../review/proposalFileSystem';
import { affectsSetting, claudeCommand } from '../settings';
import { DisposableStore } from '../disposables';

/**
 * The context keys the first-run walkthrough (package.json contributes.walkthroughs) completes its steps
 * on. VS Code remembers a completed step, so a key only has to become true once while the user does it.
 */
const WALKTHROUGH_KEYS = {
  /** `claudeCommand` is an executable on the extension host's PATH. */
  cliFound: 'nativeClaude.cliFound',
  /** At least one claude session is connected to this window now. */
  sessionConnected: 'nativeClaude.sessionConnected',
  /** A review diff has been shown in this window. */
  reviewSeen: 'nativeClaude.reviewSeen',
  /** The CLI's user config holds the tools entry. */
  toolsEnabled: 'nativeClaude.toolsEnabled',
} as const;

/**
 * Sets the walkthrough's context keys from what the extension observes.
 *
 * Seen in VS Code 1.139 (code-server): a step ticks when its key turns true after the walkthrough has been
 * opened in this window; a key that was already true when it is first opened does not tick it, and
 * setting it again (false, then true) does not either. So the README sends the user to the walkthrough
 * right after installing, before the steps are done.
 */
export class WalkthroughContext implements vscode.Disposable {
  private readonly values = new Map<string, boolean>();
  private readonly subscriptions = new DisposableStore();

  constructor(private readonly toolsInstalled: () => Promise<boolean>) {
    this.subscriptions.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        if ([...e.opened, ...e.changed].some((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === PROPOSAL_SCHEME)) {
          this.set(WALKTHROUGH_KEYS.reviewSeen, true);
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => affectsSetting(e, 'claudeCommand') && this.checkCli()),
    );
    this.checkCli();
    this.refreshTools();
  }

  bridgeChanged(status: BridgeStatus): void {
    this.set(WALKTHROUGH_KEYS.sessionConnected, status.sessionCount > 0);
    if (status.sessionCount > 0) this.set(WALKTHROUGH_KEYS.cliFound, true);
  }

  /** Re-reads the CLI's user config (after the tools were enabled or removed). */
  readonly refreshTools = (): void => {
    this.toolsInstalled().then(
      (installed) => this.set(WALKTHROUGH_KEYS.toolsEnabled, installed),
      () => undefined, // an unreadable config is reported where it is edited
    );
  };

  private checkCli(): void {
    const { program } = claudeCommand();
    void findExecutable(program).then((found) => found && this.set(WALKTHROUGH_KEYS.cliFound, true));
  }

  private set(key: string, value: boolean): void {
    if (this.values.get(key) === value) return;
    this.values.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }

  dispose(): void {
    this.subscriptions.dispose();
  }
}
