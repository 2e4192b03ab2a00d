// What the benches that run an inner suite in real VS Code share (bench/dependents.real.ts,
// bench/language.real.ts): the prerequisites (code-server, the packaged extension, the compiled inner
// suites), a temp root, and a fresh window: a new code-server (new user data, new extension host, its
// language servers cold) on the bench's workspace, running inner suite files that read their spec from
// an environment variable and write their figures to a results file.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isolatedEnv } from '../test/real/harness/claudeCli';
import { codeServerAvailable, compileInnerSuites } from '../test/real/harness/codeServer';
import { runInnerSuite } from '../test/real/harness/innerSuite';
import { ensureVsix } from '../test/real/harness/vsix';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * How exact a median of these samples is: the 5th and 95th percentiles of the medians of 2,000 resamples
 * (with replacement, a fixed seed: the same samples give the same interval). Two runs whose figures lie
 * inside each other's interval differ by sampling alone.
 */
export function medianInterval(xs: number[]): [number, number] {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const medians = Array.from({ length: 2000 }, () => median(xs.map(() => xs[Math.floor(random() * xs.length)])));
  medians.sort((a, b) => a - b);
  return [medians[100], medians[1899]];
}

/** The packaged extension (inner suites compiled too), or undefined after saying why the bench is skipped. */
export async function realBenchVsix(): Promise<string | undefined> {
  if (!codeServerAvailable()) {
    console.log('code-server/Chromium not installed (test/setup/install-real-clients.sh): skipped');
    return undefined;
  }
  const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
  return vsix;
}

/** A temp root holding `workspace/`, removed after `body`. */
export async function withBenchRoot<T>(prefix: string, body: (root: string, workspace: string) => Promise<T>): Promise<T> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  try {
    return await body(root, workspace);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export interface BenchWindowRun<R> {
  /** The results file's content, undefined when the suite wrote none. */
  results: R | undefined;
  exitCode: number;
  /** The inner run's last log lines (for a failure's message). */
  logTail: string[];
  /** The extension's own log (Native Claude.log) of the window. */
  extensionLog: string;
}

/**
 * One fresh window: a new code-server on `workspace` (its own HOME and CLAUDE_CONFIG_DIR under `root`),
 * the inner suite `files` run with `spec` (plus `results`, where they write) in the file named by
 * `$<specEnv>`; stopped after. `env`: more of the window's environment.
 */
export async function runBenchWindow<R>(options: {
  vsix: string;
  root: string;
  workspace: string;
  name: string;
  files: string[];
  specEnv: string;
  spec: Record<string, unknown>;
  env?: Record<string, string>;
  timeoutMs: number;
}): Promise<BenchWindowRun<R>> {
  const dir = fs.mkdtempSync(path.join(options.root, `${options.name}-`));
  const home = path.join(dir, 'home');
  const configDir = path.join(dir, 'config');
  for (const d of [home, configDir]) fs.mkdirSync(d);
  const specPath = path.join(dir, 'spec.json');
  const resultsPath = path.join(dir, 'results.json');
  fs.writeFileSync(specPath, JSON.stringify({ ...options.spec, results: resultsPath }));
  const run = await runInnerSuite<R>({
    server: {
      workspace: options.workspace,
      vsixPaths: [options.vsix],
      env: isolatedEnv({ HOME: home, CLAUDE_CONFIG_DIR: configDir, [options.specEnv]: specPath, ...options.env }),
      userSettings: { 'git.enabled': false, 'files.autoSave': 'off' },
    },
    run: { files: options.files, timeout: options.timeoutMs, timeoutMs: options.timeoutMs + 100_000, name: options.name },
    resultsPath,
  });
  if (!run.suite) throw run.suiteError ?? new Error(`${options.name}: the inner run did not start`);
  return { results: run.results, exitCode: run.suite.exitCode, logTail: run.suite.log.slice(-40), extensionLog: run.extensionLog };
}
