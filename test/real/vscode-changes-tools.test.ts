/**
 * Claude's changes, tools-route writes with two real `claude` (2.1.328) sessions in code-server 4.139.1
 * (issue 24): each claude runs in its own integrated terminal in accept-edits mode, with the tools route
 * registered as the extension installs it (user-scope `vscode` entry, src/cliSetup/toolsRouteEntry.ts) and
 * allowed in its settings; the extension's approvalMode is "never" (no review). A scripted fake model has
 * each claude call mcp__vscode__write_file on its own file at the same time. The inner suite
 * (test/vscode/suites/changes-tools-route.test.ts) checks each write is listed with certainty, source
 * 'tools-route', in the group of the claude that made it; this side checks the bytes on disk.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-changes-tools.test.ts
 * NC_CHANGES_DEBUG=1 prints the extension's log and the inner log.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites } from './harness/codeServer';
import { freshMessages, startFakeModel, textOf, type MessagesRequest, type Reply } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { expectInnerPassed, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';

describe('vscode-changes-tools: tools-route writes of two real claudes, each in its own group', () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  it('two claudes each write a file through mcp__vscode__write_file: each listed with certainty in its own session', async () => {
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-changes-tools-')));
    const abs = (rel: string) => path.join(workspace, rel);
    fs.writeFileSync(abs('t1.txt'), 'first, before\n');
    fs.writeFileSync(abs('t2.txt'), 'second, before\n');
    const writes = {
      first: { path: abs('t1.txt'), content: 'first, written by the first claude\n' },
      second: { path: abs('t2.txt'), content: 'second, written by the second claude\n' },
    };
    model.respond(
      ...Array.from({ length: 40 }, () => (request: MessagesRequest): Reply => {
        const fresh = freshMessages(request);
        const answered = fresh
          .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
          .filter((b) => b.type === 'tool_result')
          .map((b) => b.tool_use_id);
        for (const who of ['first', 'second'] as const) {
          if (answered.includes(`toolu_nc_tools_${who}`)) return { text: `done tools-${who}` };
          if (fresh.some((m) => m.role === 'user' && textOf(m).includes(`scenario:tools-${who}`))) {
            return { toolUse: { name: `mcp__${TOOLS_SERVER_NAME}__write_file`, input: writes[who], id: `toolu_nc_tools_${who}` } };
          }
        }
        return { text: 'ok' };
      }),
    );
    const specPath = `${workspace}-spec.json`;
    const resultsPath = `${specPath}.results.json`;
    const ic = prepareIntegratedClaude({
      workspace,
      modelUrl: model.url,
      env: { NC_CHANGES_TOOLS_SPEC: specPath },
      // The entry the extension installs on the user's consent, and claude's own permission for its tools.
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}`] } },
    });
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath }));
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
        userSettings: { 'json.schemaDownload.enable': false, 'files.autoSave': 'off', 'git.enabled': false, 'nativeClaude.approvalMode': 'never' },
      },
      run: { files: ['changes-tools-route'], timeout: 180_000, timeoutMs: 300_000, name: 'changes-tools-route' },
      resultsPath,
    });
    if (process.env.NC_CHANGES_DEBUG)
      console.log(
        `--- inner\n${JSON.stringify(inner, null, 2)}\n--- extension log\n${extensionLog.slice(-8000)}\n--- inner log\n${suite?.log.slice(-60).join('\n')}`,
      );
    try {
      const ownerLines = extensionLog.split('\n').filter((l) => /\(tools\)/.test(l));
      console.log(JSON.stringify({ sessions: inner?.data?.sessions, panes: inner?.data?.panes, cliPids: inner?.data?.cliPids, ownerLines }, null, 2));
      expectInnerPassed('changes-tools-route', inner, () => ({
        suiteError: suiteError?.message.slice(0, 3000),
        innerLogTail: suite?.log.slice(-40),
        ownerLines,
      }));
      // Edited by the user after claude; the scripted undo (ignored outside the tests) left it.
      expect(fs.readFileSync(abs('t1.txt'), 'utf8')).toBe('first, edited by the user afterwards\n');
      expect(extensionLog).toMatch(/a command was called with a scripted answer \("undo"\); it is ignored outside the extension's tests/);
      expect(fs.readFileSync(abs('t2.txt'), 'utf8')).toBe(writes.second.content);
    } finally {
      for (const p of [specPath, resultsPath]) fs.rmSync(p, { force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }, 420_000);
});
