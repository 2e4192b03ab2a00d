import * as vscode from 'vscode';
import type { ApprovalMode } from '../host/approvalMode';
import { parseClaudeCommand, type ClaudeCommand } from '../cliSetup/claudeCommand';
import { DEFAULT_EXCLUDE_PATTERNS } from '../selection/sharingPolicy';
import type { SessionPolicy } from '../server/ideServer';
import type { HandoffTargetMode } from '../selection/promptHandoff';
import { DEFAULT_APPROVAL_MODE, stricterApprovalMode, type ApprovalModes } from './approvalModeSetting';

/** The section of every setting in package.json's `contributes.configuration`. */
export const SETTINGS_SECTION = 'nativeClaude';

/**
 * Where a review opens (setting `nativeClaude.reviewPlacement`). In every case keyboard focus stays
 * where the user was typing (the terminal keeps it if it had it).
 * - `active`: a tab in the active editor group;
 * - `beside`: another group than the active one and than any showing a terminal (claude's terminal
 *   may be an editor tab), so the file being edited and the terminal stay visible;
 * - `background`: no tab; a notification and the pending-reviews status item open it on demand.
 */
export type ReviewPlacement = 'active' | 'beside' | 'background';

/** The extension's settings and their types. */
export interface NativeClaudeSettings {
  autoStart: boolean;
  claudeCommand: string;
  maxMessageBytes: number;
  multipleSessions: SessionPolicy;
  reviewPlacement: ReviewPlacement;
  keepAcceptedFileOpen: boolean;
  shareSelection: boolean;
  excludeFromSharing: string[];
  approvalMode: ApprovalMode;
  handOffTo: HandoffTargetMode;
  handOffFocusesClaude: boolean;
}

/**
 * Each setting's default, once (test/unit/vscode/settings.test.ts holds it equal to package.json's
 * `default`s). VS Code answers with the manifest's default itself; this one counts only where the
 * manifest is not loaded.
 */
export const SETTING_DEFAULTS: Readonly<NativeClaudeSettings> = Object.freeze({
  autoStart: true,
  claudeCommand: 'claude',
  maxMessageBytes: 16 * 1024 * 1024,
  multipleSessions: 'all',
  reviewPlacement: 'active',
  keepAcceptedFileOpen: false,
  shareSelection: true,
  excludeFromSharing: [...DEFAULT_EXCLUDE_PATTERNS],
  approvalMode: DEFAULT_APPROVAL_MODE,
  handOffTo: 'lastUsed',
  handOffFocusesClaude: true,
});

/** `maxMessageBytes`' range: below 64 KiB a review of an ordinary file does not fit; above 64 MiB one message could take that much of the extension host's memory. */
export const MAX_MESSAGE_BYTES_RANGE = { min: 64 * 1024, max: 64 * 1024 * 1024 } as const;
/** At most this many `excludeFromSharing` patterns, each at most this long (each is compiled and matched on every selection). */
const EXCLUDE_PATTERNS_MAX = { count: 1000, chars: 1000 } as const;

