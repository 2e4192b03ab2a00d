/**
 * Claude's changes with the real `claude` (2.1.328) in code-server 4.139.1 (issue 24): claude in the
 * integrated terminal, in accept-edits mode, driven by a scripted fake model, edits a git workspace:
 *   Edit a.txt (two separate lines), Edit b.txt, Write c.txt (CRLF, no final newline, rewritten),
 *   Write d.txt (new), Bash `sed -i` on e.txt (no call names it: "not attributed with certainty", with
 *   git's content as the before-image); the same sed changes 20 gitignored files under dist/, which the
 *   inner suite wrote while claude was connected: none of them is listed.
 * The inner suite (test/vscode/suites/changes-claude.test.ts) checks the list, undoes/keeps through the
 * commands the Source Control view and the peek run, and the conflict question; this side checks the disk
 * byte for byte afterwards and keeps screenshots (SCM view + gutter, the peeks) in .test-runs/. Then
 * Restart Server: the same claude reconnects and its next Edit lands in the same group; a second claude
 * in a second terminal edits another file at the same time (each change in its own session's group); and a new window
 * on the workspace (a reload) lists what is left from the extension's storage.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-changes.test.ts
 * NC_CHANGES_DEBUG=1 prints the extension's log and the inner log.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, type SuiteResult } from './harness/codeServer';
import { freshMessages, startFakeModel, textOf, type MessagesRequest, type Reply } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { expectInnerPassed, type InnerResult } from './harness/innerResults';
import { ensureVsix, REPO_ROOT } from './harness/vsix';
import { clickPeekAction, peekChooseProvider } from './harness/workbenchUi';

const FILES: Record<string, string> = {
  'a.txt': 'line1\nline2\nline3\nline4\nline5\nline6\n',
  'b.txt': 'b1\nb2\nb3\n',
  'c.txt': 'c1\r\nc2\r\nc3',
  'e.txt': 'e1\ne2\ne3\n',
  'f.txt': 'f1\nf2\n',
  'g.txt': 'g1\ng2\n',
  // A build's output (written by the inner suite, then changed by claude's sed): never listed.
  '.gitignore': 'dist/\n',
};
/** The gitignored outputs the sed changes too (docs/changes.md: a change no call announced of an ignored file is not read). */
const DIST = Array.from({ length: 20 }, (_, i) => `dist/out${i}.js`);

