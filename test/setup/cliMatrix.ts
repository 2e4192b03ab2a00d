// `npm run test:cli-matrix [--vscode] [VERSION…]`: the real-CLI tests against several claude CLI
// versions. Each version is installed into the real-client cache (install-claude-cli.sh), then the
// `real` jest project runs test/real/cli-*.test.ts (and with --vscode also vscode-ide.test.ts and vscode-execute-code.test.ts) with
// NATIVE_CLAUDE_CLI_VERSION set, under the machine-wide real-test lock. Prints a test × version
// table and the totals; exits non-zero when any test failed or a version could not be installed.
//
// Default versions: the pinned CLI, the latest 2.1.x, the last 2.0.x and the last 1.0.x, read from
// the registry (`npm view @anthropic-ai/claude-code versions`); offline, the measured list in
// src/util/cliVersion.ts.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SUPPORTED_CLI_RANGE, compareVersions, parseVersion } from '../../src/util/cliVersion';
import { PINNED_CLAUDE_VERSION } from '../real/harness/claudeCli';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI_TESTS = ['test/real/cli-harness.test.ts', 'test/real/cli-ide.test.ts', 'test/real/cli-tools-route.test.ts', 'test/real/cli-execute-code.test.ts'];
const VSCODE_TESTS = ['test/real/vscode-ide.test.ts', 'test/real/vscode-execute-code.test.ts'];
const LOCK = '/tmp/native-claude-real.lock';

/** `npm run` exports npm_* / npm_config_* (prefix, global, the caller's package.json…); nested npm must not see them. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

/** pinned, latest 2.1.x, last 2.0.x, last 1.0.x. */
export function defaultVersions(published: readonly string[]): string[] {
  const valid = published.filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(compareVersions);
  const lastOf = (prefix: string) => valid.filter((v) => v.startsWith(prefix)).pop();
  const picked = [PINNED_CLAUDE_VERSION, lastOf('2.1.'), lastOf('2.0.'), lastOf('1.0.')].filter((v): v is string => v !== undefined);
  return [...new Set(picked)];
}