/** What `WorkspaceConfiguration.inspect()` reports of one setting (language-specific values are not used). */
export interface InspectedSetting {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * What a repository (its `.vscode/settings.json`, a `.code-workspace`, a folder's settings) may do with
 * each setting (docs/security.md, "Settings a repository may set"):
 * - `any`: its value counts as the user's would;
 * - `stricter`: its value counts only where it is stricter than the user's own (`stricter` says which of two is);
 * - `ignored`: only the user's own value (else the default) counts.
 * `valid` turns a value into the setting's type, or undefined for a value of the wrong type (which then
 * counts as unset: the default, or the user's own); numbers are held within their range.
 */
interface SettingRule<T> {
  valid(value: unknown): T | undefined;
  workspace: 'any' | 'stricter' | 'ignored';
  stricter?(a: T, b: T): T;
}

const isBoolean = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);
const oneOf =
  <T extends string>(...values: T[]) =>
  (value: unknown): T | undefined =>
    values.includes(value as T) ? (value as T) : undefined;

const RULES: { [K in keyof NativeClaudeSettings]: SettingRule<NativeClaudeSettings[K]> } = {
  // Starting the server puts the token in every terminal: a repository may keep it from starting, not start it.
  autoStart: { valid: isBoolean, workspace: 'stricter', stricter: (a, b) => a && b },
  // The program Launch, Check Setup and the tools' `claude mcp` run, outside the workspace and on the user's own config.
  claudeCommand: { valid: (v) => (typeof v === 'string' && v.trim() !== '' && v.length <= 4096 ? v : undefined), workspace: 'ignored' },
  maxMessageBytes: {
    valid: (v) =>
      typeof v === 'number' && Number.isFinite(v) ? Math.min(MAX_MESSAGE_BYTES_RANGE.max, Math.max(MAX_MESSAGE_BYTES_RANGE.min, Math.floor(v))) : undefined,
    workspace: 'stricter',
    stricter: Math.min,
  },
  // `newest-wins` lets any token holder close the real claude's session.
  multipleSessions: { valid: oneOf<SessionPolicy>('all', 'newest-wins'), workspace: 'ignored' },
  // Where a review tab opens: it still waits for the user's answer.
  reviewPlacement: { valid: oneOf<ReviewPlacement>('active', 'beside', 'background'), workspace: 'any' },
  // Whether an accepted file stays in a normal tab: where a tab opens, like reviewPlacement.
  keepAcceptedFileOpen: { valid: isBoolean, workspace: 'any' },
  // Which claude a hand-off the user starts goes to, and whether its terminal comes to the front: the text
  // still waits in claude's prompt until the user presses Enter.
  handOffTo: { valid: oneOf<HandoffTargetMode>('lastUsed', 'ask'), workspace: 'any' },
  handOffFocusesClaude: { valid: isBoolean, workspace: 'any' },
  shareSelection: { valid: isBoolean, workspace: 'stricter', stricter: (a, b) => a && b },
  // A repository may add patterns (keep more from claude), never remove the user's or the defaults.
  excludeFromSharing: {
    valid: (v) =>
      Array.isArray(v)
        ? v.filter((p): p is string => typeof p === 'string' && p.length > 0 && p.length <= EXCLUDE_PATTERNS_MAX.chars).slice(0, EXCLUDE_PATTERNS_MAX.count)
        : undefined,
    workspace: 'stricter',
    stricter: (a, b) => [...new Set([...a, ...b])].slice(0, EXCLUDE_PATTERNS_MAX.count),
  },
  // The CLI's user-wide permission rules are written on the premise of the user's own mode (`never`: writes
  // confirmed nowhere), so a workspace may only ask for more.
  approvalMode: { valid: oneOf<ApprovalMode>('never', 'write-only', 'always'), workspace: 'stricter', stricter: stricterApprovalMode },
};

/** Where a value came from, for the log line about a value of the wrong type. */
export type SettingScope = 'user' | 'workspace' | 'folder';

/**
 * A setting's value from what inspect() reports, by its rule (plain: test/unit/vscode/settings.test.ts).
 * `onInvalid` hears of each value set but of the wrong type (it then counts as unset).
 */
export function resolveSetting<K extends keyof NativeClaudeSettings>(
  key: K,
  inspected: InspectedSetting | undefined,
  onInvalid?: (scope: SettingScope, value: unknown) => void,
): NativeClaudeSettings[K] {
  const rule = RULES[key] as SettingRule<NativeClaudeSettings[K]>;
  const fallback = SETTING_DEFAULTS[key];
  const validOrReport = (scope: SettingScope, raw: unknown): NativeClaudeSettings[K] | undefined => {
    const valid = rule.valid(raw);
    if (valid === undefined && raw !== undefined) onInvalid?.(scope, raw);
    return valid;
  };
  const defaultValue = rule.valid(inspected?.defaultValue) ?? ((Array.isArray(fallback) ? [...fallback] : fallback) as NativeClaudeSettings[K]);
  let value = validOrReport('user', inspected?.globalValue) ?? defaultValue;
  if (rule.workspace === 'ignored') return value;
  for (const [scope, scoped] of [
    ['workspace', inspected?.workspaceValue],
    ['folder', inspected?.workspaceFolderValue],
  ] as const) {
    const valid = validOrReport(scope, scoped);
    if (valid === undefined) continue;
    value = rule.workspace === 'any' ? valid : rule.stricter!(value, valid);
  }
  return value;
}

/**
 * `approvalMode` as this window applies it (`effective`: the user's, made stricter by the workspace) and
 * the user's own (what the CLI's user-wide permission rules may rely on), by the one rule above.
 */
export function resolveApprovalModes(inspected: InspectedSetting | undefined, onInvalid?: (scope: SettingScope, value: unknown) => void): ApprovalModes {
  return {
    effective: resolveSetting('approvalMode', inspected, onInvalid),
    user: resolveSetting('approvalMode', { defaultValue: inspected?.defaultValue, globalValue: inspected?.globalValue }),
  };
}

let log: { warn(message: string): void } | undefined;
const reported = new Set<string>();

/** Where a value of the wrong type is reported (the extension's log), once per setting, scope and value. */
export function reportInvalidSettingsTo(logger: { warn(message: string): void }): void {
  log = logger;
}

function reportInvalid(key: keyof NativeClaudeSettings): (scope: SettingScope, value: unknown) => void {
  return (scope, value) => {
    const shown = JSON.stringify(value)?.slice(0, 80) ?? String(value);
    const id = `${key}\0${scope}\0${shown}`;
    if (!log || reported.has(id)) return;
    reported.add(id);
    log.warn(`Setting ${SETTINGS_SECTION}.${key}: the ${scope} value ${shown} is not valid (see its description in Settings); it counts as unset.`);
  };
}

function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SETTINGS_SECTION);
}

