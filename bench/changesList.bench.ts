// Claude's changes at the scale: 1,000 changed files with 50 MB of before-images. Measures what
// the extension does before VS Code draws the list after a window reload: read and parse the saved list,
// build the tracker on it, list the sessions and map each file to its view entry, and sweep the blob
// folder (50 MB in 1,000 blobs, none deleted). The raw operation in the same run: reading and parsing the
// same JSON file. Target: the whole start-up work <= 200 ms at the median (the view opens within that).
// VS Code's own drawing of the list: bench/changesView.real.ts.
// Run: npx ts-node --transpile-only bench/changesList.bench.ts

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../src/changes/beforeImageStore';
import type { LedgerState } from '../src/changes/changeLedger';
import { ChangeTracker } from '../src/changes/changeTracker';

const FILES = 1_000;
const BLOB_BYTES = 50_000; // 1,000 × 50 kB = 50 MB
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const TARGET_MS = 200;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-bench-list-'));
  try {
    const store = new BeforeImageStore(path.join(root, 'blobs'));
    const files: LedgerState['sessions'][number]['files'] = [];
    for (let i = 0; i < FILES; i++) {
      const bytes = Buffer.alloc(BLOB_BYTES, `file ${i} `);
      const blob = await store.put(bytes);
      files.push({
        path: `/work/project/src/module${i}/file${i}.ts`,
        before: { blob, size: BLOB_BYTES, mode: 0o644 },
        claudeLeft: { blob, size: BLOB_BYTES },
        attribution: i % 10 ? 'certain' : 'uncertain',
        source: i % 10 ? 'baseline' : 'git',
        changedAt: i,
      });
    }
    const state: LedgerState = { version: 1, sessions: [{ id: 'claude-pid-1', label: 'claude in "claude"', startedAt: 0, files }], dropped: undefined };
    const stateFile = path.join(root, 'ledger.json');
    await fs.writeFile(stateFile, JSON.stringify(state));
    const raw: number[] = [];
    const startup: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      JSON.parse(await fs.readFile(stateFile, 'utf8'));
      raw.push(performance.now() - t);
      t = performance.now();
      const loaded = JSON.parse(await fs.readFile(stateFile, 'utf8')) as LedgerState;
      const tracker = new ChangeTracker({ store, state: loaded, sessionOf: () => undefined, save: () => undefined });
      const entries = tracker
        .list()
        .flatMap((s) => s.files.map((f) => ({ uri: f.path, faded: f.attribution !== 'certain', tooltip: `${s.label}: ${f.source}` })));
      if (entries.length !== FILES) throw new Error(`listed ${entries.length}`);
      await tracker.sweep();
      startup.push(performance.now() - t);
    }
    const blobs = (await fs.readdir(path.join(root, 'blobs'))).length;
    console.log(`${FILES} files, ${(FILES * BLOB_BYTES) / 1e6} MB of before-images (${blobs} blobs kept by the sweep), ${RUNS} runs`);
    console.log(`read + parse the saved list (raw): median ${median(raw).toFixed(2)} ms`);
    console.log(
      `start-up work (parse, tracker, view entries, sweep): median ${median(startup).toFixed(2)} ms (${(median(startup) / median(raw)).toFixed(1)}x the raw parse; target <= ${TARGET_MS} ms)`,
    );
    if (median(startup) > TARGET_MS || blobs !== FILES) process.exitCode = 1;
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

void main();
