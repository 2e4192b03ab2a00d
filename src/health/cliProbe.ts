import { execFile } from 'node:child_process';
import { promises as fs, constants } from 'node:fs';
import * as path from 'node:path';

/** Where `claude` is on this PATH (what a terminal with the same PATH would run), or undefined. */
export async function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  if (command.includes('/') || (platform === 'win32' && command.includes('\\'))) return (await isExecutable(command)) ? path.resolve(command) : undefined;
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''];
  const separator = platform === 'win32' ? ';' : ':';
  for (const dir of (env.PATH ?? '').split(separator)) {
    if (!dir) continue;
    for (const ext of extensions) {
      const candidate = path.join(dir, command + ext);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `claude --version` (e.g. `2.1.328 (Claude Code)`), first line; rejects after `timeoutMs`. */
export function readCliVersion(executable: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(executable, ['--version'], { env, timeout: timeoutMs, encoding: 'utf8', windowsHide: true }, (error, stdout, stderr) => {
      const text = `${stdout}`.trim().split('\n')[0] ?? '';
      if (error && !text) reject(new Error(`${path.basename(executable)} --version failed: ${(stderr || error.message).trim().slice(0, 300)}`));
      else resolve(text);
    });
  });
}
