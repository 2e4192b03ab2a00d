import type * as vscode from 'vscode';
import type { ApprovalMode } from '../host/approvalMode';

/** From the least to the most asking: each mode confirms everything the one before it does. */
const STRICTNESS: readonly ApprovalMode[] = ['never', 'write-only', 'always'];
/** package.json's default (src/vscode/settings.ts takes it from here; its test compares them). */
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'write-only';

function valid(value: unknown): value is ApprovalMode {
  return (STRICTNESS as readonly unknown[]).includes(value);
}

/** The stricter of two modes. */
export function stricterApprovalMode(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
  return STRICTNESS.indexOf(a) >= STRICTNESS.indexOf(b) ? a : b;
}

/** The parts of `WorkspaceConfiguration.inspect()` that matter here. */
export interface InspectedApprovalMode {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export interface ApprovalModes {
  /** What this window does: the user's own mode, made stricter (never weaker) by the workspace. */
  effective: ApprovalMode;
  /** The user's own setting (or the default): what the CLI's user-wide permission rules may rely on. */
  user: ApprovalMode;
}

/**
 * The permission rules in the CLI's user settings are written on the premise of the user's own
 * mode, and they hold for every project. A workspace's (or folder's) setting could otherwise take
 * that premise away (`never`: writes confirmed nowhere), so it only counts when it asks for more.
 * A value outside the enum counts as unset.
 */
export function resolveApprovalModes(inspected: InspectedApprovalMode | undefined): ApprovalModes {
  const user = valid(inspected?.globalValue) ? inspected.globalValue : valid(inspected?.defaultValue) ? inspected.defaultValue : DEFAULT_APPROVAL_MODE;
  let effective = user;
  for (const value of [inspected?.workspaceValue, inspected?.workspaceFolderValue]) if (valid(value)) effective = stricterApprovalMode(effective, value);
  return { effective, user };
}

/** The one place `nativeClaude.approvalMode` is read. */
export function readApprovalModes(configuration: Pick<vscode.WorkspaceConfiguration, 'inspect'>): ApprovalModes {
  return resolveApprovalModes(configuration.inspect<string>('approvalMode'));
}
