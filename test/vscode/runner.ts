/**
 * Mocha runner for the inner suites, loaded by VS Code's extension test runner inside the extension host
 * (through the shim that test/real/harness/codeServer.ts#runSuiteInVsCode generates).
 *
 * Selection, first match wins: `run(options)` (from the harness), then the environment of code-server
 * (MOCHA_GREP, MOCHA_FILES=comma,separated). Output goes through console.log, which VS Code forwards to
 * the page's codeAutomationLog.
 */
import * as fs from 'fs';
import * as path from 'path';

/** The part of mocha's API this runner uses (typed here: see bdd.ts for why not @types/mocha). */
interface MochaInstance {
  grep(re: RegExp): MochaInstance;
  addFile(file: string): MochaInstance;
  run(done: (failures: number) => void): unknown;
}
type MochaCtor = new (opts: { ui: string; color: boolean; reporter: string; timeout: number }) => MochaInstance;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Mocha = require('mocha') as MochaCtor;

export interface RunOptions {
  /** Regular expression source matched against full test titles. */
  grep?: string;
  /** Only suite files whose basename contains one of these (`.js`/`.ts` suffix ignored). */
  files?: string[];
  /** Per-test timeout, ms. Default 60 s. */
  timeout?: number;
}

function listSuiteFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSuiteFiles(full));
    else if (entry.name.endsWith('.test.js')) out.push(full);
  }
  return out.sort();
}

export function runMocha(dir: string, options?: RunOptions | string): Promise<void> {
  // VS Code calls run(testsRoot, callback) in its legacy form: ignore a non-object first argument.
  const opts: RunOptions = options && typeof options === 'object' ? options : {};
  const grep = opts.grep ?? process.env.MOCHA_GREP;
  const fileFilter = opts.files ?? (process.env.MOCHA_FILES ? process.env.MOCHA_FILES.split(',') : undefined);
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: opts.timeout ?? 60_000 });
  if (grep) mocha.grep(new RegExp(grep));

  const strip = (f: string) => f.replace(/\.(test\.)?(js|ts)$/, '');
  let files = listSuiteFiles(dir);
  if (fileFilter && fileFilter.length > 0) {
    const wanted = fileFilter.map((f) => strip(path.basename(f.trim())));
    files = files.filter((f) => wanted.some((w) => strip(path.basename(f)).includes(w)));
  }
  if (files.length === 0) {
    return Promise.reject(new Error(`no suite file in ${dir} matched ${JSON.stringify(fileFilter)}`));
  }
  for (const f of files) mocha.addFile(f);
  console.log(`[inner-runner] pid ${process.pid}: ${files.map((f) => path.basename(f)).join(', ')}${grep ? ` grep /${grep}/` : ''}`);

  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} inner test(s) failed`));
        else resolve();
      });
    } catch (e) {
      reject(e);
    }
  });
}
