import type { Logger } from '../util/logger';
import { ForeignFileError } from '../otherPrograms/foreignFile';
import { ClaudeUserConfig, ForeignEntryError, type UserMcpServers } from './claudeUserConfig';
import { ALTERNATE_TOOLS_SERVER_NAME, describeEntry, isToolsRouteEntry, TOOLS_SERVER_NAME, toolsRouteEntry } from './toolsRouteEntry';

const CONSENT_KEY = 'nativeClaude.toolsConsent';
/** The MCP server name the tools are under, when not {@link TOOLS_SERVER_NAME} (the user's own server has that name). */
const NAME_KEY = 'nativeClaude.toolsServerName';
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

const ENABLE_CHOICE = 'Enable';
export const USE_ALTERNATE_CHOICE = `Use "${ALTERNATE_TOOLS_SERVER_NAME}"`;
export const replaceChoice = (name: string) => `Replace My "${name}" Server`;

/**
 * The one consent behind the tools route: asked at most once per window (when the first claude session
 * connects), remembered across windows, changeable with enable/remove. Enabling writes one user-scope
 * MCP entry to the CLI's config; it is the same for every window, so nothing is rewritten per window or start.
 * A server of the user's own under the name (told by its shape, {@link isToolsRouteEntry}) is never
 * replaced or removed unasked: the user is told, and chooses another name or replacing it.
 */
export class ToolsConsent {
  /** Asked (or found decided) in this window already: "Not Now" means "not in this window". */
  private offered = false;
  /** Runs after the user enabled the tools (the permission-rules offer, src/cliSetup/permissionRules.ts). */
  onEnabled?: () => PromiseLike<unknown>;

  constructor(
    private readonly state: ConsentStore,
    private readonly ui: ConsentUi,
    private readonly log: Logger,
    readonly config: UserMcpServers = new ClaudeUserConfig(),
  ) {}

  /** The MCP server name the tools are (or would be) under: the model sees them as `mcp__<name>__*`. */
  serverName(): string {
    return this.state.get<string>(NAME_KEY) ?? TOOLS_SERVER_NAME;
  }

  /** Whether VS Code's tools entry is in the CLI's config under {@link serverName}. */
  async isEnabled(): Promise<boolean> {
    return isToolsRouteEntry(await this.config.getServer(this.serverName()).catch(() => undefined));
  }

  async offerOnce(): Promise<void> {
    if (this.offered || this.state.get<Consent>(CONSENT_KEY)) return;
    this.offered = true;
    const found = await this.findEntry();
    if (found.ours) {
      await this.useName(found.ours);
      await this.state.update(CONSENT_KEY, 'enabled');
      return;
    }
    if (found.foreign !== undefined) return this.askAboutForeign(found.foreign, true);
    const choice = await this.ui.ask(
      `Let Claude Code use VS Code's tools? claude started in VS Code's terminals gets read, list and search of the workspace, the Problems panel, ` +
        `file writes through the review diff, and commands in a visible terminal (each tool asks for permission in claude). ` +
        `This adds one "${this.serverName()}" MCP server entry to ${this.config.file}; a claude already running does not see it until it is restarted.`,
      ENABLE_CHOICE,
      'Not Now',
      "Don't Ask Again",
    );
    if (choice === ENABLE_CHOICE) await this.enable();
    else if (choice === "Don't Ask Again") await this.state.update(CONSENT_KEY, 'declined');
  }

  /**
   * Writes the entry under {@link serverName}; when a server of the user's own has that name, asks
   * first (another name, or replacing theirs). `replaceTheirs` is that explicit choice.
   */
  async enable(options: { replaceTheirs?: boolean } = {}): Promise<void> {
    const name = this.serverName();
    try {
      const changed = await this.config.setServer(name, toolsRouteEntry(), options.replaceTheirs ? {} : { replaceOnly: isToolsRouteEntry });
      await this.state.update(CONSENT_KEY, 'enabled');
      this.log.info(`${changed ? 'Added' : 'Kept'} the "${name}" MCP server in ${this.config.file}`);
      this.ui.inform(`Claude Code can now use VS Code's tools as mcp__${name}__* in claude sessions started from now on in VS Code's terminals.`);
      await this.onEnabled?.();
    } catch (error) {
      if (error instanceof ForeignEntryError && !options.replaceTheirs) {
        const theirs = await this.config.getServer(name).catch(() => undefined);
        return this.askAboutForeign(theirs, false);
      }
      this.report('add', error);
    }
  }

