import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Where `command` (a name like `claude`, a path like `~/bin/claude`, or either followed by arguments)
 * would be found by a shell: the first executable match on PATH, or the path itself. undefined if none.
 * For "is claude installed?" only; quoting and shell aliases are not interpreted.
 */
export function findExecutable(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = env.HOME ?? env.USERPROFILE ?? '',
): string | undefined {
  let name = command.trim().split(/\s+/)[0] ?? '';
  if (!name) return undefined;
  if (name === '~' || name.startsWith('~/')) name = path.join(home, name.slice(1));
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''];
  const candidates = name.includes('/') || (platform === 'win32' && name.includes('\\'))
    ? [path.resolve(name)]
    : (env.PATH ?? '').split(platform === 'win32' ? ';' : ':').filter(Boolean).map((dir) => path.join(dir, name));
  for (const base of candidates) {
    for (const ext of extensions) {
      const file = base + ext;
      try {
        if (!fs.statSync(file).isFile()) continue;
        if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
        return file;
      } catch {
        // not there or not executable: next
      }
    }
  }
  return undefined;
}
