/**
 * The one runner of inner suites for the real VS Code tests: start code-server (the packaged extension
 * installed, the test's workspace, settings and environment), run the inner suite in a window, read its
 * results file and Native Claude's log, and stop everything, whatever failed. What differs between tests
 * (the fixture, settings, env, extra extensions, probes, timeouts, a second window) is an option here.
 * `runClaudeInnerSuite()` (claudeInnerSuite.ts) is this with a claude in the integrated terminal.
 *
 * A test whose later `it`s still need the server (a plain window opened afterwards) passes `keepServer`
 * and calls the run's `stop()` in its afterAll.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  DRIVER_EXTENSION_PATH,
  findFiles,
  INNER_SUITES,
  runSuiteInVsCode,
  startCodeServer,
  type CodeServer,
  type RunSuiteOptions,
  type StartCodeServerOptions,
  type SuiteResult,
} from './codeServer';

/** One window's run: RunSuiteOptions but the server; the suite defaults to the product suites, the folder to the server's workspace. */
export type InnerWindowOptions = Omit<RunSuiteOptions, 'server' | 'folder' | 'suite'> & { suite?: string; folder?: string };

/** Runs one more window of the same server, with the same defaults as the first (for `after`). */
export type RunInnerWindow = (opts: InnerWindowOptions) => Promise<SuiteResult>;

export interface InnerSuiteOptions<Results> {
  /** code-server's options. */
  server: StartCodeServerOptions;
  /** The first window's run (none: `after` runs the test's windows itself, e.g. two at once). */
  run?: InnerWindowOptions;
  /** The results file the inner suite writes; read after the run (and after `after`), whatever happened. */
  resultsPath?: string;
  /** Runs after the first window (first of all without `run`), with the server still up: more windows; its error counts as the run's. */
  after?: (server: CodeServer, results: Results | undefined, runWindow: RunInnerWindow) => Promise<void>;
  /** Leave the server running for later tests: the caller calls the run's `stop()` (in afterAll). */
  keepServer?: boolean;
  /** Called once when stopping, before the server stops (e.g. reading a log, ending a claude's tmux). */
  beforeStop?: () => Promise<void>;
  /** Called once when stopping, after the server stopped (e.g. the fake model, temp dirs). */
  afterStop?: () => Promise<void>;
}

export interface InnerSuiteRun<Results> {
  /** The server it started (already stopped unless `keepServer`). */
  server?: CodeServer;
  suite?: SuiteResult;
  /** What starting the server, the run or `after` threw. */
  suiteError?: Error;
  results?: Results;
  /** Every Native Claude.log of the server's user data dir, joined, as they were after the run. */
  extensionLog: string;
  /** Stops what the run started (`beforeStop`, the server, `afterStop`); idempotent. Already done unless `keepServer`. */
  stop(): Promise<void>;
}

/** The inner suite's results file, or undefined when it wrote none. */
export function readResultsFile<Results>(resultsPath: string | undefined): Results | undefined {
  return resultsPath && fs.existsSync(resultsPath) ? (JSON.parse(fs.readFileSync(resultsPath, 'utf8')) as Results) : undefined;
}

export async function runInnerSuite<Results>(opts: InnerSuiteOptions<Results>): Promise<InnerSuiteRun<Results>> {
  let server: CodeServer | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      try {
        await opts.beforeStop?.();
      } finally {
        try {
          await server?.stop();
        } finally {
          await opts.afterStop?.();
        }
      }
    })());
  const out: InnerSuiteRun<Results> = { extensionLog: '', stop };
  try {
    server = out.server = await startCodeServer(opts.server);
    const srv = server;
    const runWindow: RunInnerWindow = (w) =>
      runSuiteInVsCode({ suite: INNER_SUITES.product, developmentPath: DRIVER_EXTENSION_PATH, folder: opts.server.workspace, ...w, server: srv });
    if (opts.run) out.suite = await runWindow(opts.run);
    if (opts.after) await opts.after(srv, readResultsFile<Results>(opts.resultsPath), runWindow);
  } catch (e) {
    out.suiteError = e as Error;
  } finally {
    out.results = readResultsFile<Results>(opts.resultsPath);
    if (server)
      out.extensionLog = findFiles(path.join(server.userDataDir, 'logs'), /Native Claude\.log$/)
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('\n');
    if (!opts.keepServer) await stop();
  }
  return out;
}