describe("vscode-changes: Claude's changes after the fact, with the real claude in accept-edits mode", () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  it('two Edits, a Write, a new file and a sed: listed per session; one hunk undone, one file kept, one undone whole, the new one removed; the list survives a reload; bytes exact', async () => {
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-changes-')));
    for (const [rel, content] of Object.entries(FILES)) fs.writeFileSync(path.join(workspace, rel), content);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: workspace, stdio: 'pipe' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'start');
    // The user's own uncommitted line before claude starts: git's quick diff shows it, Claude's must not.
    fs.writeFileSync(path.join(workspace, 'a.txt'), FILES['a.txt'].replace('line6', 'line6 (mine, uncommitted)'));
    const abs = (rel: string) => path.join(workspace, rel);
    const steps = [
      { name: 'Read', input: { file_path: abs('a.txt') } },
      { name: 'Edit', input: { file_path: abs('a.txt'), old_string: 'line2\nline3\nline4', new_string: 'LINE2\nline3\nLINE4' } },
      { name: 'Read', input: { file_path: abs('b.txt') } },
      { name: 'Edit', input: { file_path: abs('b.txt'), old_string: 'b2', new_string: 'B2' } },
      { name: 'Read', input: { file_path: abs('c.txt') } },
      { name: 'Write', input: { file_path: abs('c.txt'), content: 'c rewritten\n' } },
      { name: 'Write', input: { file_path: abs('d.txt'), content: 'd is new\n' } },
      { name: 'Bash', input: { command: `sed -i 's/e2/E2/' ${[abs('e.txt'), ...DIST.map(abs)].join(' ')}`, description: 'Change e2 to E2' } },
    ];
    // The second prompt, after Restart Server (claude reconnects): one more Edit of the file kept before.
    const again = [
      { name: 'Read', input: { file_path: abs('b.txt') } },
      { name: 'Edit', input: { file_path: abs('b.txt'), old_string: 'b3', new_string: 'B3' } },
    ];
    model.respond(
      ...Array.from({ length: 40 }, () => (request: MessagesRequest): Reply => {
        const fresh = freshMessages(request);
        if (fresh.some((m) => m.role === 'user' && textOf(m).includes('scenario:again'))) return { toolUse: { ...again[0], id: 'toolu_nc_again_0' } };
        const answered = fresh
          .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
          .filter((b) => b.type === 'tool_result')
          .map((b) => b.tool_use_id);
        if (answered.includes('toolu_nc_again_0')) return { toolUse: { ...again[1], id: 'toolu_nc_again_1' } };
        if (answered.includes('toolu_nc_again_1')) return { text: 'done again' };
        // Two sessions at once: the first claude edits g.txt, the second f.txt.
        for (const [who, file] of [
          ['first', 'g.txt'],
          ['second', 'f.txt'],
        ] as const) {
          const line = file[0];
          if (fresh.some((m) => m.role === 'user' && textOf(m).includes(`scenario:${who}`)))
            return { toolUse: { name: 'Read', input: { file_path: abs(file) }, id: `toolu_nc_${who}_0` } };
          if (answered.includes(`toolu_nc_${who}_0`))
            return {
              toolUse: { name: 'Edit', input: { file_path: abs(file), old_string: `${line}2`, new_string: `${line.toUpperCase()}2` }, id: `toolu_nc_${who}_1` },
            };
          if (answered.includes(`toolu_nc_${who}_1`)) return { text: `done ${who}` };
        }
        if (fresh.some((m) => m.role === 'user' && textOf(m).includes('scenario:changes'))) return { toolUse: { ...steps[0], id: 'toolu_nc_changes_0' } };
        const results = (request.messages ?? [])
          .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
          .filter((b) => b.type === 'tool_result').length;
        if (results > 0 && results < steps.length) return { toolUse: { ...steps[results], id: `toolu_nc_changes_${results}` } };
        return { text: results >= steps.length ? 'done changes' : 'ok' };
      }),
    );
    const shots = path.join(REPO_ROOT, '.test-runs', 'changes-shots');
    fs.mkdirSync(shots, { recursive: true });
    const specPath = `${workspace}-spec.json`;
    const resultsPath = `${specPath}.results.json`;
    // NATIVE_CLAUDE_TEST_SCRIPTED_ANSWERS: the installed .vsix runs in Production mode, and the inner suite
    // answers "Undo anyway?" by a scripted argument (SCRIPTED_ANSWERS_VARIABLE, src/vscode/changes/changesCommands.ts).
    const ic = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_CHANGES_SPEC: specPath, NATIVE_CLAUDE_TEST_SCRIPTED_ANSWERS: '1' } });
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath, shots }));
    let reloadSuite: SuiteResult | undefined;
    const {
      suite,
      suiteError,
      results: inner,
      extensionLog,
    } = await runClaudeInnerSuite<InnerResult>({
      ic,
      model,
      server: {
        workspace,
        vsixPaths: [vsix],
        userSettings: { 'json.schemaDownload.enable': false, 'files.autoSave': 'off', 'git.autoRepositoryDetection': true },
        // The first window's extension host ends 5 s after its browser left, so the second one is a reload.
        extraArgs: ['--reconnection-grace-time', '5'],
      },
      run: {
        files: ['changes-claude'],
        timeout: 180_000,
        timeoutMs: 300_000,
        name: 'changes-claude',
        probeDir: ic.probeDir,
        probes: {
          /** Picks a provider in the drop-down of the open quick diff peek; answers the choices it had. */
          peekChoose: (page, arg) => peekChooseProvider(page, (arg as { label: string }).label),
          /** Clicks an action of the open quick diff peek's title bar by its title. */
          clickPeekAction: (page, arg) => clickPeekAction(page, (arg as { title: string }).title),
          screenshot: async (page, arg) => {
            const file = (arg as { path: string }).path;
            await page.screenshot({ path: file, timeout: 10_000 });
            return file;
          },
        },
      },
      resultsPath,
      after: async (_server, first, runWindow) => {
        if (first?.state !== 'passed') return;
        // A window reload: a new window (new extension host) on the same workspace, claude still running.
        await new Promise((r) => setTimeout(r, 8_000));
        fs.writeFileSync(specPath, JSON.stringify({ workspace, results: `${resultsPath}.reload`, shots, phase: 'reload' }));
        reloadSuite = await runWindow({
          files: ['changes-claude'],
          timeout: 120_000,
          timeoutMs: 200_000,
          name: 'changes-claude-reload',
        });
      },
    });
    const reloaded: InnerResult | undefined = fs.existsSync(`${resultsPath}.reload`) ? JSON.parse(fs.readFileSync(`${resultsPath}.reload`, 'utf8')) : undefined;
    if (process.env.NC_CHANGES_DEBUG)
      console.log(
        `--- inner\n${JSON.stringify(inner, null, 2)}\n--- extension log\n${extensionLog.slice(-6000)}\n--- inner log\n${suite?.log.slice(-60).join('\n')}`,
      );
    try {
      expectInnerPassed('changes', inner, () => ({ suiteError: suiteError?.message.slice(0, 3000), innerLogTail: suite?.log.slice(-40) }));
      expectInnerPassed('changes after a reload', reloaded, () => ({
        suiteError: suiteError?.message.slice(0, 3000),
        innerLogTail: reloadSuite?.log.slice(-40),
      }));
      console.log(JSON.stringify({ reloaded: reloaded?.data?.reloaded, leftAfterReload: reloaded?.data?.left, reconnected: reloaded?.data?.reconnected }));
      console.log(
        JSON.stringify({
          sessions: inner?.data?.sessions,
          left: inner?.data?.left,
          peekProviders: inner?.data?.peekProviders,
          peekClick: inner?.data?.peekClick,
        }),
      );
      const bytes = (rel: string) => fs.readFileSync(abs(rel)).toString('hex');
      expect(bytes('a.txt')).toBe(Buffer.from('line1\nLINE2 (mine)\nline3\nline4\nline5\nline6 (mine, uncommitted)\n').toString('hex'));
      // Kept, then edited again by the same claude after its reconnect (and still listed).
      expect(bytes('b.txt')).toBe(Buffer.from('b1\nB2\nB3\n').toString('hex'));
      expect(bytes('c.txt')).toBe(Buffer.from(FILES['c.txt']).toString('hex'));
      expect(fs.existsSync(abs('d.txt'))).toBe(false);
      expect(bytes('f.txt')).toBe(Buffer.from('f1\nF2\n').toString('hex'));
      expect(bytes('g.txt')).toBe(Buffer.from('g1\nG2\n').toString('hex'));
      console.log(JSON.stringify({ twoSessions: inner?.data?.twoSessions, afterReconnectB: inner?.data?.afterReconnectB }));
      // The sed change, undone after the reload.
      expect(bytes('e.txt')).toBe(Buffer.from('e1\ne2\ne3\n').toString('hex'));
    } finally {
      for (const p of [specPath, resultsPath, `${resultsPath}.reload`]) fs.rmSync(p, { force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }, 420_000);
});