  async remove(): Promise<void> {
    const name = this.serverName();
    try {
      const changed = await this.config.removeServer(name, { onlyIf: isToolsRouteEntry });
      await this.state.update(CONSENT_KEY, 'declined');
      this.log.info(changed ? `Removed the "${name}" MCP server from ${this.config.file}` : `No "${name}" MCP server in ${this.config.file}`);
      this.ui.inform(`Claude Code's VS Code tools are removed from ${this.config.file}.`);
    } catch (error) {
      if (error instanceof ForeignEntryError) {
        await this.state.update(CONSENT_KEY, 'declined');
        this.log.info(`"${name}" in ${this.config.file} is the user's own MCP server, not VS Code's tools; left in place`);
        this.ui.inform(
          `The "${name}" MCP server in ${this.config.file} is your own, not VS Code's tools, so it was left in place. VS Code's tools are not installed.`,
        );
        return;
      }
      this.report('remove', error);
    }
  }

  /** The user's own server holds the name: say so, and let them choose; nothing is written unasked. */
  private async askAboutForeign(theirs: unknown, firstOffer: boolean): Promise<void> {
    const name = this.serverName();
    const alternate = name === ALTERNATE_TOOLS_SERVER_NAME ? [] : [USE_ALTERNATE_CHOICE];
    const choices = [...alternate, replaceChoice(name), ...(firstOffer ? ['Not Now', "Don't Ask Again"] : ['Cancel'])];
    const choice = await this.ui.ask(
      `Let Claude Code use VS Code's tools? ${this.config.file} already has an MCP server of yours named "${name}" (${describeEntry(theirs)}), ` +
        `so VS Code's tools would replace it. ` +
        (alternate.length > 0
          ? `Add them as "${ALTERNATE_TOOLS_SERVER_NAME}" instead (claude then sees mcp__${ALTERNATE_TOOLS_SERVER_NAME}__*), or replace your server `
          : 'Replace your server ') +
        `(its entry, with its settings, is removed from the file)?`,
      ...choices,
    );
    this.log.info(`The "${name}" MCP server in ${this.config.file} is the user's own (${describeEntry(theirs)}); choice: ${choice ?? 'none'}`);
    if (choice === USE_ALTERNATE_CHOICE && alternate.length > 0) {
      await this.useName(ALTERNATE_TOOLS_SERVER_NAME);
      return this.enable();
    }
    if (choice === replaceChoice(name)) return this.enable({ replaceTheirs: true });
    if (choice === "Don't Ask Again") await this.state.update(CONSENT_KEY, 'declined');
  }

  /** Our entry under the current name or the alternate one; else the user's own server under the current name, if any. */
  private async findEntry(): Promise<{ ours?: string; foreign?: unknown }> {
    try {
      const name = this.serverName();
      const current = await this.config.getServer(name);
      if (isToolsRouteEntry(current)) return { ours: name };
      for (const other of [TOOLS_SERVER_NAME, ALTERNATE_TOOLS_SERVER_NAME]) {
        if (other !== name && isToolsRouteEntry(await this.config.getServer(other))) return { ours: other };
      }
      return current === undefined ? {} : { foreign: current };
    } catch {
      return {};
    }
  }

  private async useName(name: string): Promise<void> {
    await this.state.update(NAME_KEY, name === TOOLS_SERVER_NAME ? undefined : name);
  }

  private report(action: string, error: unknown): void {
    const message =
      error instanceof ForeignFileError ? error.message : `Could not ${action} the tools entry in ${this.config.file}: ${(error as Error).message}`;
    this.log.error(message);
    this.ui.fail(message);
  }
}
