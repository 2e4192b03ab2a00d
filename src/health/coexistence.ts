import type { IdeExtensionChoice } from './checkSetup';

/** Anthropic's own VS Code extension; it also serves claude's IDE protocol. */
export const ANTHROPIC_EXTENSION_ID = 'anthropic.claude-code';

/** What this extension does in a workspace, given whether Anthropic's extension is there and what the user chose. */
export interface CoexistencePlan {
  /** Run the IDE server and write the lock file. */
  runServer: boolean;
  /** Give terminals CLAUDE_CODE_SSE_PORT (the variable both extensions set). */
  provideTerminalPort: boolean;
  /** Ask the user which extension serves this workspace. */
  ask: boolean;
}

/**
 * - alone: everything, nothing to ask;
 * - both, chosen this one: everything;
 * - both, chosen Anthropic's: nothing (no server, no lock file, no variables) until the user switches back;
 * - both, not chosen yet: the server and lock file (so /ide can pick either) but not the terminal variable,
 *   so the two never overwrite each other's CLAUDE_CODE_SSE_PORT behind the user's back; ask.
 */
export function coexistencePlan(anthropicInstalled: boolean, choice: IdeExtensionChoice | undefined): CoexistencePlan {
  if (!anthropicInstalled || choice === 'this') return { runServer: true, provideTerminalPort: true, ask: false };
  if (choice === 'anthropic') return { runServer: false, provideTerminalPort: false, ask: false };
  return { runServer: true, provideTerminalPort: false, ask: true };
}

export const COEXISTENCE_QUESTION =
  "Anthropic's Claude Code extension is also installed. Both serve claude's /ide: both give this window's terminals CLAUDE_CODE_SSE_PORT " +
  '(a terminal gets only one of the two ports) and both write a lock file for this folder (claude outside VS Code then finds two IDEs and ' +
  'connects to neither by itself). Which one should serve this workspace? (Until you choose, Native Claude leaves the terminal variable to the other extension.)';
export const CHOICE_THIS = 'Native Claude';
export const CHOICE_ANTHROPIC = "Anthropic's Claude Code";
