// Terminal output rendering (execute_command's capture): @xterm/headless via collectTerminalOutput,
// against the raw operation, a single regex pass stripping escape sequences from the same text,
// measured in the same run. Input: 5 MB of build-log-like output (colours, \r progress lines, a
// two-line redraw) in 4 KB chunks, as execution.read() delivers it.
// Run: npx ts-node --transpile-only bench/terminalOutput.bench.ts

import { collectTerminalOutput } from '../src/terminal/terminalOutput';

const ESC = '\x1b';
const RUNS = 7;
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;

function buildLog(targetBytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    let part: string;
    if (i % 50 === 0) part = `${ESC}[1;32m   Compiling${ESC}[0m crate-${i} v0.1.${i % 9} (/work/project/crates/crate-${i})\r\n`;
    else if (i % 50 === 25) part = [10, 40, 70, 100].map((p) => `\r${ESC}[K[${'#'.repeat(p / 5)}${' '.repeat(20 - p / 5)}] ${p}% building`).join('') + '\r\n';
    else if (i % 50 === 40) part = `a ${i}\r\nb ${i}\r\n${ESC}[2A\r${ESC}[Ka ${i} done\r\n${ESC}[Kb ${i} done\r\n`;
    else part = `src/module${i % 97}/file${i}.ts:${i % 300}:${i % 80} - ${ESC}[33mwarning${ESC}[0m unused variable 'x${i}'\r\n`;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const log = buildLog(5 * 1024 * 1024);
  const raw: number[] = [];
  const rendered: number[] = [];
  let rssPeak = 0;
  for (let run = 0; run < RUNS; run++) {
    let t = performance.now();
    const stripped = log.replace(ANSI, '').replace(/\r\n/g, '\n');
    raw.push(performance.now() - t);
    t = performance.now();
    const result = await collectTerminalOutput(chunks(log, 4096), { maxChars: 30_000 });
    rendered.push(performance.now() - t);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    if (!result.truncated || stripped.length === 0) throw new Error('unexpected result');
  }
  const mb = log.length / 1024 / 1024;
  console.log(`terminal output, ${mb.toFixed(1)} MB in 4 KB chunks, median of ${RUNS}:`);
  console.log(`  regex strip (raw op)        ${median(raw).toFixed(1)} ms`);
  console.log(
    `  @xterm/headless render+cap  ${median(rendered).toFixed(1)} ms  = ${(median(rendered) / median(raw)).toFixed(1)}x raw, ${(mb / (median(rendered) / 1000)).toFixed(1)} MB/s`,
  );
  console.log(`  peak RSS ${(rssPeak / 1024 / 1024).toFixed(0)} MB`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
