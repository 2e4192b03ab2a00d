/**
 * The test python kernel (test/vscode/python-kernel) in real VS Code (code-server 4.139.1): loaded as a
 * second extensionDevelopmentPath beside the driver, it is the kernel of VS Code's built-in
 * `jupyter-notebook` type that the executeCode tests run against (the Jupyter extension cannot be
 * installed here). The inner suite (test/vscode/suites/python-kernel.test.ts) drives it only with the
 * public notebook API and commands; each jest test below checks one inner test's outcome (key = the `[key]`
 * of its title). The outer side answers the `quickInput` probe (is the kernel picker showing?).
 *
 * Needs test/setup/install-real-clients.sh and python3. Run:
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-python-kernel.test.ts
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isolatedEnv } from './harness/claudeCli';
import { codeServerAvailable, compileInnerSuites, PYTHON_KERNEL_EXTENSION_PATH, type Probes, type SuiteResult } from './harness/codeServer';
import { expectInnerPassed as expectInner, innerFailureContext, type InnerResult } from './harness/innerResults';
import { readResultsFile, runInnerSuite } from './harness/innerSuite';
import { buildPythonKernelVsix } from './harness/vsix';

const PROBES: Probes = {
  /** The quick input (e.g. the kernel picker): whether it shows, its placeholder and its rows. */
  quickInput: async (page) => {
    const widget = page.locator('.quick-input-widget');
    await widget.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
    const visible = await widget.isVisible();
    return {
      visible,
      placeholder: visible ? ((await widget.locator('input').first().getAttribute('placeholder')) ?? '') : '',
      items: visible ? (await widget.locator('.monaco-list-row').allTextContents()).map((t) => t.trim()) : [],
    };
  },
};

