import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ApprovalMode } from '../host/approvalMode';
import { TOOLS_SERVER_NAME } from './toolsRouteEntry';

type Json = Record<string, unknown>;

/** `<CLAUDE_CONFIG_DIR or ~/.claude>/settings.json`: the CLI's user settings (where `/permissions` writes user rules). */
export function userSettingsPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  return path.join(configured ? configured : path.join(home, '.claude'), 'settings.json');
}

const READ_ONLY_TOOLS = ['read_file', 'list_files', 'search_files', 'get_diagnostics'] as const;
const WRITE_TOOLS = ['write_file', 'apply_diff'] as const;

/**
 * The `permissions.allow` rules that leave exactly one confirmation per action:
 * - read-only tools: none (they only read the workspace);
 * - write_file / apply_diff: VS Code's review diff (unless approvalMode "never", where nothing would confirm them);
 * - execute_command: VS Code's Run/Reject with approvalMode "always", otherwise the CLI's own prompt stays.
 * Tool-level rules (`mcp__vscode__read_file`) are matched by claude 2.x; claude 1.0.x matches only the
 * whole-server form `mcp__vscode`, which would also allow execute_command, so that form is offered only
 * when VS Code confirms every write and command itself (approvalMode "always").
 */
export function rulesToAdd(approvalMode: ApprovalMode, cliMatchesToolRules: boolean | undefined): string[] {
  if (cliMatchesToolRules === false) return approvalMode === 'always' ? [`mcp__${TOOLS_SERVER_NAME}`] : [];
  const tools: string[] = [...READ_ONLY_TOOLS];
  if (approvalMode !== 'never') tools.push(...WRITE_TOOLS);
  if (approvalMode === 'always') tools.push('execute_command');
  return tools.map((tool) => `mcp__${TOOLS_SERVER_NAME}__${tool}`);
}

export class UnreadableSettingsError extends Error {
  override readonly name = 'UnreadableSettingsError';
}

/**
 * Adds rules to `permissions.allow` of the CLI's user settings the way the CLI writes that file itself
 * (a temp file renamed over it; the CLI takes no lock for settings.json): everything else is kept, the
 * mode is kept, a file that is not a JSON object is never touched, and if it changed while we edited
 * (a claude writing `/permissions`) the edit starts again.
 */
export class ClaudeUserSettings {
  constructor(readonly file: string = userSettingsPath()) {}

  async allowRules(): Promise<string[]> {
    const allow = ((await this.read())?.permissions as Json | undefined)?.allow;
    return Array.isArray(allow) ? allow.filter((r): r is string => typeof r === 'string') : [];
  }

  /** Returns the rules that were actually added (those not already there). */
  async addAllowRules(rules: readonly string[]): Promise<string[]> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await statOrUndefined(this.file);
      const settings = (await this.read()) ?? {};
      const permissions = isObject(settings.permissions) ? settings.permissions : {};
      if (permissions.allow !== undefined && !Array.isArray(permissions.allow)) {
        throw new UnreadableSettingsError(`${this.file}: permissions.allow is not a list; it was left unchanged.`);
      }
      const allow = (permissions.allow as unknown[] | undefined) ?? [];
      const added = rules.filter((rule) => !allow.includes(rule));
      if (added.length === 0) return [];
      settings.permissions = { ...permissions, allow: [...allow, ...added] };
      const after = await statOrUndefined(this.file);
      if (before?.mtimeMs !== after?.mtimeMs || before?.size !== after?.size) continue;
      await this.writeAtomically(settings, before?.mode);
      return added;
    }
    throw new Error(`${this.file} kept changing while it was being edited; try again when claude is idle`);
  }

  private async read(): Promise<Json | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UnreadableSettingsError(`${this.file} is not valid JSON (${(error as Error).message}); it was left unchanged.`);
    }
    if (!isObject(parsed)) throw new UnreadableSettingsError(`${this.file} does not hold a JSON object; it was left unchanged.`);
    return parsed;
  }

  private async writeAtomically(settings: Json, mode: number | undefined): Promise<void> {
    // Through a symlinked settings.json (dotfile repos) to the real file, so the link stays a link.
    let target = this.file;
    try {
      target = await fs.realpath(this.file);
    } catch {
      // no file yet
    }
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, `${JSON.stringify(settings, null, 2)}\n`, { mode: mode !== undefined ? mode & 0o777 : 0o600, flag: 'wx' });
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function statOrUndefined(file: string) {
  try {
    return await fs.stat(file);
  } catch {
    return undefined;
  }
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
      `No rules to add: claude ${options.cliVersion ?? ''} matches only the whole-server rule mcp__${TOOLS_SERVER_NAME}, which would also let commands run unasked; it is offered with nativeClaude.approvalMode "always".`,
    );
    return [];
  }
  if (missing.length === 0) {
    ui.inform(`${settings.file} already allows ${options.rules.join(', ')}.`);
    return [];
  }
  const choice = await ui.ask(
    'Let claude run VS Code\'s read-only tools without asking, and let VS Code\'s review diff be the only confirmation of a write?',
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
    const message = error instanceof UnreadableSettingsError ? error.message : `Could not add the rules to ${settings.file}: ${(error as Error).message}`;
    log.error(message);
    ui.fail(message);
    return [];
  }
}
