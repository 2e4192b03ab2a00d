import { execFile } from 'node:child_process';
import * as path from 'node:path';
import type { ClaudeCommand } from '../cliSetup/claudeCommand';
import { findExecutable } from '../util/findExecutable';

export interface CliFacts {
  /** The program of `nativeClaude.claudeCommand`, expanded. */
  command: string;
  path?: string;
  version?: string;
  error?: string;
}

/** Where the claude command's program is and what `--version` it reports (what a terminal with this PATH would run). */
export async function probeCli(command: ClaudeCommand, env: NodeJS.ProcessEnv = process.env, timeoutMs?: number): Promise<CliFacts> {
  const found = await findExecutable(command.program, env);
  if (!found) return { command: command.program };
  try {
    return { command: command.program, path: found, version: await readCliVersion(found, env, timeoutMs) };
  } catch (error) {
    return { command: command.program, path: found, error: (error as Error).message };
  }
}

/** `claude --version` (e.g. `2.1.328 (Claude Code)`), first line; rejects after `timeoutMs`. */
function readCliVersion(executable: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(executable, ['--version'], { env, timeout: timeoutMs, encoding: 'utf8', windowsHide: true }, (error, stdout, stderr) => {
      const text = `${stdout}`.trim().split('\n')[0] ?? '';
      if (error && !text) reject(new Error(`${path.basename(executable)} --version failed: ${(stderr || error.message).trim().slice(0, 300)}`));
      else resolve(text);
    });
  });
}
