// Activation, as the extension's own time: (1) loading dist/extension.js, in plain Node with a stand-in
// for the `vscode` module (nothing of VS Code runs at load; the stand-in only answers the import),
// against loading `ws` alone in the same run (the least any WebSocket server loads); (2) activate()
// until the lock file is written, read from the extension's own log line in real VS Code (code-server,
// one new window per sample, the packaged .vsix). Other extensions activate at the same moment, so the
// least contended window stands for the extension's own time and the median is reported beside it.
//
// Run: npx ts-node --transpile-only bench/activation.bench.ts  (or npm run bench)
//   BENCH_WINDOWS=n (default 5). Installs code-server and Chromium first when they are missing
//   (test/setup/install-real-clients.sh; about 6 minutes on a fresh machine).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { codeServerAvailable, findFiles, openWorkbench, REPO_ROOT, startCodeServer } from '../test/real/harness/codeServer';
import { ensureVsix } from '../test/real/harness/vsix';

const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 5);
const LOADS = 9;
/** The target for the extension's own time from activation to the lock file. */
const TARGET_MS = 50;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Milliseconds to require() a module in a fresh Node process, `vscode` answered by an empty stand-in. */
function loadMs(modulePath: string): number {
  const script = `
    const Module = require('module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest); };
    require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: new Proxy({}, { get: () => class {} }) };
    const t = performance.now();
    require(${JSON.stringify(modulePath)});
    process.stdout.write(String(performance.now() - t));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`loading ${modulePath} failed: ${run.stderr}`);
  return Number(run.stdout);
}

async function activationSamples(vsix: string): Promise<Array<{ total: number; setup: number }>> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-activation-bench-'));
  const workspace = path.join(temp, 'workspace');
  const configDir = path.join(temp, 'config');
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'a.ts'), 'export const a = 1;\n');
  const srv = await startCodeServer({ workspace, vsixPaths: [vsix], env: { CLAUDE_CONFIG_DIR: configDir }, smokeTestDriver: false });
  const lockDir = path.join(configDir, 'ide');
  const locks = () => (fs.existsSync(lockDir) ? fs.readdirSync(lockDir).filter((f) => f.endsWith('.lock')) : []);
  const line = /Listening, lock file written (\d+) ms after activation began \((\d+) ms of it setting up\)/;
  const logLines = () =>
    findFiles(path.join(srv.userDataDir, 'logs'), /Native Claude\.log$/).flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => line.test(l)),
    );
  const samples: Array<{ total: number; setup: number }> = [];
  try {
    for (let i = 0; i < WINDOWS; i++) {
      const seen = logLines().length;
      const wb = await openWorkbench(srv, workspace);
      try {
        const deadline = Date.now() + 60_000;
        while (logLines().length === seen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const [, total, setup] = line.exec(logLines()[seen] ?? '') ?? [];
        if (total === undefined) throw new Error(`window ${i + 1}: no "lock file written" line in the extension's log within 60 s`);
        samples.push({ total: Number(total), setup: Number(setup) });
      } finally {
        await wb.close();
      }
      // One window at a time: wait until the closed one's extension host has gone (its lock file with it).
      const deadline = Date.now() + 30_000;
      while (locks().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await srv.stop();
    fs.rmSync(temp, { recursive: true, force: true });
  }
  return samples;
}

async function main(): Promise<void> {
  const started = Date.now();
  if (!codeServerAvailable()) {
    console.log('code-server or Chromium is missing: running test/setup/install-real-clients.sh first');
    const install = spawnSync('bash', [path.join(REPO_ROOT, 'test/setup/install-real-clients.sh')], { stdio: 'inherit' });
    if (install.status !== 0) throw new Error('test/setup/install-real-clients.sh failed');
  }
  const vsix = await ensureVsix();
  const extensionJs = path.join(REPO_ROOT, 'dist', 'extension.js');
  const wsEntry = require.resolve('ws');

  const ours: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    raw.push(loadMs(wsEntry));
    ours.push(loadMs(extensionJs));
  }
  const samples = await activationSamples(vsix);
  const load = median(ours);
  const totals = samples.map((s) => s.total);
  const medianTotal = median(totals);
  // Other extensions activate at the same moment (onStartupFinished) and share the extension host's
  // thread and its file-system thread pool: waiting for them only ever adds time. The least contended
  // window is the best estimate of the extension's own time; the median is what a user typically waits.
  const fastest = samples.reduce((a, b) => (b.total < a.total ? b : a));
  const own = load + fastest.total;

  console.log(
    `dist/extension.js ${(fs.statSync(extensionJs).size / 1024).toFixed(0)} KB; ${LOADS} fresh-process loads; ${samples.length} code-server windows (one at a time)`,
  );
  console.log(
    `  load dist/extension.js (plain Node)          ${load.toFixed(1)} ms   = ${(load / median(raw)).toFixed(2)}x loading ws alone (${median(raw).toFixed(1)} ms, the raw operation)`,
  );
  console.log(
    `  activate() → lock file written (code-server) median ${medianTotal} ms, least contended ${fastest.total} ms (${fastest.setup} ms of it setting up); per window: ${totals.join(', ')} ms`,
  );
  console.log(
    `  the extension's own time to the lock file    ${own.toFixed(0)} ms (load + least contended window)   target ≤ ${TARGET_MS} ms: ${own <= TARGET_MS ? 'PASS' : 'MISS'}`,
  );
  console.log(`  with the median window instead               ${(load + medianTotal).toFixed(0)} ms (reported: includes waiting for other extensions)`);
  console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
