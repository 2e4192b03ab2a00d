/**
 * Every command id of the extension, in one place: the ones package.json contributes (the palette, menus,
 * keybindings; test/unit/manifest.test.ts holds the two lists equal) and the internal ones other code
 * runs (a fix button on the Check Setup page, a CodeLens). Plain strings, so the plain-TypeScript rooms
 * (src/health's fix buttons) name them too. Registered through src/vscode/commandTable.ts.
 */
export const COMMANDS = {
  showStatus: 'nativeClaude.showStatus',
  startServer: 'nativeClaude.startServer',
  stopServer: 'nativeClaude.stopServer',
  restartServer: 'nativeClaude.restartServer',
  launchClaude: 'nativeClaude.launchClaude',
  showLog: 'nativeClaude.showLog',
  acceptReview: 'nativeClaude.acceptReview',
  rejectReview: 'nativeClaude.rejectReview',
  mentionSelection: 'nativeClaude.mentionSelection',
  showPendingReviews: 'nativeClaude.showPendingReviews',
  enableTools: 'nativeClaude.enableTools',
  removeTools: 'nativeClaude.removeTools',
  toggleSelectionSharing: 'nativeClaude.toggleSelectionSharing',
  checkSetup: 'nativeClaude.checkSetup',
  chooseIdeExtension: 'nativeClaude.chooseIdeExtension',
  addPermissionRules: 'nativeClaude.addPermissionRules',
  relaunchTerminals: 'nativeClaude.relaunchTerminals',
  deleteStaleLockFile: 'nativeClaude.deleteStaleLockFile',
  openPath: 'nativeClaude.openPath',
  changesOpen: 'nativeClaude.changes.open',
  changesKeepFile: 'nativeClaude.changes.keepFile',
  changesUndoFile: 'nativeClaude.changes.undoFile',
  changesKeepAll: 'nativeClaude.changes.keepAll',
  changesUndoAll: 'nativeClaude.changes.undoAll',
  changesKeepHunk: 'nativeClaude.changes.keepHunk',
  changesUndoHunk: 'nativeClaude.changes.undoHunk',
  changesUndoAgain: 'nativeClaude.changes.undoAgain',
  changesRedo: 'nativeClaude.changes.redo',
  fixWithClaude: 'nativeClaude.fixWithClaude',
  explainWithClaude: 'nativeClaude.explainWithClaude',
  askAboutClaudeChange: 'nativeClaude.askAboutClaudeChange',
  askAboutGitChange: 'nativeClaude.askAboutGitChange',
  sendCellToClaude: 'nativeClaude.sendCellToClaude',
  sendTerminalSelectionToClaude: 'nativeClaude.sendTerminalSelectionToClaude',
  /** Internal: the Keep Your Edits / Keep Claude's Change / Keep Both lenses of a review's conflict. */
  keepConflictSide: 'nativeClaude.review.keepConflictSide',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

/** The commands package.json does not contribute: run by the extension's own UI only. */
export const INTERNAL_COMMANDS: readonly CommandId[] = [COMMANDS.keepConflictSide];
