// Runs every benchmark in turn: npm run bench
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

// *.real.ts drive real VS Code (code-server; skipped without it), under the lock the real tests take.
const hasFlock = spawnSync('sh', ['-c', 'command -v flock'], { stdio: 'ignore' }).status === 0;
for (const bench of [
  'transport.bench.ts',
  'activation.bench.ts',
  'diagnostics.bench.ts',
  'tools.bench.ts',
  'applyDiff.bench.ts',
  'terminalOutput.bench.ts',
  'changeCapture.bench.ts',
  'changesList.bench.ts',
  'watchFilter.bench.ts',
  'merge.bench.ts',
  'dependents.bench.ts',
  'changesView.real.ts',
  'dependents.real.ts',
  'language.real.ts',
]) {
  console.log(`\n### ${bench}`);
  const command = [process.execPath, '-r', 'ts-node/register/transpile-only', path.join(__dirname, bench)];
  if (bench.endsWith('.real.ts') && hasFlock) command.unshift('flock', '/tmp/native-claude-real.lock');
  const result = spawnSync(command[0], command.slice(1), { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
