/** Result of one command run in a visible integrated terminal. */
export interface CommandOutcome {
  /** null when unknown (no shell integration, or the shell never reported it): never guessed as 0. */
  exit_code: number | null;
  output: string;
  cwd: string;
  output_captured: boolean;
  /** Set when the timeout fired before the command finished. */
  timed_out?: boolean;
}

export interface TerminalHost {
  /** Runs `command` in a visible terminal for `cwd` (reused per cwd, one command at a time). */
  run(command: string, options: { cwd: string; timeoutMs: number; signal?: AbortSignal }): Promise<CommandOutcome>;
}

/** Asks the user before a command runs (approvalMode "always"). */
export interface CommandApprover {
  /** Resolves true when the user chose Run. */
  approve(command: string, cwd: string): Promise<boolean>;
}