describe('vscode-python-kernel', () => {
  let root = '';
  let run: SuiteResult | undefined;
  let runError: Error | undefined;
  let results: Record<string, InnerResult> = {};
  let installedRun: SuiteResult | undefined;
  let installedError: Error | undefined;
  let installedResults: Record<string, InnerResult> = {};

  const expectInnerPassed = (key: string) => expectInner(key, results[key], () => innerFailureContext(results[key], run, runError));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-kernel-')));
    // Installed too (for the second window, which loads no development path of it).
    const [kernelVsix] = await Promise.all([buildPythonKernelVsix(path.join(root, 'python-kernel.vsix')), compileInnerSuites()]);
    const workspace = path.join(root, 'workspace');
    const home = path.join(root, 'home');
    const probeDir = path.join(root, 'probes');
    for (const d of [workspace, home, probeDir]) fs.mkdirSync(d);
    const resultsPath = path.join(root, 'results.json');
    let first: Record<string, InnerResult> | undefined;
    const inner = await runInnerSuite<Record<string, InnerResult>>({
      // A short grace after an interrupt, for [interrupt-stuck].
      server: {
        workspace,
        env: isolatedEnv({ HOME: home, NC_TOOLS_RESULTS: resultsPath, NC_PROBE_DIR: probeDir, NC_TEST_KERNEL_INTERRUPT_GRACE_MS: '2000' }),
        vsixPaths: [kernelVsix],
        userSettings: { 'git.enabled': false, 'files.autoSave': 'off' },
      },
      run: {
        files: ['python-kernel'],
        extraDevelopmentPaths: [PYTHON_KERNEL_EXTENSION_PATH],
        timeout: 60_000,
        timeoutMs: 240_000,
        probeDir,
        probes: PROBES,
        screenshotOnProbeError: true,
        name: 'vscode-python-kernel',
      },
      resultsPath,
      // The installed .vsix, in a window without the development path: the persistence test again.
      after: async (_server, results, runWindow) => {
        first = results;
        fs.rmSync(resultsPath, { force: true });
        try {
          installedRun = await runWindow({
            files: ['python-kernel'],
            grep: '\\[persist\\]',
            timeout: 60_000,
            timeoutMs: 120_000,
            name: 'vscode-python-kernel-installed',
          });
        } catch (e) {
          installedError = e as Error;
        } finally {
          installedResults = readResultsFile(resultsPath) ?? {};
        }
      },
    });
    ({ suite: run, suiteError: runError } = inner);
    // The results file holds the installed window's results once `after` ran.
    results = (inner.suite ? first : inner.results) ?? {};
    if (process.env.NC_KERNEL_DEBUG)
      console.log(JSON.stringify({ exitCode: run?.exitCode, durationMs: run?.durationMs, results }, null, 2), '\n', run?.log.join('\n'));
  }, 360_000);

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('ran every inner test (none skipped or missing), exit code 0', () => {
    expect({ exitCode: run?.exitCode, runError: runError?.message.slice(0, 3000), keys: Object.keys(results).sort() }).toEqual({
      exitCode: 0,
      runError: undefined,
      keys: ['close', 'died', 'error', 'image', 'interrupt', 'interrupt-stuck', 'no-kernel', 'persist', 'queue', 'result', 'selection', 'stream'],
    });
  });

  it('installed from its .vsix (a window without the development path), the kernel runs cells with persistent state', () => {
    expect({ exitCode: installedRun?.exitCode, error: installedError?.message.slice(0, 3000), keys: Object.keys(installedResults) }).toEqual({
      exitCode: 0,
      error: undefined,
      keys: ['persist'],
    });
    expectInner('persist', installedResults.persist, () => ({ log: installedRun?.log.slice(-40) }));
    expect(installedResults.persist.data?.kernelPath).toMatch(/extensions[/\\]native-claude-test\.native-claude-test-python-kernel-0\.0\.1/);
    expect(results.persist?.data?.kernelPath).toBe(PYTHON_KERNEL_EXTENSION_PATH);
  });

  it('VS Code picks the controller: not on Preferred affinity alone, but on the first run (the only kernel) or notebook.selectKernel {id, extension}', () => {
    const d = expectInnerPassed('selection');
    expect(d.beforeRun).toBe('never told');
    expect(d.afterRun).toBe(true);
  });

  it('state persists between cells: 42, then 43', () => {
    const d = expectInnerPassed('persist');
    expect(d.first).toMatchObject({ success: true });
  });

  it('the last expression is a text/plain execute_result', () => {
    expectInnerPassed('result');
  });

  it('an exception is an error output with an ANSI traceback, success false', () => {
    expectInnerPassed('error');
  });

  it('image/png, text/html and application/json outputs', () => {
    expectInnerPassed('image');
  });

  it('outputs stream while the cell runs', () => {
    expectInnerPassed('stream');
  });

  it('notebook.cell.cancelExecution interrupts (KeyboardInterrupt), the state survives', () => {
    const d = expectInnerPassed('interrupt');
    expect(d.summary).toMatchObject({ success: false });
  });

  it('the process dying mid-run: success false, KernelDied, a fresh process next', () => {
    const d = expectInnerPassed('died');
    expect(d.summary).toMatchObject({ success: false });
  });

  it('the cells of one run are queued; a failing cell drops the rest of its run', () => {
    expectInnerPassed('queue');
  });

  it('a cell that ignores the interrupt is killed after the grace period', () => {
    const d = expectInnerPassed('interrupt-stuck');
    expect(d.msAfterCancel).toBeGreaterThanOrEqual(2000);
  });

  it('closing the notebook editor during a run: the run still ends (what VS Code does is recorded)', () => {
    const d = expectInnerPassed('close');
    console.log(`closing the notebook editor during a run: ${JSON.stringify(d)}`);
  });

  it('no kernel: the run waits on the kernel picker and the cell does not run', () => {
    const d = expectInnerPassed('no-kernel');
    expect(d.picker).toMatchObject({ visible: true });
  });
});
