import * as vscode from 'vscode';
import { ClaudeUserConfig, UnreadableConfigError } from '../route/claudeUserConfig';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../route/toolsRouteEntry';

const CONSENT_KEY = 'nativeClaude.toolsConsent';
type Consent = 'enabled' | 'declined';

/**
 * The one consent behind the tools route: asked once (when the first claude session connects), and
 * changeable later with the Enable/Remove commands. Enabling writes one user-scope MCP entry to the
 * CLI's config; it is the same for every window, so nothing is rewritten per window or per start.
 */
export class ToolsRoute {
  private asking = false;

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    private readonly config = new ClaudeUserConfig(),
  ) {}

  /** Offers the route once, unless the user already decided or the entry is already there. */
  async offerOnce(): Promise<void> {
    if (this.asking || this.state.get<Consent>(CONSENT_KEY)) return;
    this.asking = true;
    try {
      if (await this.isInstalled()) {
        await this.state.update(CONSENT_KEY, 'enabled');
        return;
      }
      const choice = await vscode.window.showInformationMessage(
        `Let Claude Code use VS Code's tools? claude started in VS Code's terminals gets read, list and search of the workspace, the Problems panel, ` +
          `file writes through the review diff, and commands in a visible terminal (each tool asks for permission in claude). ` +
          `This adds one "${TOOLS_SERVER_NAME}" MCP server entry to ${this.config.file}.`,
        'Enable',
        'Not Now',
        "Don't Ask Again",
      );
      if (choice === 'Enable') await this.enable();
      else if (choice === "Don't Ask Again") await this.state.update(CONSENT_KEY, 'declined');
    } finally {
      this.asking = false;
    }
  }

  async enable(): Promise<void> {
    try {
      const changed = await this.config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry());
      await this.state.update(CONSENT_KEY, 'enabled');
      this.log.info(`${changed ? 'Added' : 'Kept'} the "${TOOLS_SERVER_NAME}" MCP server in ${this.config.file}`);
      void vscode.window.showInformationMessage(
        `Claude Code can now use VS Code's tools as mcp__${TOOLS_SERVER_NAME}__* in claude sessions started from now on in VS Code's terminals.`,
      );
    } catch (error) {
      this.report('add', error);
    }
  }

  async remove(): Promise<void> {
    try {
      const changed = await this.config.removeServer(TOOLS_SERVER_NAME);
      await this.state.update(CONSENT_KEY, 'declined');
      this.log.info(changed ? `Removed the "${TOOLS_SERVER_NAME}" MCP server from ${this.config.file}` : `No "${TOOLS_SERVER_NAME}" MCP server in ${this.config.file}`);
      void vscode.window.showInformationMessage(`Claude Code's VS Code tools are removed from ${this.config.file}.`);
    } catch (error) {
      this.report('remove', error);
    }
  }

  private async isInstalled(): Promise<boolean> {
    try {
      return (await this.config.getServer(TOOLS_SERVER_NAME)) !== undefined;
    } catch {
      return false;
    }
  }

  private report(action: string, error: unknown): void {
    const message = error instanceof UnreadableConfigError ? error.message : `Could not ${action} the tools entry in ${this.config.file}: ${(error as Error).message}`;
    this.log.error(message);
    void vscode.window.showErrorMessage(message, 'Show Log').then((c) => c && this.log.show());
  }
}
