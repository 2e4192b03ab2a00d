/**
 * When the workspace tools ask the user first (`nativeClaude.approvalMode`): the review waits on
 * write_file/apply_diff, execute_command asks Run/Reject ("always"), executeCode asks
 * Run/Don't Run ("write-only" and "always"), and the CLI permission rules offered for them follow it. Read in VS Code by src/vscode/approvalModeSetting.ts.
 */
export type ApprovalMode = 'write-only' | 'always' | 'never';
