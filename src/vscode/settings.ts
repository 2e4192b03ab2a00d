import * as vscode from 'vscode';
import type { ApprovalMode } from '../host/approvalMode';
import { parseClaudeCommand, type ClaudeCommand } from '../cliSetup/claudeCommand';
import { DEFAULT_EXCLUDE_PATTERNS } from '../selection/sharingPolicy';
import type { SessionPolicy } from '../server/ideServer';
import type { HandoffTargetMode } from '../selection/promptHandoff';
import { DEFAULT_APPROVAL_MODE, readApprovalModes, type ApprovalModes } from './approvalModeSetting';
import type { ReviewPlacement } from './diffReviewHost';

/** The section of every setting in package.json's `contributes.configuration`. */
export const SETTINGS_SECTION = 'nativeClaude';

/** The extension's settings and their types. */
export interface NativeClaudeSettings {
  autoStart: boolean;
  claudeCommand: string;
  maxMessageBytes: number;
  multipleSessions: SessionPolicy;
  reviewPlacement: ReviewPlacement;
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
  shareSelection: true,
  excludeFromSharing: [...DEFAULT_EXCLUDE_PATTERNS],
  approvalMode: DEFAULT_APPROVAL_MODE,
  handOffTo: 'lastUsed',
  handOffFocusesClaude: true,
});

function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SETTINGS_SECTION);
}

/** The one reader of `nativeClaude.*` (read when called: a changed setting counts at once). */
export function setting<K extends keyof NativeClaudeSettings>(key: K): NativeClaudeSettings[K] {
  const fallback = SETTING_DEFAULTS[key];
  return configuration().get<NativeClaudeSettings[K]>(key, (Array.isArray(fallback) ? [...fallback] : fallback) as NativeClaudeSettings[K]);
}

/** `approvalMode` through inspect(): a workspace may only make it stricter (src/vscode/approvalModeSetting.ts). */
export function approvalModes(): ApprovalModes {
  return readApprovalModes(configuration());
}

/** `claudeCommand`, parsed: `~` and `${env:NAME}` expanded (src/cliSetup/claudeCommand.ts). */
export function claudeCommand(): ClaudeCommand {
  return parseClaudeCommand(setting('claudeCommand'));
}

/** Whether a configuration change touched one of these settings. */
export function affectsSetting(event: vscode.ConfigurationChangeEvent, ...keys: Array<keyof NativeClaudeSettings>): boolean {
  return keys.some((key) => event.affectsConfiguration(`${SETTINGS_SECTION}.${key}`));
}

/** Writes a setting where the user has it (workspace or folder), else to the user settings. */
export async function updateSetting<K extends keyof NativeClaudeSettings>(key: K, value: NativeClaudeSettings[K]): Promise<void> {
  const config = configuration();
  const inspected = config.inspect(key);
  const inWorkspace = inspected?.workspaceFolderValue !== undefined || inspected?.workspaceValue !== undefined;
  await config.update(key, value, inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
}
