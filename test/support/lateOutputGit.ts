import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Writes an executable stand-in for `git` into `dir` and returns its path: it runs the real git with the
 * same arguments and input, but the last NUL-separated record of `check-ignore`'s output reaches stdout
 * only `lateMs` after the process exited (a child it leaves behind holds the pipe). That is the order
 * seen under load, where a reader's 'exit' event came before the last output: a reader that takes the
 * output at 'exit' misses that record, one that waits for 'close' (output ended) has it.
 */
export async function lateOutputGit(dir: string, lateMs = 300): Promise<string> {
  const file = path.join(dir, 'late-output-git');
  await fs.writeFile(
    file,
    `#!${process.execPath}
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const args = process.argv.slice(2);
let out = Buffer.alloc(0), code = 0;
try { out = execFileSync('git', args, { input: fs.readFileSync(0) }); } catch (e) { out = e.stdout || out; code = e.status ?? 1; }
const fields = out.toString('latin1').split('\\0');
if (args[0] !== 'check-ignore' || fields.length < 5) { fs.writeSync(1, out); process.exit(code); }
const cut = fields.length - 5;
fs.writeSync(1, Buffer.from(cut ? fields.slice(0, cut).join('\\0') + '\\0' : '', 'latin1'));
const tail = Buffer.from(fields.slice(cut, cut + 4).join('\\0') + '\\0', 'latin1').toString('hex');
spawn(process.execPath, ['-e', 'setTimeout(() => process.stdout.write(Buffer.from(process.argv[1], "hex")), ${lateMs})', tail], { stdio: ['ignore', 'inherit', 'ignore'], detached: true }).unref();
process.exit(code);
`,
    { mode: 0o755 },
  );
  return file;
}

/**
 * Reads `git check-ignore` the way the git extension's Repository.checkIgnore does: its output taken when
 * the process exits. With `lateOutputGit` that misses the last record; the ignored paths it got.
 */
export function checkIgnoreAtExit(gitPath: string, cwd: string, paths: string[]): Promise<Set<string>> {
  return new Promise((resolve) => {
    const child = spawn(gitPath, ['check-ignore', '-v', '-z', '--stdin'], { cwd });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stdin.end(paths.join('\0'));
    child.on('exit', () => {
      const fields = out.split('\0');
      const ignored = new Set<string>();
      for (let i = 0; i + 3 < fields.length; i += 4) if (fields[i + 2] && !fields[i + 2].startsWith('!')) ignored.add(fields[i + 3]);
      resolve(ignored);
    });
  });
}
