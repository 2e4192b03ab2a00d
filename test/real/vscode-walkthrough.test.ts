/**
 * The first-run walkthrough (package.json contributes.walkthroughs) in real VS Code (code-server 4.139.1)
 * with the packaged .vsix: it shows, and each step completes on its own. The inner suite
 * test/vscode/suites/walkthrough.test.ts does the user's part through the `vscode` API and an IDE client;
 * the `walkthrough` probe here reads the workbench's rendering of the steps (title, checkmark).
 *
 * Needs test/setup/install-real-clients.sh. Run:
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-walkthrough.test.ts
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { codeServerAvailable, compileInnerSuites, type SuiteResult } from './harness/codeServer';
import { runInnerSuite } from './harness/innerSuite';
import { ensureVsix } from './harness/vsix';
import { walkthroughPage } from './harness/walkthrough';
import { expectInnerPassed as expectInner, type InnerResult } from './harness/innerResults';

describe('vscode-walkthrough', () => {
  let root = '';
  let suite: SuiteResult | undefined;
  let suiteError: Error | undefined;
  let results: Record<string, InnerResult> = {};

  const expectInnerPassed = (key: string): void =>
    void expectInner(key, results[key], () => ({ suiteError: suiteError?.message.slice(0, 3000), innerLogTail: suite?.log.slice(-60) }));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-walkthrough-')));
    const workspace = path.join(root, 'workspace');
    const configDir = path.join(root, 'config');
    const bin = path.join(root, 'bin');
    const probeDir = path.join(root, 'probes');
    const home = path.join(root, 'home');
    for (const d of [workspace, configDir, bin, probeDir, home]) fs.mkdirSync(d);
    // Where the setting's own example points (`~/.local/bin/claude`): the walkthrough and Check Setup must
    // both find it there (src/cliSetup/claudeCommand.ts expands `~` for both).
    const fakeClaude = path.join(home, '.local', 'bin', 'claude');
    fs.mkdirSync(path.dirname(fakeClaude), { recursive: true });
    fs.writeFileSync(fakeClaude, '#!/bin/sh\necho "stand-in for the walkthrough test"\n', { mode: 0o755 });
    const resultsPath = path.join(root, 'results.json');
    // No `claude` on PATH, so the first step starts unchecked whatever this machine has installed.
    const pathWithoutClaude = (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((d) => d && !fs.existsSync(path.join(d, 'claude')))
      .join(path.delimiter);
    const run = await runInnerSuite<Record<string, InnerResult>>({
      server: {
        workspace,
        vsixPaths: [vsix],
        env: {
          HOME: home,
          CLAUDE_CONFIG_DIR: configDir,
          PATH: pathWithoutClaude,
          NC_TOOLS_RESULTS: resultsPath,
          NC_PROBE_DIR: probeDir,
          NC_WALKTHROUGH_CLAUDE: '~/.local/bin/claude',
        },
        userSettings: { 'git.enabled': false },
      },
      run: {
        files: ['walkthrough'],
        timeout: 60_000,
        timeoutMs: 240_000,
        probeDir,
        probes: { walkthrough: (page) => walkthroughPage(page) },
        screenshotOnProbeError: true,
        name: 'vscode-walkthrough',
      },
      resultsPath,
    });
    ({ suite, suiteError } = run);
    results = run.results ?? {};
    if (process.env.NC_WALKTHROUGH_DEBUG) console.log(JSON.stringify({ exitCode: suite?.exitCode, results }, null, 2), suite?.log.join('\n'));
  }, 420_000);

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('shows in real VS Code with its title and five steps, none checked at first', () => {
    expectInnerPassed('shown');
    const page = results.shown.data!.page as { title: string; steps: Array<{ id: string }> };
    expect(page.title).toBe('Get Started with Native Claude');
    expect(page.steps.map((s) => s.id.split('#').pop())).toEqual(['findClaude', 'runClaude', 'seeConnection', 'tryReview', 'enableTools']);
  });

  it('"Install or find claude" completes when the claude command (~/.local/bin/claude) is found, and Check Setup finds the same claude', () =>
    expectInnerPassed('findClaude'));
  it('"Run claude" and "See the connection" complete when a claude session connects', () => expectInnerPassed('connected'));
  it('"Try a review" completes when a review diff opens', () => expectInnerPassed('tryReview'));
  it('"Enable the tools" completes when the tools entry is written', () => expectInnerPassed('enableTools'));

  it('the inner suite ran to the end', () => {
    expect({ exitCode: suite?.exitCode, error: suiteError?.message.slice(0, 2000) }).toEqual({ exitCode: 0, error: undefined });
  });
});