function publishedVersions(): string[] | undefined {
  const out = spawnSync('npm', ['view', '@anthropic-ai/claude-code', 'versions', '--json'], { env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(out.stdout);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : undefined;
  } catch {
    return undefined;
  }
}

interface JestAssertion {
  title: string;
  ancestorTitles: string[];
  status: string;
  failureMessages: string[];
}
interface JestReport {
  testResults: Array<{ name: string; assertionResults: JestAssertion[]; message: string }>;
}

type Cell = 'pass' | 'fail' | 'skip';
interface Outcome {
  version: string;
  installError?: string;
  results: Map<string, Cell>;
  failures: Map<string, string>;
  logFile?: string;
}

function runVersion(version: string, files: string[], outDir: string): Outcome {
  const outcome: Outcome = { version, results: new Map(), failures: new Map() };
  const install = spawnSync('bash', [path.join(ROOT, 'test/setup/install-claude-cli.sh'), version], {
    env: cleanEnv(),
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (install.status !== 0) {
    outcome.installError = (install.stderr || `exit ${install.status}`).trim().split('\n').slice(-3).join(' ');
    process.stderr.write(install.stderr ?? '');
    return outcome;
  }
  const report = path.join(outDir, `jest-${version}.json`);
  outcome.logFile = path.join(outDir, `jest-${version}.log`);
  process.stderr.write(`[cli-matrix] claude ${version}: ${files.map((f) => path.basename(f)).join(', ')} (log: ${outcome.logFile})\n`);
  const jest = path.join(ROOT, 'node_modules', '.bin', 'jest');
  const run = spawnSync('flock', [LOCK, jest, '--selectProjects', 'real', '--runInBand', '--json', `--outputFile=${report}`, '--', ...files], {
    cwd: ROOT,
    env: cleanEnv({ NATIVE_CLAUDE_CLI_VERSION: version }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  fs.writeFileSync(outcome.logFile, `${run.stdout ?? ''}${run.stderr ?? ''}`);
  let parsed: JestReport | undefined;
  try {
    parsed = JSON.parse(fs.readFileSync(report, 'utf8')) as JestReport;
  } catch {
    outcome.installError = `jest produced no report (exit ${run.status}); see ${outcome.logFile}`;
    return outcome;
  }
  for (const file of parsed.testResults) {
    const base = path.basename(file.name).replace(/\.test\.ts$/, '');
    if (file.assertionResults.length === 0) {
      // The file did not even load (syntax/type error, beforeAll crash).
      outcome.results.set(`${base} (file)`, 'fail');
      outcome.failures.set(`${base} (file)`, firstLine(file.message));
    }
    for (const a of file.assertionResults) {
      const key = `${base} › ${a.title}`;
      const cell: Cell = a.status === 'passed' ? 'pass' : a.status === 'failed' ? 'fail' : 'skip';
      outcome.results.set(key, cell);
      if (cell === 'fail') outcome.failures.set(key, firstLine(a.failureMessages.join('\n')));
    }
  }
  return outcome;
}

function firstLine(text: string): string {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  return (plain.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 200);
}

export function renderTable(outcomes: readonly Outcome[]): string {
  const tests: string[] = [];
  for (const o of outcomes) for (const k of o.results.keys()) if (!tests.includes(k)) tests.push(k);
  const mark = (c: Cell | undefined) => (c === 'pass' ? 'pass' : c === 'fail' ? 'FAIL' : c === 'skip' ? 'skip' : '—');
  const header = ['test', ...outcomes.map((o) => o.version)];
  const rows = tests.map((t) => [t.length > 100 ? `${t.slice(0, 97)}…` : t, ...outcomes.map((o) => mark(o.results.get(t)))]);
  const totals = outcomes.map((o) => {
    if (o.installError) return 'not run';
    const cells = [...o.results.values()];
    return `${cells.filter((c) => c === 'pass').length}/${cells.length} pass`;
  });
  rows.push(['TOTAL', ...totals]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function main(): number {
  const args = process.argv.slice(2);
  const withVsCode = args.includes('--vscode');
  const requested = args.filter((a) => a !== '--vscode');
  for (const v of requested) {
    if (!parseVersion(v) || !/^\d+\.\d+\.\d+$/.test(v)) {
      process.stderr.write(`cli-matrix: '${v}' is not a version like 2.1.328. Usage: npm run test:cli-matrix [--vscode] [VERSION…]\n`);
      return 2;
    }
  }
  let versions = requested;
  if (versions.length === 0) {
    const published = publishedVersions();
    if (published === undefined) process.stderr.write('[cli-matrix] could not read the published versions (offline?); using the measured list\n');
    versions = published ? defaultVersions(published) : [...SUPPORTED_CLI_RANGE.measured];
  }
  const files = withVsCode ? [...CLI_TESTS, ...VSCODE_TESTS] : CLI_TESTS;
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'native-claude-cli-matrix-'));
  process.stderr.write(`[cli-matrix] versions: ${versions.join(', ')}\n`);
  const started = Date.now();
  const outcomes = versions.map((v) => runVersion(v, files, outDir));

  process.stdout.write(`\n${renderTable(outcomes)}\n`);
  let failed = false;
  for (const o of outcomes) {
    if (o.installError) {
      failed = true;
      process.stdout.write(`\nclaude ${o.version}: NOT RUN — ${o.installError}\n`);
    }
    if (o.failures.size > 0) {
      failed = true;
      process.stdout.write(`\nclaude ${o.version}: ${o.failures.size} failed (full log: ${o.logFile})\n`);
      for (const [test, why] of o.failures) process.stdout.write(`  - ${test}: ${why}\n`);
    }
  }
  const tests = outcomes.reduce((n, o) => n + o.results.size, 0);
  const passed = outcomes.reduce((n, o) => n + [...o.results.values()].filter((c) => c === 'pass').length, 0);
  process.stdout.write(
    `\nTotal: ${passed}/${tests} passed across ${versions.length} CLI version(s) in ${Math.round((Date.now() - started) / 1000)} s. Reports: ${outDir}\n`,
  );
  return failed ? 1 : 0;
}

if (require.main === module) process.exitCode = main();
