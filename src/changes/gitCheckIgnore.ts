import { spawn } from 'node:child_process';

/** The most output read from one `git check-ignore` (a record is ~100 bytes a path: 50,000 paths fit). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * git's answer for each of `paths` (absolute, inside the repository `cwd` is in): true when git ignores
 * it, false when not (a tracked file is never ignored, git's rule). One `git check-ignore -v -z -n
 * --stdin` for all of them, its answer read only once the process has exited AND its output ended
 * ('close'), and taken only for the paths git printed a record for (`-n` prints one for every path, so a
 * path without one was not answered: absent from the map, never "not ignored"). The git extension's own
 * `Repository.checkIgnore` resolves on the process's 'exit' event, which can come before its last output
 * is read: under load it left out the last path(s) of a batch, which then counted as not ignored
 * (docs/changes.md, "What the watcher leaves alone").
 *
 * Outside a repository (git's exit 128 "not a git repository") nothing is ignored: every path answered
 * false. Any other failure, or no answer within `timeoutMs` (the process is killed), rejects.
 */
export function gitCheckIgnore(gitPath: string, cwd: string, paths: readonly string[], timeoutMs = 5_000): Promise<Map<string, boolean>> {
  return new Promise((resolve, reject) => {
    if (paths.length === 0) return resolve(new Map());
    const child = spawn(gitPath, ['check-ignore', '-v', '-z', '-n', '--stdin'], { cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failed: Error | undefined;
    const timer = setTimeout(() => {
      failed = new Error(`git check-ignore gave no answer within ${timeoutMs} ms`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) {
        failed = new Error(`git check-ignore printed more than ${MAX_OUTPUT_BYTES} bytes`);
        child.kill('SIGKILL');
      } else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 4096) err += chunk.toString('utf8');
    });
    child.on('error', (error) => (failed ??= error));
    // An early exit of git closes its stdin: the write's EPIPE is the exit's business, not an uncaught error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(paths.map((p) => `${p}\0`).join(''), 'utf8');
    // 'close': the process exited and its output streams ended (every record read).
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failed) return reject(failed);
      if (code === 128 && /not a git repository/i.test(err)) return resolve(new Map(paths.map((p) => [p, false])));
      if (code !== 0 && code !== 1) return reject(new Error(`git check-ignore exited with ${code}: ${err.trim().slice(0, 300)}`));
      resolve(parseRecords(Buffer.concat(out).toString('utf8'), new Set(paths)));
    });
  });
}

/** `<source>\0<line>\0<pattern>\0<path>\0` per path (empty fields: no pattern matched); a negated pattern (`!x`) is not ignored. */
function parseRecords(raw: string, asked: ReadonlySet<string>): Map<string, boolean> {
  const answers = new Map<string, boolean>();
  const fields = raw.split('\0');
  // Only whole records (4 fields, each ended by \0): a cut-off last one is no answer.
  for (let i = 0; i + 4 < fields.length; i += 4) {
    const pattern = fields[i + 2];
    const filePath = fields[i + 3];
    if (asked.has(filePath)) answers.set(filePath, pattern !== '' && !pattern.startsWith('!'));
  }
  return answers;
}
