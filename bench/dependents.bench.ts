// The extra work per change of finding the files that use it by their imports (src/diagnostics/
// dependentFiles.ts importersAmong, the half of the lookup that runs without a language server), on a
// project of 300 TypeScript files of ~2 KB, each importing three others: every file read (its first
// 200 KB) and its relative imports resolved, for one changed file. The other half (the language server's
// references) and the check of the files found run in VS Code: bench/dependents.real.ts measures them.
// Target: well under the 5 s the lookup may take.
// Run: npx ts-node --transpile-only bench/dependents.bench.ts

import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { importersAmong } from '../src/diagnostics/dependentFiles';

const FILES = 300;
const RUNS = 21;
const TARGET_MS = 250;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-bench-dependents-')));
  try {
    const file = (i: number) => path.join(root, 'src', `m${i % 10}`, `file${i}.ts`);
    for (let i = 0; i < FILES; i++) {
      await fs.mkdir(path.dirname(file(i)), { recursive: true });
      const imports = [1, 7, 31]
        .map((d) => (i + d) % FILES)
        .map(
          (j) =>
            `import { v${j} } from '${path
              .relative(path.dirname(file(i)), file(j))
              .replace(/\.ts$/, '')
              .replace(/^(?!\.)/, './')}';`,
        );
      const body = Array.from({ length: 40 }, (_, k) => `export function f${i}_${k}(n: number): number { return n + ${k}; }`).join('\n');
      await fs.writeFile(file(i), `${imports.join('\n')}\nexport const v${i} = ${i};\n${body}\n`);
    }
    const sources = Array.from({ length: FILES }, (_, i) => file(i));
    const changed = file(100);
    const times: number[] = [];
    let found: string[] = [];
    for (let r = 0; r < RUNS; r++) {
      const started = process.hrtime.bigint();
      found = await importersAmong(sources, [changed]);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const ms = median(times);
    console.log(
      `${FILES} TypeScript files, one changed: ${found.length} files import it (expected 3), found in ${ms.toFixed(1)} ms (median of ${RUNS}; target < ${TARGET_MS} ms)`,
    );
    if (found.length !== 3 || ms >= TARGET_MS) process.exit(1);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

void main();
