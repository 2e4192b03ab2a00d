/**
 * Proves the real-VS-Code harness (test/real/harness/codeServer.ts, test/vscode/**): code-server starts
 * with a packaged .vsix installed, an inner mocha suite that passes exits 0, one with a deliberately
 * failing assertion exits non-zero, grep selects tests, and a workbench screenshot is a real image.
 * The passing run also records the process-tree facts (docs/notes/vscode-process-tree.md) and asserts
 * the ones the product depends on.
 *
 * Needs test/setup/install-real-clients.sh. Run: npx jest --selectProjects real -t vscode-harness --runInBand
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  codeServerAvailable,
  compileInnerSuites,
  INNER_SUITES,
  liveProcessTree,
  openWorkbench,
  REPO_ROOT,
  runSuiteInVsCode,
  saveScreenshot,
  startCodeServer,
  type CodeServer,
  type SuiteResult,
} from './harness/codeServer';
import { buildTrivialVsix } from './harness/vsix';

const SAMPLE = path.join(REPO_ROOT, 'test', 'fixtures', 'sample-workspace');

/** What a failed expectation prints: the exit code with the tail of the inner log. */
const summary = (r: SuiteResult) => ({ exitCode: r.exitCode, log: r.log.filter((l) => !/AgentHost|gallery/.test(l)).slice(-40) });

describe('vscode-harness', () => {
  let server: CodeServer | undefined;
  let tmp = '';
  let trivialDir = '';
  let trivialId = '';

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-harness-test-'));
    await compileInnerSuites();
    const trivial = await buildTrivialVsix();
    trivialDir = trivial.dir;
    trivialId = trivial.id;
    server = await startCodeServer({
      workspace: SAMPLE,
      vsixPaths: [trivial.vsix],
      env: {
        NC_SELFTEST_ENV: 'from-start-code-server',
        NC_SELFTEST_VSIX_ID: trivial.id,
        NC_SELFTEST_OUT: path.join(tmp, 'findings.json'),
        NC_SELFTEST_TMP: tmp,
      },
    });
  }, 240_000);

  afterAll(async () => {
    const pid = server?.pid;
    const dirs = server ? [server.tempDir] : [];
    try {
      await server?.stop();
    } finally {
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
      if (trivialDir) fs.rmSync(trivialDir, { recursive: true, force: true });
    }
    if (pid) {
      // stop() leaves nothing behind: no live process of the tree, no temp dir.
      expect(liveProcessTree(pid)).toEqual([]);
      for (const d of dirs) expect(fs.existsSync(d)).toBe(false);
    }
  }, 60_000);

  it('installs the .vsix into the fresh extensions dir', () => {
    const installed = fs.readdirSync(server!.extensionsDir);
    expect(installed).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${trivialId.replace('.', '\\.')}-0\\.0\\.1$`))]));
  });

  it('an inner suite that passes gives exit code 0 (and the process-tree facts hold)', async () => {
    const r = await runSuiteInVsCode({ server: server!, folder: SAMPLE, suite: INNER_SUITES.selftest, files: ['pass', 'processtree'], name: 'harness-pass' });
    expect(summary(r)).toMatchObject({ exitCode: 0 });
    expect(r.log.join('\n')).toMatch(/\b7 passing\b/);

    const findings = JSON.parse(fs.readFileSync(path.join(tmp, 'findings.json'), 'utf8'));
    // environmentVariableCollection.replace() reaches a terminal created afterwards; code-server's env too.
    expect(findings.shellSaw.NC_ENVCOLL_VAR).toBe('replaced-by-driver');
    expect(findings.shellSaw.NC_SELFTEST_ENV).toBe('from-start-code-server');
    // A process started in an integrated terminal descends from the extension host's parent (the
    // server process), not from the extension host itself.
    expect(findings.ancestry).toEqual({ extensionHostIsAncestor: false, extensionHostParentIsAncestor: true, sameUid: true });
    expect(findings.terminalTiming.shellIntegrationMs).toBeLessThan(15_000);
  }, 240_000);

  it('an inner suite with a deliberately failing assertion gives a non-zero exit code', async () => {
    const r = await runSuiteInVsCode({
      server: server!,
      folder: SAMPLE,
      suite: INNER_SUITES.selftest,
      files: ['fail'],
      name: 'harness-fail',
      screenshotOnFailure: false,
    });
    // This is the harness's own test: the inner failure is the expected outcome.
    expect(r.exitCode).not.toBe(0);
    const log = r.log.join('\n');
    expect(log).toMatch(/\b1 passing\b/);
    expect(log).toMatch(/\b1 failing\b/);
    expect(log).toMatch(/deliberate failure: the harness must report it/);
  }, 240_000);

  it('grep selects inner tests by title (the failing file minus its failing test passes)', async () => {
    const r = await runSuiteInVsCode({
      server: server!,
      folder: SAMPLE,
      suite: INNER_SUITES.selftest,
      files: ['fail'],
      grep: 'passes before',
      name: 'harness-grep',
    });
    expect(summary(r)).toMatchObject({ exitCode: 0 });
    expect(r.log.join('\n')).toMatch(/\b1 passing\b/);
  }, 240_000);

  it('takes a non-empty workbench screenshot', async () => {
    const wb = await openWorkbench(server!, SAMPLE);
    try {
      await wb.page.locator('.monaco-workbench .part.sidebar').getByText('README.md').waitFor({ timeout: 60_000 });
      const file = await saveScreenshot(wb.page, 'harness-workbench');
      expect(file).toBeDefined();
      const png = fs.readFileSync(file!);
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.length).toBeGreaterThan(10_000);
      fs.rmSync(file!);
    } finally {
      await wb.close();
    }
  }, 120_000);
});
