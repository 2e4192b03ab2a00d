// Claude's changes while a build writes thousands of ignored files: the cost per file the watcher reports,
// with and without the filter (src/changes/watchFilter.ts). A real git repository ignoring dist/, 2,000
// files written there in a burst while a session is connected (its last call just before), each reported
// to ChangeTracker.fileChanged as the watcher does. Without the filter each one is read, hashed, stored,
// and git is asked for its staged content (one `git show :path` per file, as the git extension's
// Repository.buffer runs it). With it, the burst is one `git check-ignore -v -z --stdin` (what the git
// extension's Repository.checkIgnore runs) and nothing is read. The raw operation in the same run: a plain
// fs read of the same 2,000 files. Target: with the filter, less work per file than that raw read.
// Run: npx ts-node --transpile-only bench/watchFilter.bench.ts

import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../src/changes/beforeImageStore';
import { ChangeTracker } from '../src/changes/changeTracker';
import { gitCheckIgnore } from '../src/changes/gitCheckIgnore';
import { WatchFilter } from '../src/changes/watchFilter';

const FILES = Number(process.env.BENCH_FILES ?? 2_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(cwd: string, args: string[], input?: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile('git', args, { cwd, maxBuffer: 64 << 20, encoding: 'buffer' }, (error, stdout) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: stdout.toString('utf8') }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

async function main(): Promise<void> {
  const repo = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-bench-watch-')));
  try {
    await run(repo, ['init', '-q']);
    await fs.writeFile(path.join(repo, '.gitignore'), 'dist/\n');
    await fs.mkdir(path.join(repo, 'dist'));
    const files = Array.from({ length: FILES }, (_, i) => path.join(repo, 'dist', `chunk${i}.js`));
    let processes = { without: 0, with: 0 };
    const results = { raw: [] as number[], without: [] as number[], with: [] as number[] };
    for (let r = 0; r < RUNS; r++) {
      // A new build each run: new content, so nothing is stored already.
      for (const [i, f] of files.entries()) await fs.writeFile(f, `// build ${r}\nexport const chunk${i} = ${'x'.repeat(2_000)};\n`);
      let t = performance.now();
      await Promise.all(files.map((f) => fs.readFile(f)));
      results.raw.push(performance.now() - t);

      for (const mode of ['without', 'with'] as const) {
        const store = path.join(repo, '..', `${path.basename(repo)}-store-${mode}-${r}`);
        const filter = new WatchFilter({
          excludes: [],
          folders: [repo],
          checkIgnored: (paths) => {
            processes[mode]++;
            return gitCheckIgnore('git', repo, paths);
          },
        });
        const tracker = new ChangeTracker({
          store: new BeforeImageStore(store),
          sessionOf: () => ({ id: 'claude-pid-1', label: 'claude' }),
          save: () => undefined,
          fallback: async (filePath) => {
            processes[mode]++;
            const shown = await run(repo, ['show', `:${path.relative(repo, filePath)}`]);
            return shown.code === 0 ? { bytes: Buffer.from(shown.stdout), source: 'git' } : undefined;
          },
          skipsUnannounced: mode === 'with' ? (p) => filter.skips(p) : undefined,
        });
        tracker.noteCall(1);
        t = performance.now();
        await Promise.all(files.map((f) => tracker.fileChanged(f)));
        results[mode].push(performance.now() - t);
        const listed = tracker.list()[0]?.files.length ?? 0;
        if (listed !== 0) throw new Error(`${mode}: ${listed} ignored files listed`);
        await fs.rm(store, { recursive: true, force: true });
      }
    }
    processes = { without: processes.without / RUNS, with: processes.with / RUNS };
    const per = (ms: number) => `${((ms * 1000) / FILES).toFixed(0)} µs/file`;
    const raw = median(results.raw);
    console.log(`${FILES} gitignored files written in a burst while a session is connected, ${RUNS} runs (medians)`);
    console.log(`plain fs read of the same files (raw): ${raw.toFixed(1)} ms, ${per(raw)}`);
    console.log(
      `without the filter (read, hash, store, git lookup each): ${median(results.without).toFixed(1)} ms, ${per(median(results.without))} (${(median(results.without) / raw).toFixed(1)}x raw), ${processes.without} git processes`,
    );
    console.log(
      `with the filter (one batched check-ignore, nothing read): ${median(results.with).toFixed(1)} ms, ${per(median(results.with))} (${(median(results.with) / raw).toFixed(2)}x raw), ${processes.with} git process(es)`,
    );
    console.log(`filter saves ${(median(results.without) / median(results.with)).toFixed(0)}x`);
    if (median(results.with) > raw || processes.with > 1) process.exitCode = 1;
  } finally {
    await fs.rm(repo, { recursive: true, force: true });
  }
}

void main();
