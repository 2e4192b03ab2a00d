// Attacker's test for the import scan that finds the files using a changed file
// (src/diagnostics/dependentFiles.ts importersAmong): a workspace's "sources" may be pipes, devices,
// huge files or links to them. None may block the scan, be read whole, or be taken for an importer.
import { execFileSync } from 'child_process';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { importersAmong } from '../../src/diagnostics/dependentFiles';

test('pipes, devices, links to them and huge files among the sources: skipped at once; the real importer is found', async () => {
  const ws = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-imports-')));
  try {
    const changed = path.join(ws, 'math.ts');
    await fs.writeFile(changed, 'export const x = 1;\n');
    await fs.writeFile(path.join(ws, 'main.ts'), "import { x } from './math';\n");
    execFileSync('mkfifo', [path.join(ws, 'pipe.ts')]); // a read would block forever
    await fs.symlink('/dev/zero', path.join(ws, 'zero.ts')); // endless
    await fs.symlink(path.join(ws, 'pipe.ts'), path.join(ws, 'to-pipe.ts'));
    // 3 MB that imports the changed file at its very end: over the size bound, never read.
    await fs.writeFile(path.join(ws, 'huge.ts'), 'x'.repeat(3 * 1024 * 1024) + "\nimport { x } from './math';\n");
    // An import far into a 900 KB file: only the first 200 KB are read (imports come first).
    await fs.writeFile(path.join(ws, 'late.ts'), '// filler\n'.repeat(90_000) + "import { x } from './math';\n");
    const sources = ['pipe.ts', 'zero.ts', 'to-pipe.ts', 'huge.ts', 'late.ts', 'missing.ts', 'main.ts', 'math.ts'].map((f) => path.join(ws, f));
    const started = Date.now();
    const found = await importersAmong(sources, [changed]);
    expect(found).toEqual([path.join(ws, 'main.ts')]);
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    await fs.rm(ws, { recursive: true, force: true });
  }
});
