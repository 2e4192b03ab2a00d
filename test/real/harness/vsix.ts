/**
 * The packaged extension for the real tests: they install `dist/native-claude.vsix` into code-server, never
 * load the dev folder.
 *
 * - `ensureVsix()` runs `npm run package` in the repo once per process (jest --runInBand runs every test
 *   file in one process; each file has its own module registry, so "once" is kept in a stamp file keyed by
 *   pid, and a lock dir keeps parallel workers from packaging at the same time).
 *   NATIVE_CLAUDE_VSIX=<path> skips packaging and uses that file.
 * - `packageVsix(dir, out)` packages any extension folder with the repo's vsce (used for throwaway
 *   extensions in the harness's own tests, and `buildPythonKernelVsix()` for the test python kernel).
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const VSIX_PATH = path.join(REPO_ROOT, 'dist', 'native-claude.vsix');
const STAMP_DIR = path.join(REPO_ROOT, '.test-runs');

function exec(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}`.trim() });
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function withLock<T>(lockDir: string, fn: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A lock left by a dead process is stale.
      const owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      let ownerAlive = false;
      if (owner > 0) {
        try {
          process.kill(owner, 0);
          ownerAlive = true;
        } catch {
          ownerAlive = false;
        }
      }
      if (!ownerAlive) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir} (held by pid ${owner})`, { cause: e });
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/**
 * Builds `dist/native-claude.vsix` with `npm run package` (once per process) and returns its path.
 * Throws with the build output when packaging fails.
 */
export async function ensureVsix(opts: { timeoutMs?: number } = {}): Promise<string> {
  const override = process.env.NATIVE_CLAUDE_VSIX;
  if (override) {
    if (!fs.existsSync(override)) throw new Error(`NATIVE_CLAUDE_VSIX=${override} does not exist`);
    return path.resolve(override);
  }
  fs.mkdirSync(STAMP_DIR, { recursive: true });
  const stamp = path.join(STAMP_DIR, `vsix-built-by-${process.pid}.stamp`);
  const fresh = () => fs.existsSync(stamp) && fs.existsSync(VSIX_PATH) && fs.statSync(VSIX_PATH).mtimeMs <= fs.statSync(stamp).mtimeMs + 1;
  if (fresh()) return VSIX_PATH;
  const timeoutMs = opts.timeoutMs ?? 300_000;
  return withLock(
    path.join(STAMP_DIR, 'vsix.lock'),
    async () => {
      if (fresh()) return VSIX_PATH;
      // Stamps of processes that are gone are clutter.
      for (const f of fs.readdirSync(STAMP_DIR)) {
        const m = /^vsix-built-by-(\d+)\.stamp$/.exec(f);
        if (m && Number(m[1]) !== process.pid) fs.rmSync(path.join(STAMP_DIR, f), { force: true });
      }
      const started = Date.now();
      const { code, output } = await exec('npm', ['run', 'package'], REPO_ROOT, timeoutMs);
      if (code !== 0 || !fs.existsSync(VSIX_PATH)) {
        throw new Error(`npm run package failed (exit ${code}) after ${Date.now() - started} ms:\n${output.slice(-6000)}`);
      }
      fs.writeFileSync(stamp, `${new Date().toISOString()} ${Date.now() - started} ms\n`);
      return VSIX_PATH;
    },
    timeoutMs + 60_000,
  );
}

/** Packages the extension folder `extensionDir` with the repo's vsce into `outFile`; returns `outFile`. */
export async function packageVsix(extensionDir: string, outFile: string): Promise<string> {
  const vsce = path.join(REPO_ROOT, 'node_modules', '.bin', 'vsce');
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const { code, output } = await exec(
    vsce,
    ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', path.resolve(outFile)],
    extensionDir,
    120_000,
  );
  if (code !== 0 || !fs.existsSync(outFile)) throw new Error(`vsce package in ${extensionDir} failed (exit ${code}):\n${output}`);
  return path.resolve(outFile);
}

/**
 * Packages the test python kernel (test/vscode/python-kernel) into `outFile`, for windows that are not
 * extension-test windows (a plain workbench loads no development path): install it with `vsixPaths`.
 */
export function buildPythonKernelVsix(outFile: string): Promise<string> {
  return packageVsix(path.join(REPO_ROOT, 'test', 'vscode', 'python-kernel'), outFile);
}

/**
 * Writes and packages a trivial extension `<publisher>.<name>` whose `activate()` returns
 * `{ hello: () => 'hello from the packaged extension' }`. For testing the harness itself.
 */
export async function buildTrivialVsix(opts: { publisher?: string; name?: string; dir?: string } = {}): Promise<{ vsix: string; id: string; dir: string }> {
  const publisher = opts.publisher ?? 'nc-harness';
  const name = opts.name ?? 'trivial-extension';
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nc-trivial-ext-'));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name,
        displayName: 'Trivial test extension',
        description: 'Throwaway extension packaged by test/real/harness/vsix.ts',
        version: '0.0.1',
        publisher,
        license: 'MIT',
        engines: { vscode: '^1.100.0' },
        main: './extension.js',
        activationEvents: ['onStartupFinished'],
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(
    path.join(dir, 'extension.js'),
    "exports.activate = () => ({ hello: () => 'hello from the packaged extension' });\nexports.deactivate = () => {};\n",
  );
  fs.writeFileSync(path.join(dir, 'README.md'), '# Trivial test extension\n\nPackaged by the test harness.\n');
  const vsix = await packageVsix(dir, path.join(dir, `${name}.vsix`));
  return { vsix, id: `${publisher}.${name}`, dir };
}
