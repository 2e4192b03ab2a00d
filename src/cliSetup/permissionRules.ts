import { userSettingsPath } from '../otherPrograms/claudeConfigDir';
import { ForeignJsonFile, UnusableFileError } from '../otherPrograms/foreignFile';
import type { ApprovalMode } from '../host/approvalMode';
import { TOOLS_SERVER_NAME } from './toolsRouteEntry';

type Json = Record<string, unknown>;

const READ_ONLY_TOOLS = [
  'read_file',
  'list_files',
  'search_files',
  'get_diagnostics',
  'find_definitions',
  'find_references',
  'describe_symbol',
  'file_outline',
  'find_symbols',
  'call_hierarchy',
] as const;
const WRITE_TOOLS = ['write_file', 'apply_diff', 'rename_symbol'] as const;

/**
 * The `permissions.allow` rules that leave exactly one confirmation per action:
 * - read-only tools: none (they only read the workspace);
 * - write_file / apply_diff / rename_symbol: VS Code's review diff (unless approvalMode "never", where nothing would confirm them);
 * - execute_command: VS Code's Run/Reject with approvalMode "always", otherwise the CLI's own prompt stays.
 * Tool-level rules (`mcp__vscode__read_file`) are matched by claude 2.x; claude 1.0.x matches only the
 * whole-server form `mcp__vscode`, which would also allow execute_command, so that form is offered only
 * when VS Code confirms every write and command itself (approvalMode "always").
 */
export function rulesToAdd(approvalMode: ApprovalMode, cliMatchesToolRules: boolean | undefined, serverName: string = TOOLS_SERVER_NAME): string[] {
  if (cliMatchesToolRules === false) return approvalMode === 'always' ? [`mcp__${serverName}`] : [];
  const tools: string[] = [...READ_ONLY_TOOLS];
  if (approvalMode !== 'never') tools.push(...WRITE_TOOLS);
  if (approvalMode === 'always') tools.push('execute_command');
  return tools.map((tool) => `mcp__${serverName}__${tool}`);
}

/**
 * Adds rules to `permissions.allow` of the CLI's user settings with the one writer of other programs'
 * files (src/otherPrograms/foreignFile.ts): claude's own lock `<file>.lock` (claude takes it since
 * 2.1.330; earlier versions save without a lock, which the re-check right before the rename covers),
 * everything else kept, the mode kept, a file that is not a JSON object never touched.
 */
export class ClaudeUserSettings {
  private readonly json: ForeignJsonFile;

  constructor(
    readonly file: string = userSettingsPath(),
    options: { lockWaitMs?: number } = {},
  ) {
    this.json = new ForeignJsonFile(file, {
      ownerLock: true,
      lockWaitMs: options.lockWaitMs,
      unusableAdvice: 'Fix it (or run claude once: it reports the problem), then try again.',
    });
  }

  async allowRules(): Promise<string[]> {
    const allow = ((await this.json.read())?.permissions as Json | undefined)?.allow;
    return Array.isArray(allow) ? allow.filter((r): r is string => typeof r === 'string') : [];
  }

  /** Returns the rules that were actually added (those not already there). */
  async addAllowRules(rules: readonly string[]): Promise<string[]> {
    let added: string[] = [];
    await this.json.update((settings) => {
      const permissions = isObject(settings.permissions) ? settings.permissions : {};
      if (permissions.allow !== undefined && !Array.isArray(permissions.allow)) {
        throw new UnusableFileError(`${this.file}: permissions.allow is not a list; it was left unchanged.`);
      }
      const allow = (permissions.allow as unknown[] | undefined) ?? [];
      added = rules.filter((rule) => !allow.includes(rule));
      if (added.length === 0) return false;
      settings.permissions = { ...permissions, allow: [...allow, ...added] };
      return true;
    });
    return added;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The user-facing side of the offer (VS Code: a modal message). */
export interface RulesUi {
  ask(question: string, detail: string, ...choices: string[]): PromiseLike<string | undefined>;
  inform(message: string): void;
  fail(message: string): void;
}

export const ADD_RULES_CHOICE = 'Add Rules';

/**
 * "One consent, one confirmation": offers to add the rules from {@link rulesToAdd} to the CLI's user
 * settings, showing exactly the lines that will be added and where. Returns the rules added.
 */
export async function offerPermissionRules(options: {
  settings: ClaudeUserSettings;
  rules: readonly string[];
  ui: RulesUi;
  log: { info(m: string): void; error(m: string): void };
  cliVersion?: string;
  /** The MCP server name the tools are under (src/cliSetup/toolsConsent.ts). */
  serverName?: string;
}): Promise<string[]> {
  const { settings, ui, log } = options;
  let missing: string[];
  try {
    const present = new Set(await settings.allowRules());
    missing = options.rules.filter((r) => !present.has(r));
  } catch (error) {
    ui.fail((error as Error).message);
    return [];
  }
  if (options.rules.length === 0) {
    ui.inform(
      `No rules to add: claude ${options.cliVersion ?? ''} matches only the whole-server rule mcp__${options.serverName ?? TOOLS_SERVER_NAME}, which would also let commands run unasked; it is offered with nativeClaude.approvalMode "always".`,
    );
    return [];
  }
  if (missing.length === 0) {
    ui.inform(`${settings.file} already allows ${options.rules.join(', ')}.`);
    return [];
  }
  const choice = await ui.ask(
    "Let claude run VS Code's read-only tools without asking, and let VS Code's review diff be the only confirmation of a write?",
    `This adds to "permissions": { "allow": [...] } in ${settings.file}:\n\n${missing.map((r) => `  "${r}"`).join(',\n')}\n\n` +
      'Everything else in the file is kept. claude still asks before execute_command unless nativeClaude.approvalMode is "always" (then VS Code asks). ' +
      'Remove the lines (or use /permissions in claude) to undo.',
    ADD_RULES_CHOICE,
  );
  if (choice !== ADD_RULES_CHOICE) return [];
  try {
    const added = await settings.addAllowRules(missing);
    log.info(`Added ${added.join(', ') || 'nothing'} to permissions.allow in ${settings.file}`);
    ui.inform(`Added ${added.length} permission rule${added.length === 1 ? '' : 's'} to ${settings.file}; claude sessions pick them up at once.`);
    return added;
  } catch (error) {
    const message = error instanceof UnusableFileError ? error.message : `Could not add the rules to ${settings.file}: ${(error as Error).message}`;
    log.error(message);
    ui.fail(message);
    return [];
  }
}
