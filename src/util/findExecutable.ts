import { promises as fs, constants } from 'node:fs';
import * as path from 'node:path';

/**
 * Where `program` (a name like `claude`, or a path) would be found by a shell with this PATH: the first
 * executable match on PATH, or the path itself; undefined if none. `~` and variables are the caller's
 * to expand (src/cliSetup/claudeCommand.ts does it for the claude command).
 */
export async function findExecutable(
  program: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  if (!program) return undefined;
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''];
  const candidates =
    program.includes('/') || (platform === 'win32' && program.includes('\\'))
      ? [path.resolve(program)]
      : (env.PATH ?? '')
          .split(platform === 'win32' ? ';' : ':')
          .filter(Boolean)
          .map((dir) => path.join(dir, program));
  for (const base of candidates) {
    for (const ext of extensions) {
      if (await isExecutable(base + ext, platform)) return base + ext;
    }
  }
  return undefined;
}

async function isExecutable(file: string, platform: NodeJS.Platform): Promise<boolean> {
  try {
    if (!(await fs.stat(file)).isFile()) return false;
    if (platform !== 'win32') await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false; // not there or not executable
  }
}
