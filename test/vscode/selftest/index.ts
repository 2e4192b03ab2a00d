/** Entry point of the harness's own inner suites (test/real/vscode-harness.test.ts). */
import { runMocha, type RunOptions } from '../runner';

export function run(options?: RunOptions | string): Promise<void> {
  return runMocha(__dirname, options);
}
