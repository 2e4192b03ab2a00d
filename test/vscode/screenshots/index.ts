/** Entry point of the README screenshots' inner suite (scripts/screenshots.ts runs it; it is not a test). */
import { runMocha, type RunOptions } from '../runner';

export function run(options?: RunOptions | string): Promise<void> {
  return runMocha(__dirname, options);
}
