// Where the claude CLI keeps its files, decided once, the way the CLI decides (read in its code,
// 1.0.128, 2.0.77, 2.1.328 and 2.1.331):
//
//  - its config folder is `CLAUDE_CONFIG_DIR ?? ~/.claude` (NFC-normalised since 2.1). The value is
//    not trimmed, and an empty one is not "unset": "" (or "  ", or "cfg") is a relative folder that
//    every claude resolves against the folder it was started in;
//  - `settings.json` and the legacy `.config.json` are in that folder;
//  - `.claude.json` is in `CLAUDE_CONFIG_DIR || home`: here, and only here, "" means the home folder;
//  - lock files are read from `<config folder>/ide`, and since 2.1 also from `~/.claude/ide` whenever
//    CLAUDE_CONFIG_DIR is set (or the config folder is blank).
//
// A config folder that is not absolute is a different folder for each claude, so the extension cannot
// write where claude reads: the paths below then stay relative, as claude has them, and the one writer
// (foreignFile.ts) refuses a relative path, saying what to do. Lock files go to `~/.claude/ide`, which
// claude 2.1 reads in that case too.

import { statSync, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The config folder as claude names it: absolute, or relative when CLAUDE_CONFIG_DIR is (then see above). */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  return (env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude')).normalize('NFC');
}

/** Whether the config folder names one folder for every claude. */
function configDirIsAbsolute(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): boolean {
  return path.isAbsolute(claudeConfigDir(env, home));
}

/** `<config folder>/settings.json`: the CLI's user settings (where `/permissions` writes user rules). */
export function userSettingsPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  return path.join(claudeConfigDir(env, home), 'settings.json');
}

/**
 * Where the CLI keeps its user state, decided as claude 2.1.x does: the legacy
 * `<config folder>/.config.json` while it holds data (or is an empty, writable file and the new file
 * does not exist), else `.claude.json` in `$CLAUDE_CONFIG_DIR` or the home folder (`-custom-oauth`
 * added to the name when CLAUDE_CODE_CUSTOM_OAUTH_URL is set). 2.0.x used the legacy file whenever
 * it existed; the two agree except for an empty legacy file. A relative config folder's legacy file
 * is in each claude's own starting folder, which the extension cannot know: it is not looked for.
 */
export function claudeUserConfigPath(
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
  stat: (file: string) => Stats | undefined = statOrUndefinedSync,
): string {
  const suffix = env.CLAUDE_CODE_CUSTOM_OAUTH_URL ? '-custom-oauth' : '';
  const current = path.join(env.CLAUDE_CONFIG_DIR || home, `.claude${suffix}.json`);
  if (!configDirIsAbsolute(env, home)) return current;
  const legacy = path.join(claudeConfigDir(env, home), '.config.json');
  const legacyStat = stat(legacy);
  if (!legacyStat?.isFile()) return current;
  if (legacyStat.size > 0) return legacy;
  const writable = (legacyStat.mode & 0o222) !== 0;
  return writable && stat(current) === undefined ? legacy : current;
}

/** Where this window's lock file goes: `<config folder>/ide`, or `~/.claude/ide` when the config folder is relative. */
export function lockFileDirectory(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const configDir = claudeConfigDir(env, home);
  return path.isAbsolute(configDir) ? path.join(configDir, 'ide') : homeLockFileDirectory(home);
}

/** The lock-file folders claude 2.1 reads that can be named from here, without duplicates. */
export function lockFileDirectories(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string[] {
  const dirs = [lockFileDirectory(env, home)];
  if (env.CLAUDE_CONFIG_DIR !== undefined) dirs.push(homeLockFileDirectory(home));
  return [...new Set(dirs.map((d) => path.resolve(d)))];
}

function homeLockFileDirectory(home: string): string {
  return path.join(home, '.claude', 'ide').normalize('NFC');
}

function statOrUndefinedSync(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
