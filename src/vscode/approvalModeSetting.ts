import type { ApprovalMode } from '../host/approvalMode';

/** From the least to the most asking: each mode confirms everything the one before it does. */
const STRICTNESS: readonly ApprovalMode[] = ['never', 'write-only', 'always'];
/** package.json's default (src/vscode/settings.ts takes it from here; its test compares them). */
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'write-only';

/** The stricter of two modes. */
export function stricterApprovalMode(a: ApprovalMode, b: ApprovalMode): ApprovalMode {
  return STRICTNESS.indexOf(a) >= STRICTNESS.indexOf(b) ? a : b;
}

export interface ApprovalModes {
  /** What this window does: the user's own mode, made stricter (never weaker) by the workspace. */
  effective: ApprovalMode;
  /** The user's own setting (or the default): what the CLI's user-wide permission rules may rely on. */
  user: ApprovalMode;
}
