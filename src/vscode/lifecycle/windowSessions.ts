import * as vscode from 'vscode';
import { bridgeSessionSource, type IdeSession } from '../../server/sessionSource';
import { parentPidReaderFor } from '../../terminal/processAncestry';
import { SessionTerminals } from '../../terminal/sessionTerminals';
import type { IdeBridge } from '../../server/ideBridge';
import type { LaunchOptions } from './serverCommands';
import { describeSession, type SessionLabel } from '../statusBar';
import { vscodeTerminalDirectory } from '../terminals/terminalDirectory';

/**
 * The window's claude sessions with the terminal each runs in: the session source selections and
 * at-mentions use (the claude in front, else all), the status bar's labels, who asked for a review,
 * and which terminal **Launch claude** brings forward.
 */
export class WindowSessions implements vscode.Disposable {
  private readonly bridgeSessions;
  readonly sessionTerminals: SessionTerminals<vscode.Terminal>;

  constructor(private readonly bridge: IdeBridge) {
    this.bridgeSessions = bridgeSessionSource(bridge);
    this.sessionTerminals = new SessionTerminals(this.bridgeSessions, vscodeTerminalDirectory(), parentPidReaderFor());
  }

  labels(): SessionLabel[] {
    return this.sessionTerminals.sessionPlaces().map((p) => ({
      id: p.session.id,
      cliPid: p.session.cliPid,
      claimedPid: p.session.claimedPid,
      terminalName: p.terminalName,
      cliVersion: p.session.cliVersion,
    }));
  }

  /** The claude a connection belongs to (its own IDE session, or a tools-route connection's owner): src/server/sessionSource.ts. */
  claudeOf(connectionId: number): IdeSession | undefined {
    return this.bridgeSessions.claudeOf(connectionId);
  }

  /** Who a review belongs to, for the pending-reviews list: the claude (its terminal), else the route it came by. */
  whoAsked(connectionId: number): string | undefined {
    const claude = this.claudeOf(connectionId);
    const label = claude && this.labels().find((l) => l.id === claude.id);
    if (label) return `claude in ${describeSession(label)}`;
    return this.bridge.ideServer?.connections().some((c) => c.id === connectionId && c.route === 'tools') ? 'VS Code tools' : undefined;
  }

  /** The terminal part of the launch options (the tools part is the consent's, src/cliSetup/toolsConsent.ts). */
  readonly launch: Pick<LaunchOptions, 'connectedTerminal'> = {
    // The terminal in front if it runs a connected claude, else the newest such terminal.
    connectedTerminal: async () => {
      await this.sessionTerminals.settled();
      const terminals = this.sessionTerminals.sessionPlaces().flatMap((p) => (p.terminal ? [p.terminal] : []));
      return terminals.find((t) => t === vscode.window.activeTerminal) ?? terminals[terminals.length - 1];
    },
  };

  dispose(): void {
    this.sessionTerminals.dispose();
    this.bridgeSessions.dispose();
  }
}
