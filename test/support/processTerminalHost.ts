import { spawn } from 'node:child_process';
import type { CommandOutcome, TerminalHost } from '../../src/host/terminal';

/**
 * Runs commands with bash instead of a VS Code terminal, for tests of the route outside VS Code.
 * The real terminal runner (shell integration, visible terminal) is tested in real VS Code.
 */
export class ProcessTerminalHost implements TerminalHost {
  readonly commands: string[] = [];

  run(command: string, options: { cwd: string; timeoutMs: number }): Promise<CommandOutcome> {
    this.commands.push(command);
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', command], { cwd: options.cwd });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('close', (code) => resolve({ exit_code: code, output, cwd: options.cwd, output_captured: true }));
    });
  }
}
