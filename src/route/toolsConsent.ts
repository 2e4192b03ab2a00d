import type { Logger } from '../util/logger';
import { ForeignFileError } from '../otherPrograms/foreignFile';
import { ClaudeUserConfig, type UserMcpServers } from './claudeUserConfig';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from './toolsRouteEntry';

const CONSENT_KEY = 'nativeClaude.toolsConsent';
type Consent = 'enabled' | 'declined';

/** Where the decision is remembered across windows (VS Code: the extension's global state). */
export interface ConsentStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** The user-facing side: the question, and the outcome messages. */
export interface ConsentUi {
  ask(question: string, ...choices: string[]): PromiseLike<string | undefined>;
  inform(message: string): void;
  fail(message: string): void;
}

/**
 * The one consent behind the tools route: asked at most once per window (when the first claude session
 * connects), remembered across windows, changeable with enable/remove. Enabling writes one user-scope
 * MCP entry to the CLI's config; it is the same for every window, so nothing is rewritten per window or start.
 */
export class ToolsConsent {
  /** Asked (or found decided) in this window already: "Not Now" means "not in this window". */
  private offered = false;
  /** Runs after the user enabled the tools (the permission-rules offer, src/route/permissionRules.ts). */
  onEnabled?: () => PromiseLike<unknown>;

  constructor(
    private readonly state: ConsentStore,
    private readonly ui: ConsentUi,
    private readonly log: Logger,
    readonly config: UserMcpServers = new ClaudeUserConfig(),
  ) {}

  async offerOnce(): Promise<void> {
    if (this.offered || this.state.get<Consent>(CONSENT_KEY)) return;
    this.offered = true;
    if (await this.isInstalled()) {
      await this.state.update(CONSENT_KEY, 'enabled');
      return;
    }
    const choice = await this.ui.ask(
      `Let Claude Code use VS Code's tools? claude started in VS Code's terminals gets read, list and search of the workspace, the Problems panel, ` +
        `file writes through the review diff, and commands in a visible terminal (each tool asks for permission in claude). ` +
        `This adds one "${TOOLS_SERVER_NAME}" MCP server entry to ${this.config.file}; a claude already running does not see it until it is restarted.`,
      'Enable',
      'Not Now',
      "Don't Ask Again",
    );
    if (choice === 'Enable') await this.enable();
    else if (choice === "Don't Ask Again") await this.state.update(CONSENT_KEY, 'declined');
  }

  async enable(): Promise<void> {
    try {
      const changed = await this.config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry());
      await this.state.update(CONSENT_KEY, 'enabled');
      this.log.info(`${changed ? 'Added' : 'Kept'} the "${TOOLS_SERVER_NAME}" MCP server in ${this.config.file}`);
      this.ui.inform(`Claude Code can now use VS Code's tools as mcp__${TOOLS_SERVER_NAME}__* in claude sessions started from now on in VS Code's terminals.`);
      await this.onEnabled?.();
    } catch (error) {
      this.report('add', error);
    }
  }

  async remove(): Promise<void> {
    try {
      const changed = await this.config.removeServer(TOOLS_SERVER_NAME);
      await this.state.update(CONSENT_KEY, 'declined');
      this.log.info(changed ? `Removed the "${TOOLS_SERVER_NAME}" MCP server from ${this.config.file}` : `No "${TOOLS_SERVER_NAME}" MCP server in ${this.config.file}`);
      this.ui.inform(`Claude Code's VS Code tools are removed from ${this.config.file}.`);
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
    const message = error instanceof ForeignFileError ? error.message : `Could not ${action} the tools entry in ${this.config.file}: ${(error as Error).message}`;
    this.log.error(message);
    this.ui.fail(message);
  }
}
