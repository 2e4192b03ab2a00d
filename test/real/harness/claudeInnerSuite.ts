/**
 * One run of an inner suite with claude in code-server's integrated terminal: start code-server with the
 * integrated claude's env, run the suite in a window, read its results file and Native Claude's log, and
 * always stop everything (claude's tmux, the server, the fake model, the temp root), whatever failed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { DRIVER_EXTENSION_PATH, findFiles, INNER_SUITES, runSuiteInVsCode, startCodeServer, type CodeServer, type RunSuiteOptions, type StartCodeServerOptions, type SuiteResult } from './codeServer';
import type { FakeModel } from './fakeModel';
import type { IntegratedClaude } from './integratedClaude';

export interface ClaudeInnerSuiteOptions<Results> {
  ic: IntegratedClaude;
  model: FakeModel;
  /** code-server's options but its env (the integrated claude's). */
  server: Omit<StartCodeServerOptions, 'env'>;
  /** The run's options but the server and folder (the server's workspace); suite and driver default to the product suites'. */
  run: Omit<RunSuiteOptions, 'server' | 'folder' | 'suite'> & { suite?: string };
  /** The results file the inner suite writes; read after the run, whatever happened. */
  resultsPath: string;
  /** Runs after the suite, with the server still up (e.g. a second window); its error counts as the run's. */
  after?: (server: CodeServer, results: Results | undefined) => Promise<void>;
}

export interface ClaudeInnerSuiteRun<Results> {
  suite?: SuiteResult;
  /** What starting the server, the run or `after` threw. */
  suiteError?: Error;
  results?: Results;
  /** Every Native Claude.log of the server's user data dir, joined. */
  extensionLog: string;
}

export async function runClaudeInnerSuite<Results>(opts: ClaudeInnerSuiteOptions<Results>): Promise<ClaudeInnerSuiteRun<Results>> {
  const { ic, model, resultsPath } = opts;
  const readResults = () => (fs.existsSync(resultsPath) ? (JSON.parse(fs.readFileSync(resultsPath, 'utf8')) as Results) : undefined);
  const out: ClaudeInnerSuiteRun<Results> = { extensionLog: '' };
  let server: CodeServer | undefined;
  try {
    server = await startCodeServer({ ...opts.server, env: ic.env });
    out.suite = await runSuiteInVsCode({ suite: INNER_SUITES.product, developmentPath: DRIVER_EXTENSION_PATH, ...opts.run, server, folder: opts.server.workspace });
    if (opts.after) await opts.after(server, readResults());
  } catch (e) {
    out.suiteError = e as Error;
  } finally {
    out.results = readResults();
    if (server) out.extensionLog = findFiles(path.join(server.userDataDir, 'logs'), /Native Claude\.log$/).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    await ic.killTmux();
    await server?.stop();
    await model.close();
    await ic.cleanup();
  }
  return out;
}
