// Summarises a --cpu-prof profile of a webpack bundle: self time per module (from the bundle's
// pathinfo comments) and the heaviest functions. Used with bench/transport.bench.ts:
//   BENCH_CPU_PROF=/tmp/prof npx ts-node --transpile-only bench/transport.bench.ts
//   npx ts-node --transpile-only bench/cpuProfileSummary.ts /tmp/prof/real.cpuprofile [top]
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

/** Module start lines of a bundle, from webpack's `!*** ./path ***!` pathinfo comments. */
const moduleStarts = new Map<string, Array<[number, string]>>();
function moduleOf(url: string, line: number): string {
  const bundle = url.replace(/^file:\/\//, '');
  if (!bundle.endsWith('.js') || !existsSync(bundle)) return url ? path.basename(url) : '(native)';
  let starts = moduleStarts.get(bundle);
  if (!starts) {
    starts = [];
    readFileSync(bundle, 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const match = /!\*{3} (\.\/\S+) \*{3}!/.exec(text);
        if (match) starts!.push([i, match[1]]);
      });
    moduleStarts.set(bundle, starts);
  }
  let name = path.basename(bundle);
  for (const [start, module] of starts) {
    if (start > line) break;
    name = module;
  }
  return name.replace(/^\.\/node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*/, '$1 (node_modules)');
}

const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
const byModule = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const t = selfTime.get(node.id) ?? 0;
  if (t === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const module = url ? moduleOf(url, lineNumber) : `(${functionName || 'native'})`;
  byModule.set(module, (byModule.get(module) ?? 0) + t);
  const fn = `${functionName || '(anonymous)'}  [${module}]`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + t);
}
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (self time, total ${(total / 1000).toFixed(0)} ms)`);
  for (const [name, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(1).padStart(8)} ms  ${name}`);
  }
};
print('by module', byModule);
print('by function', byFunction);
