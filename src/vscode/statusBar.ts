import * as vscode from 'vscode';
import type { BridgeStatus } from '../server/ideBridge';
import { describeStatus } from '../server/statusText';
import { shownVersion } from '../util/cliVersion';
import { COMMANDS } from '../host/commandIds';

/** A connected claude as the status bar names it. */
export interface SessionLabel {
  id: number;
  /** The CLI's pid when it was verified (or cannot be checked here); see `claimedPid`. */
  cliPid?: number;
  /** The pid it announced, verified or not. */
  claimedPid?: number;
  /** The integrated terminal it runs in; undefined when it is not one of this window's (tmux, outside VS Code). */
  terminalName?: string;
  /** The claude CLI's version, from its `initialize` (or the upgrade's User-Agent). */
  cliVersion?: string;
}

/**
 * Two status-bar items: the server with the connected Claude Code sessions (the tooltip says which
 * terminal each runs in; a click offers the actions), and the pending reviews (shown only while some
 * wait; a click lists them to reopen any).
 */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('nativeClaude.status', vscode.StatusBarAlignment.Right, 100);
  private readonly reviews = vscode.window.createStatusBarItem('nativeClaude.reviews', vscode.StatusBarAlignment.Right, 99);

  constructor() {
    this.item.name = 'Claude Code IDE';
    this.item.command = COMMANDS.showStatus;
    this.item.show();
    this.reviews.name = 'Claude Code pending reviews';
    this.reviews.command = COMMANDS.showPendingReviews;
  }

  update(status: BridgeStatus, sessions: readonly SessionLabel[] = []): void {
    const text = describeStatus(status, sessions.map(describeSession));
    this.item.text = `${status.sessionCount > 0 ? '$(sparkle)' : status.running ? '$(plug)' : '$(debug-disconnect)'} ${text.short}`;
    this.item.tooltip = text.long;
    this.item.backgroundColor = status.running ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  updateReviews(files: readonly string[]): void {
    if (files.length === 0) {
      this.reviews.hide();
      return;
    }
    this.reviews.text = `$(diff) ${files.length === 1 ? '1 review' : `${files.length} reviews`}`;
    this.reviews.tooltip = `Claude's proposals waiting for you (click to open one):\n${files.join('\n')}`;
    this.reviews.show();
  }

  dispose(): void {
    this.item.dispose();
    this.reviews.dispose();
  }
}

export function describeSession(session: SessionLabel): string {
  const pid = session.cliPid ? `pid ${session.cliPid}` : session.claimedPid ? `pid ${session.claimedPid} not verified` : 'pid unknown';
  // The peer's own text: only a version's characters are shown (shownVersion).
  const version = session.cliVersion === undefined ? undefined : (shownVersion(session.cliVersion) ?? 'of an unknown version');
  const who = version ? `claude ${version}, ${pid}` : pid;
  return session.terminalName ? `terminal "${session.terminalName}" (${who})` : `not in a terminal of this window (${who})`;
}
