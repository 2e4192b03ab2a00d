// Runs every benchmark in turn: npm run bench
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

for (const bench of ['transport.bench.ts', 'activation.bench.ts', 'diagnostics.bench.ts', 'tools.bench.ts', 'applyDiff.bench.ts', 'terminalOutput.bench.ts', 'changeCapture.bench.ts', 'changesList.bench.ts', 'watchFilter.bench.ts']) {
  console.log(`\n### ${bench}`);
  const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(__dirname, bench)], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
