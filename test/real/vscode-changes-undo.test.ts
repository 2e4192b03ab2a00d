/**
 * Claude's changes after an undo, with the real `claude` (2.1.328) in code-server 4.139.1 (issue 24,
 * points 3 and 4). The inner suite (test/vscode/suites/changes-undo-claude.test.ts):
 * - checks whether the editor's Undo takes back a change written on disk under an open, non-dirty editor
 *   (as an undo of Claude's change is written);
 * - runs claude in the integrated terminal in accept-edits mode, driven by a scripted fake model: an Edit
 *   of u.txt (CRLF, no final newline); the user undoes it; at the next prompt claude Writes u.txt whole.
 *   The change is listed flagged, the warning names the file, its "Undo Again" (clicked here, in the
 *   workbench) restores the bytes the undo left.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-changes-undo.test.ts
 * NC_CHANGES_DEBUG=1 prints the extension's log and the inner log.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites } from './harness/codeServer';
import { freshMessages, startFakeModel, textOf, type MessagesRequest, type Reply } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { ensureVsix } from './harness/vsix';
import { notificationProbe } from './harness/workbenchUi';

const ORIGINAL = 'one\r\ntwo\r\nthree';

interface Inner {
  state: string;
  results: Record<string, { state: string; error?: string }>;
  data: Record<string, unknown>;
}

describe("vscode-changes-undo: claude's write over the user's undo, and the editor's Undo", () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  it('an Edit undone by the user, then a Write of the same file at the next prompt: flagged, warned, Undo Again gives back the bytes', async () => {
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-undo-')));
    const abs = (rel: string) => path.join(workspace, rel);
    fs.writeFileSync(abs('u.txt'), ORIGINAL);
    const script: Record<string, Array<{ name: string; input: Record<string, unknown> }>> = {
      edit: [
        { name: 'Read', input: { file_path: abs('u.txt') } },
        { name: 'Edit', input: { file_path: abs('u.txt'), old_string: 'two', new_string: 'TWO' } },
      ],
      write: [{ name: 'Write', input: { file_path: abs('u.txt'), content: 'rewritten by claude\n' } }],
    };
    const toolResults = (request: MessagesRequest) =>
      freshMessages(request)
        .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
        .filter((b) => b.type === 'tool_result');
    model.respond(
      ...Array.from({ length: 20 }, () => (request: MessagesRequest): Reply => {
        const fresh = freshMessages(request);
        for (const [name, steps] of Object.entries(script)) {
          if (fresh.some((m) => m.role === 'user' && textOf(m).includes(`scenario:${name}`))) return { toolUse: { ...steps[0], id: `toolu_nc_${name}_0` } };
          const answered = toolResults(request).map((b) => b.tool_use_id);
          const last = answered.map((id) => new RegExp(`^toolu_nc_${name}_(\\d+)$`).exec(id ?? '')).find(Boolean);
          if (last) {
            const next = Number(last[1]) + 1;
            return next < steps.length ? { toolUse: { ...steps[next], id: `toolu_nc_${name}_${next}` } } : { text: `done ${name}` };
          }
        }
        return { text: 'ok' };
      }),
    );
    const specPath = `${workspace}-spec.json`;
    const resultsPath = `${specPath}.results.json`;
    const ic = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_UNDOGUARD_SPEC: specPath } });
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath }));
    const {
      suite,
      suiteError,
      results: inner,
      extensionLog,
    } = await runClaudeInnerSuite<Inner>({
      ic,
      model,
      server: { workspace, vsixPaths: [vsix], userSettings: { 'json.schemaDownload.enable': false, 'files.autoSave': 'off' } },
      run: {
        files: ['changes-undo-claude'],
        timeout: 180_000,
        timeoutMs: 300_000,
        name: 'changes-undo-claude',
        probeDir: ic.probeDir,
        probes: { notification: notificationProbe },
      },
      resultsPath,
    });
    if (process.env.NC_CHANGES_DEBUG)
      console.log(
        `--- inner\n${JSON.stringify(inner, null, 2)}\n--- extension log\n${extensionLog.slice(-6000)}\n--- inner log\n${suite?.log.slice(-60).join('\n')}`,
      );
    try {
      console.log(
        JSON.stringify({
          editor: { dirtyAfterReload: inner?.data.dirtyAfterReload, undo: inner?.data.editorUndo, redo: inner?.data.editorRedo },
          notification: inner?.data.notification,
          flagged: inner?.data.flagged,
        }),
      );
      expect({
        suiteError: suiteError?.message.slice(0, 2000),
        results: inner?.results,
        innerLogTail: inner?.state === 'passed' ? undefined : suite?.log.slice(-40),
      }).toEqual({ suiteError: undefined, results: { editorUndo: { state: 'passed' }, rewrite: { state: 'passed' } }, innerLogTail: undefined });
      expect(inner?.data.notification).toEqual({ message: 'Claude wrote u.txt again after you undid its change.', buttons: ['Show Change', 'Undo Again'] });
      expect(fs.readFileSync(abs('u.txt')).toString('hex')).toBe(Buffer.from(ORIGINAL).toString('hex'));
    } finally {
      for (const p of [specPath, resultsPath]) fs.rmSync(p, { force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }, 420_000);
});
