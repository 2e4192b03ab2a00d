// Running the ripgrep VS Code ships (docs/vscode-traps.md, traps 18-20) for search_files and
// list_files: rg with a line or chunk callback and early stop, the folders neither tool descends
// into, and where rg starts so the paths it prints are workspace-relative.

import { spawn } from 'child_process';
import { promises as fs } from 'fs';
import { StringDecoder } from 'string_decoder';
import type { WorkspacePath } from '../workspace/workspacePaths';

/**
 * Folders that are never listed or searched, even outside a git repository or when no .gitignore
 * names them: dependencies, VCS data and caches, where a search drowns in noise and a listing in
 * entries. (`.git` matters most: `--hidden` is on so that `.github/` or `.env.example` are seen.)
 */
export const EXCLUDED_FOLDERS: readonly string[] = [
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.gradle',
  '.next',
  '.nuxt',
  '.turbo',
];

/** rg arguments shared by search_files and list_files. */
export function commonRipgrepArgs(): string[] {
  return [
    '--no-config', // a user's RIPGREP_CONFIG_PATH must not change the output format
    '--no-require-git', // honour .gitignore outside a git repository too (trap 19)
    '--hidden',
    ...EXCLUDED_FOLDERS.flatMap((name) => ['--glob', `!${name}`]),
  ];
}

export interface RipgrepRun {
  /** rg's exit code: 0 found, 1 nothing found, 2 error; null when it was stopped or did not start. */
  exitCode: number | null;
  /** First few KB of stderr. */
  stderr: string;
  /** Why it was stopped early, if it was. */
  stopped?: 'limit' | 'aborted' | 'timeout';
  /** Set when rg could not be started at all (missing, not executable). */
  spawnError?: Error;
}

const STDERR_KEEP_CHARS = 4096;

/**
 * Runs rg and hands each stdout line (without its `\n`) to `onLine`; returning `false` stops rg
 * at once, which is how the result caps avoid reading everything (trap 19). Never rejects.
 */
export function runRipgrep(
  rgPath: string,
  args: readonly string[],
  options: {
    cwd: string;
    onLine?(line: string): boolean | void;
    /** Instead of onLine: rg's output as it comes, undecoded, in chunks that may split lines and characters. */
    onChunk?(chunk: Buffer): boolean | void;
    signal?: AbortSignal;
    timeoutMs?: number;
  },
): Promise<RipgrepRun> {
  return new Promise<RipgrepRun>((resolve) => {
    // stdin must not be a pipe: rg searches stdin instead of the folder when it is one.
    const child = spawn(rgPath, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let stderr = '';
    let stopped: RipgrepRun['stopped'];
    let settled = false;

    const stop = (why: NonNullable<RipgrepRun['stopped']>): void => {
      if (stopped) return;
      stopped = why;
      child.kill(); // stdout keeps flowing (and is ignored) so that 'close' can fire
    };
    const onAbort = (): void => stop('aborted');
    const timer = options.timeoutMs ? setTimeout(() => stop('timeout'), options.timeoutMs) : undefined;
    if (options.signal?.aborted) stop('aborted');
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (run: RipgrepRun): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(run);
    };

    // Lines are cut from each chunk as it comes; only a line split across chunks is joined.
    const feed = (text: string): void => {
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        const more = options.onLine?.(pending !== '' ? pending + text.slice(start, nl) : text.slice(start, nl));
        pending = '';
        start = nl + 1;
        if (more === false) {
          stop('limit');
          return;
        }
      }
      pending += text.slice(start);
    };

    const onChunk = options.onChunk;
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      if (!onChunk) feed(decoder.write(chunk));
      else if (onChunk(chunk) === false) stop('limit');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEEP_CHARS) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => finish({ exitCode: null, stderr, stopped, spawnError: error }));
    child.on('close', (code) => {
      if (!stopped && !onChunk) {
        const rest = pending + decoder.end();
        pending = ''; // it is in rest: feed would put it in front a second time
        if (rest !== '') feed(rest + '\n');
      }
      finish({ exitCode: stopped ? null : code, stderr: stderr.slice(0, STDERR_KEEP_CHARS), stopped });
    });
  });
}

/** rg prints `./src/a.ts` (`.\src\a.ts` on Windows) for the start path `./…`: make it `src/a.ts`. */
export function cleanRipgrepPath(p: string, platform: NodeJS.Platform = process.platform): string {
  const slashed = platform === 'win32' ? p.replace(/\\/g, '/') : p;
  return slashed.startsWith('./') ? slashed.slice(2) : slashed;
}

/** Where rg is started and what it is given, so that the paths it prints are workspace-relative. */
export async function ripgrepTarget(target: WorkspacePath): Promise<{ cwd: string; start: string }> {
  // `relative` is measured from the folder's real path, so rg must run there.
  const cwd = await fs.realpath(target.folder);
  return { cwd, start: target.relative === '' ? './' : `./${target.relative}` };
}

export function ripgrepMissingMessage(): string {
  return (
    'The ripgrep (rg) binary that VS Code ships was not found under its installation folder, so files cannot be searched or listed recursively. ' +
    'This is a problem of the VS Code installation, not of the request: tell the user, and use a shell command instead if one is available.'
  );
}
