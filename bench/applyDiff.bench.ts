// apply_diff matching against a plain scan of the same text (the text split into lines, each line
// hashed once into a Map), on 1 MB files with a 2,000-line SEARCH that does not match exactly.
// Run: npx ts-node --transpile-only bench/applyDiff.bench.ts
//
// The pairs alternate which side goes first, so load from other processes hits both alike; the
// ratio is the median of the per-pair ratios. "held" is the longest the event loop waited for a
// turn while the payload was applied (the extension host runs every extension on that loop).

import { applyDiffPayload } from '../src/tools/searchReplaceBlocks';

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const TARGET_MS = 50;
const TARGET_RATIO = 20;
const MB = 1024 * 1024;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function payload(search: readonly string[], replace: readonly string[]): string {
  return `<<<<<<< SEARCH\n${search.join('\n')}\n=======\n${replace.join('\n')}\n>>>>>>> REPLACE\n`;
}

/** The raw operation: every line looked at once, as a unit. */
function plainScan(text: string): number {
  const seen = new Map<string, number>();
  for (const line of text.split('\n')) seen.set(line, seen.size);
  return seen.size;
}

/** Runs `fn` while a setImmediate ticker records the longest wait for a turn of the event loop. */
async function timedWithHold(fn: () => Promise<unknown>): Promise<[number, number]> {
  let held = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    held = Math.max(held, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const start = performance.now();
  await fn();
  const ms = performance.now() - start;
  running = false;
  held = Math.max(held, performance.now() - last);
  return [ms, held];
}

interface Case {
  name: string;
  content: string;
  diff: string;
}

/** The issue's shape: a million-byte file of one short line, a SEARCH of that line whose last line is elsewhere. */
function adversarial(): Case {
  const lines = ['b', ...Array<string>(MB / 2 - 1).fill('a')];
  return {
    name: '1 MB of 524k "a" lines; 1,999 x "a" + "b"',
    content: `${lines.join('\n')}\n`,
    diff: payload([...Array<string>(1999).fill('a'), 'b'], ['x']),
  };
}

/** Source-like lines; the SEARCH is 2,000 lines of it with one line indented differently. */
function reindented(): Case {
  const lines: string[] = [];
  for (let i = 0, bytes = 0; bytes < MB; i++) {
    const line = i % 7 === 0 ? `function f${i}(a, b) {` : i % 7 === 6 ? '}' : `  const v${i} = compute(a, b, ${i % 13}); // step ${i % 5}`;
    lines.push(line);
    bytes += line.length + 1;
  }
  const start = Math.floor(lines.length / 2);
  const search = lines.slice(start, start + 2000);
  search[1000] = `    ${search[1000].trim()}`;
  return {
    name: `1 MB of ${Math.round(lines.length / 1000)}k source lines; one line re-indented`,
    content: `${lines.join('\n')}\n`,
    diff: payload(search, ['x']),
  };
}

async function main(): Promise<void> {
  console.log(`${RUNS} pairs after one warm-up; times are medians (min-max), ratio = median of the per-pair apply / raw`);
  console.log('raw: the same text split into lines, each line hashed once into a Map\n');
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    `${pad('apply_diff, 2,000-line SEARCH, no exact match', 50)}${pad('apply ms', 20)}${pad('raw ms', 10)}${pad('ratio', 9)}${pad('held ms', 9)}${pad('target', 20)}result`,
  );
  for (const c of [adversarial(), reindented()]) {
    const apply = async () => {
      const result = await applyDiffPayload(c.content, c.diff);
      if (result.applied !== 0 || !result.failedBlocks[0].reason.includes('not found')) throw new Error(`unexpected: ${JSON.stringify(result.failedBlocks)}`);
    };
    const raw = async () => plainScan(c.content);
    await apply(); // warm the code paths
    await raw();
    const applyMs: number[] = [];
    const rawMs: number[] = [];
    const ratios: number[] = [];
    const held: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? [apply, raw] : [raw, apply];
      let a = 0;
      let r = 0;
      for (const fn of order) {
        const [ms, hold] = await timedWithHold(fn);
        if (fn === apply) {
          a = ms;
          held.push(hold);
        } else r = ms;
      }
      applyMs.push(a);
      rawMs.push(r);
      ratios.push(a / r);
    }
    const ms = median(applyMs);
    const ratio = median(ratios);
    const pass = ms <= TARGET_MS && ratio <= TARGET_RATIO;
    const spread = `${ms.toFixed(1)} (${Math.min(...applyMs).toFixed(0)}-${Math.max(...applyMs).toFixed(0)})`;
    console.log(
      `${pad(c.name, 50)}${pad(spread, 20)}${pad(median(rawMs).toFixed(1), 10)}${pad(`${ratio.toFixed(2)}x`, 9)}${pad(median(held).toFixed(1), 9)}${pad(`≤ ${TARGET_MS} ms, ≤ ${TARGET_RATIO}x`, 20)}${pass ? 'PASS' : 'MISS'}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
