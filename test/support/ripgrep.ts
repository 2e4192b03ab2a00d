import { existsSync, readdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findRipgrep } from '../../src/vscode/workspace/ripgrep';

/** NATIVE_CLAUDE_RG, else VS Code's rg inside the code-server build of test/setup/install-real-clients.sh. */
export function locateRipgrep(): string {
  const fromEnv = process.env.NATIVE_CLAUDE_RG;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`NATIVE_CLAUDE_RG is set to ${fromEnv}, which does not exist.`);
    return fromEnv;
  }
  const cache = process.env.NATIVE_CLAUDE_CACHE ?? path.join(os.homedir(), '.cache', 'native-claude');
  const builds = existsSync(cache)
    ? readdirSync(cache)
        .filter((n) => n.startsWith('code-server-'))
        .sort()
        .reverse()
    : [];
  for (const build of builds) {
    // Exercises the same lookup the extension uses, on a real VS Code layout.
    const rg = findRipgrep(path.join(cache, build, 'node_modules', 'code-server', 'lib', 'vscode'));
    if (rg) return rg;
  }
  throw new Error(
    `No ripgrep for the tools integration tests: none found in a code-server build under ${cache}. ` +
      "Run test/setup/install-real-clients.sh (it builds code-server, which ships VS Code's rg), or set NATIVE_CLAUDE_RG to an rg binary.",
  );
}
