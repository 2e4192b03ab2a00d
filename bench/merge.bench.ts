// The merge of Claude's proposal with a user's unsaved edits (src/review/threeWayMerge.ts) on a 1 MB
// file of 35,000 code-like lines (a third `}`, a third blank: the duplicate lines a line diff finds
// hardest) with 10,000 disjoint edits, 5,000 each side; two 1 MB texts too different to diff; a
// proposal that reverses the lines (the diff's worst case).
// "held" is the longest the event loop waited (the extension host runs every extension on that loop).
// Run: npx ts-node --transpile-only bench/merge.bench.ts
import { mergeUnsavedEdits } from '../src/review/threeWayMerge';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_MS = 5000;

function codeLike(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i % 3 === 0 ? '  }\n' : i % 3 === 1 ? '\n' : `  statement(${i}); // ${'x'.repeat(60)}\n`));
}

function disjoint(): [string, string, string] {
  const lines = codeLike(35_000);
  const ours = [...lines];
  const theirs = [...lines];
  for (let k = 0; k < 5_000; k++) {
    ours[k * 7] = `mine ${k}\n`;
    theirs[k * 7 + 3] = `claude ${k}\n`;
  }
  return [lines.join(''), ours.join(''), theirs.join('')];
}

function rewritten(): [string, string, string] {
  const lines = codeLike(35_000);
  const ours = [...lines];
  ours[10] = 'typed\n';
  return [lines.join(''), ours.join(''), lines.map((l) => l.replace('statement', 'call').replace('}', ']')).join('')];
}

function reversed(): [string, string, string] {
  const lines = codeLike(35_000);
  const ours = [...lines];
  ours[10] = 'typed\n';
  return [lines.join(''), ours.join(''), [...lines].reverse().join('')];
}

let failed = false;
for (const [name, make] of [
  ['1 MB, 10,000 disjoint edits', disjoint],
  ['1 MB rewritten by a Write over a dirty buffer', rewritten],
  ['1 MB with its lines reversed by a Write', reversed],
] as const) {
  const [base, ours, theirs] = make();
  const times: number[] = [];
  let result: ReturnType<typeof mergeUnsavedEdits> | undefined;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    result = mergeUnsavedEdits(base, ours, theirs);
    times.push(performance.now() - start);
  }
  const worst = Math.max(...times);
  const ok = worst < TARGET_MS;
  failed ||= !ok;
  console.log(
    `${name} (${(base.length / 1e6).toFixed(2)} MB): worst of ${RUNS} ${worst.toFixed(0)} ms (target < ${TARGET_MS} ms, the loop is held as long), conflicts ${result!.conflicts}${result!.tooLarge ? ' (too different: one conflict)' : ''} ${ok ? 'ok' : 'SLOW'}`,
  );
}
if (failed) process.exit(1);
