/**
 * Entry point of the product's inner suites (extensionTestsPath). Suites are `*.test.ts` files in this
 * folder, written with mocha's bdd API imported from 'mocha' (describe/it/before...), talking to the
 * installed extension through `installedExtension()` from ../util.
 */
import { runMocha, type RunOptions } from '../runner';

export function run(options?: RunOptions | string): Promise<void> {
  return runMocha(__dirname, options);
}
