// execute_command: runs a shell command in a visible VS Code terminal (TerminalHost) and returns
// `{exit_code, output, cwd, output_captured}`. How terminals are picked, read and bounded is the
// TerminalHost's business (src/vscode/terminals/terminalRunner.ts); this file checks the folder and explains
// the outcome to the model.

import { promises as fs } from 'fs';
import { z } from 'zod';
import type { ApprovalMode } from '../host/approvalMode';
import type { CommandApprover, CommandOutcome, TerminalHost } from '../host/terminal';
import type { WorkspaceHost } from '../host/workspace';
import { defineTool, errorResult, jsonResult, type ToolDefinition } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';

const COMMAND_DEFAULT_TIMEOUT_MS = 120_000;
const COMMAND_MAX_TIMEOUT_MS = 600_000;

/** What the model gets: the outcome, plus a note when something needs explaining. */
export type CommandResult = CommandOutcome & { note?: string };

/** 1500 → "1.5 s", 120000 → "120 s". */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function describeOutcome(outcome: CommandOutcome, timeoutMs: number): CommandResult {
  if (outcome.timed_out) {
    return {
      ...outcome,
      note:
        `The command is still running in the terminal: it did not finish within ${formatSeconds(timeoutMs)}, and it was not stopped. ` +
        'The output is what it printed so far. Do not start it again; if it should not keep running, ask the user to stop it (Ctrl+C in that terminal).',
    };
  }
  if (!outcome.output_captured && outcome.exit_code === null) {
    return {
      ...outcome,
      note: 'Whether it succeeded is unknown. Ask the user what it printed, or have them enable shell integration (bash, zsh, fish or PowerShell with terminal.integrated.shellIntegration.enabled).',
    };
  }
  if (outcome.output_captured && outcome.exit_code === null) {
    return { ...outcome, note: 'The shell did not report an exit code, so success is unknown: judge from the output.' };
  }
  return outcome;
}

const inputSchema = z
  .object({
    command: z.string().min(1).describe('The command line, run by the terminal\'s shell (e.g. "npm test", "git status").'),
    cwd: z.string().min(1).optional().describe('Folder to run it in, relative to the workspace folder. Default: the (first) workspace folder.'),
    timeout: z
      .number()
      .int()
      .min(1000)
      .max(COMMAND_MAX_TIMEOUT_MS)
      .optional()
      .describe(
        `Milliseconds to wait for it to finish (default ${COMMAND_DEFAULT_TIMEOUT_MS}, max ${COMMAND_MAX_TIMEOUT_MS}). The command keeps running after that.`,
      ),
  })
  .strict();

/** With approvalMode "always" each command asks the user first; a "Reject" is `{status:"rejected", command}`. */
export interface CommandApproval {
  mode(): ApprovalMode;
  approver: CommandApprover;
}

export function executeCommandTool(terminals: TerminalHost, host: WorkspaceHost, approval?: CommandApproval): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'execute_command',
    title: 'Execute command',
    description:
      'Run a shell command in a VS Code integrated terminal the user can see, and return JSON {exit_code, output, cwd, output_captured}. ' +
      'The output is cleaned of colours and terminal escapes and, when long, cut in the middle (start and end kept). ' +
      'exit_code is null when unknown. output_captured is false when the terminal has no shell integration: the command still runs, but nothing can be read. ' +
      'On timeout the command keeps running and the result says so. Commands run one at a time per terminal; pagers are disabled (PAGER=cat). ' +
      'Do not start interactive programs that wait for input. ' +
      'Use it instead of the built-in Bash for builds, tests and long-running commands the user should see in VS Code.',
    inputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    handle: async ({ command, cwd: input, timeout = COMMAND_DEFAULT_TIMEOUT_MS }, context) => {
      // '.' resolves to the first workspace folder (or says that none is open).
      const target = await workspaceTarget(host, input ?? '.', { mustExist: true });
      if ('error' in target) return errorResult(target.error);
      if (!(await fs.stat(target.realPath)).isDirectory()) {
        return errorResult(`cwd "${input}" is a file, not a folder. Give the folder to run the command in.`);
      }
      if (approval?.mode() === 'always' && !(await approval.approver.approve(command, target.relative || '.'))) {
        return jsonResult({
          status: 'rejected',
          command,
          note: 'The user chose not to run this command. Do not run it again; ask the user what they want instead.',
        });
      }
      // The path as the user knows it (symlinks kept); the boundary check was made on the real one.
      const outcome = await terminals.run(command, { cwd: target.absolute, timeoutMs: timeout, signal: context.signal });
      return jsonResult(describeOutcome(outcome, timeout));
    },
  });
}
