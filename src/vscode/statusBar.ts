import * as vscode from 'vscode';
import type { BridgeStatus } from '../server/ideBridge';
import { describeStatus } from '../server/statusText';

/** One status-bar item: port and connected Claude Code sessions; a click offers the actions. */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('nativeClaude.status', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = 'Claude Code IDE';
    this.item.command = 'nativeClaude.showStatus';
    this.item.show();
  }

  update(status: BridgeStatus): void {
    const text = describeStatus(status);
    this.item.text = `${status.ideSessions > 0 ? '$(sparkle)' : status.running ? '$(plug)' : '$(debug-disconnect)'} ${text.short}`;
    this.item.tooltip = text.long;
    this.item.backgroundColor = status.running ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  dispose(): void {
    this.item.dispose();
  }
}