/**
 * The one reader of `nativeClaude.*` (read when called: a changed setting counts at once). What a
 * workspace's or folder's value may change is each setting's rule (RULES above): a repository cannot
 * make a setting less safe than the user's own.
 */
export function setting<K extends keyof NativeClaudeSettings>(key: K): NativeClaudeSettings[K] {
  return resolveSetting(key, configuration().inspect(key), reportInvalid(key));
}

/** `approvalMode`, the window's and the user's own: a workspace may only make it stricter. */
export function approvalModes(): ApprovalModes {
  return resolveApprovalModes(configuration().inspect('approvalMode'), reportInvalid('approvalMode'));
}

/** `claudeCommand`, parsed: `~` and `${env:NAME}` expanded (src/cliSetup/claudeCommand.ts). */
export function claudeCommand(): ClaudeCommand {
  return parseClaudeCommand(setting('claudeCommand'));
}

/** Whether a configuration change touched one of these settings. */
export function affectsSetting(event: vscode.ConfigurationChangeEvent, ...keys: Array<keyof NativeClaudeSettings>): boolean {
  return keys.some((key) => event.affectsConfiguration(`${SETTINGS_SECTION}.${key}`));
}

/**
 * Writes a setting to the user settings, and to the workspace too where it has a value there: a
 * workspace's value counts only where it is stricter, so the user's own must change as well.
 */
export async function updateSetting<K extends keyof NativeClaudeSettings>(key: K, value: NativeClaudeSettings[K]): Promise<void> {
  const config = configuration();
  const inspected = config.inspect(key);
  await config.update(key, value, vscode.ConfigurationTarget.Global);
  if (inspected?.workspaceValue !== undefined) await config.update(key, value, vscode.ConfigurationTarget.Workspace);
}
