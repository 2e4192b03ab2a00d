/**
 * claude's proposals for files the user has typed into and not saved, end to end: ONE code-server window
 * with the packaged extension, ONE real `claude` (2.1.328, default permission mode) typed into its
 * terminal, a scripted model. Issue 34. Every scenario (disjoint edits accepted and then edited again,
 * rejected, a conflict resolved by hand, a Write over the whole file, a CRLF file, the tools route's
 * apply_diff on a Latin-1 file) runs NC_MERGE_ROUNDS
 * times (default 2) on the same paths, so later rounds run in a window with history. The inner suite
 * (test/vscode/suites/review-merge-claude.test.ts) types, reviews and checks the buffers and the disk; this
 * test checks what the model heard.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-review-merge.test.ts
 *   bash test/setup/repeat-real-test.sh 10 test/real/vscode-review-merge.test.ts
 * NC_MERGE_DEBUG=1 prints the inner results and the extension's log.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { CLAUDE_VERSION } from './harness/claudeCli';
import { codeServerAvailable, compileInnerSuites } from './harness/codeServer';
import { scenarioModel, startFakeModel, type ToolUse } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { expectInnerPassed, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';

const ROUNDS = Number(process.env.NC_MERGE_ROUNDS ?? 2);
const saved = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const typed = 'one (typed, not saved)\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const merged = 'one (typed, not saved)\ntwo\nthree\nfour\nfive\nSIX by claude\nseven\n';
const writeResolved = 'one (typed, not saved)\nall new\n';
const crlf = (s: string) => s.replace(/\n/g, '\r\n');
const latin1Saved = 'name = café\nkey = one\nlast = old\n';
const TEXTS = {
  saved,
  typed,
  merged,
  mergedThenSeven: merged.replace('seven', 'SEVEN by claude'),
  conflictTyped: saved.replace('six', 'six (mine)'),
  conflictMarkers: "one\ntwo\nthree\nfour\nfive\n<<<<<<< your unsaved edits\nsix (mine)\n=======\nsix (claude)\n>>>>>>> Claude's proposal\nseven\n",
  conflictResolved: 'one\ntwo\nthree\nfour\nfive\nsix (mine)\nsix (claude)\nseven\n',
  writeMarkers: `<<<<<<< your unsaved edits\n${typed}=======\nall new\n>>>>>>> Claude's proposal\n`,
  writeResolved,
  // 2.1.328 rebuilds a Write accepted with other text from one hunk and drops its last newline (cli-ide.test.ts).
  writeOnDisk: CLAUDE_VERSION === '2.1.328' ? writeResolved.slice(0, -1) : writeResolved,
  crlfSaved: crlf(saved),
  crlfTyped: crlf(typed),
  crlfMerged: crlf(merged),
  latin1Saved,
  latin1Typed: latin1Saved.replace('café', 'café (typed, not saved)'),
  latin1Merged: latin1Saved.replace('café', 'café (typed, not saved)').replace('old', 'new'),
};

describe('vscode-review-merge: claude proposes, the user has unsaved edits, the review is of the merge', () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  it('disjoint (accepted, then edited again), rejected, conflict resolved, Write, CRLF: in every round, the bytes and the buffers right', async () => {
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-merge-')));
    const abs = (rel: string) => path.join(workspace, rel);
    // Scenario `<name>-<round>`: the round's calls get their own ids; the file is the same every round.
    const steps = (scenario: string): ToolUse[] => {
      const name = scenario.replace(/-\d+$/, '');
      const file_path = abs(`${name}.txt`);
      if (name === 'latin1') {
        // The tools route's apply_diff (no Read needed: it reads the file itself).
        const tool = `mcp__${TOOLS_SERVER_NAME}__apply_diff`;
        return [
          { name: 'ToolSearch', input: { query: `select:${tool}`, max_results: 1 } },
          { name: tool, input: { path: 'latin1.ini', diff: '<<<<<<< SEARCH\nlast = old\n=======\nlast = new\n>>>>>>> REPLACE' } },
        ];
      }
      // A Read first, as a model does: claude refuses to write a file changed since it last read it (the
      // test writes each file anew every round).
      return [{ name: 'Read', input: { file_path } }, ...changes(name, file_path)];
    };
    const changes = (name: string, file_path: string): ToolUse[] => {
      switch (name) {
        case 'disjoint':
          return [
            { name: 'Edit', input: { file_path, old_string: 'six', new_string: 'SIX by claude' } },
            { name: 'Edit', input: { file_path, old_string: 'seven', new_string: 'SEVEN by claude' } },
          ];
        case 'reject':
          return [{ name: 'Edit', input: { file_path, old_string: 'six', new_string: 'SIX by claude' } }];
        case 'conflict':
          return [{ name: 'Edit', input: { file_path, old_string: 'six', new_string: 'six (claude)' } }];
        case 'write':
          return [{ name: 'Write', input: { file_path, content: 'all new\n' } }];
        case 'crlf':
          return [{ name: 'Edit', input: { file_path, old_string: 'six', new_string: 'SIX by claude' } }];
      }
      throw new Error(`no steps for ${name}`);
    };
    model.respond(...Array.from({ length: 40 * ROUNDS }, () => scenarioModel('merge', steps)));
    const specPath = `${workspace}-spec.json`;
    const resultsPath = `${specPath}.results.json`;
    const ic = prepareIntegratedClaude({
      workspace,
      modelUrl: model.url,
      env: { NC_MERGE_SPEC: specPath },
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}`] } },
    });
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath, rounds: ROUNDS, texts: TEXTS }));
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
        userSettings: { 'git.enabled': false, 'files.autoSave': 'off', 'workbench.startupEditor': 'none', '[ini]': { 'files.encoding': 'iso88591' } },
      },
      run: { files: ['review-merge-claude'], timeout: 900_000, timeoutMs: 1_000_000, name: 'review-merge-claude' },
      resultsPath,
    });
    try {
      if (process.env.NC_MERGE_DEBUG)
        console.log(
          `--- inner\n${JSON.stringify(inner, null, 2)}\n--- extension log\n${extensionLog.slice(-12000)}\n--- inner log\n${suite?.log.slice(-60).join('\n')}`,
        );
      expectInnerPassed('review-merge-claude', inner, () => ({
        suiteError: suiteError?.message.slice(0, 3000),
        log: extensionLog.split('\n').slice(-40),
        innerLogTail: suite?.log.slice(-40),
      }));
      // What the model heard after each accepted merge: its change went through, modified by the user (an
      // Edit's wording and a Write's differ).
      const heard = (name: string, round: number) => model.toolResultText(`toolu_nc_merge_${name}-${round}_1`);
      const accepted = ['disjoint', 'conflict', 'write', 'crlf'].flatMap((name) =>
        Array.from({ length: ROUNDS }, (_, i) => ({ name: `${name}-${i + 1}`, heard: heard(name, i + 1) })),
      );
      console.log(JSON.stringify({ inner: inner?.data, heard: accepted.filter((a) => a.name.endsWith('-1')) }, null, 2));
      // apply_diff's own answer: accepted, the user's unsaved edits merged in.
      for (let round = 1; round <= ROUNDS; round++) {
        const answer = JSON.parse(heard('latin1', round) ?? '{}') as Record<string, unknown>;
        expect({ round, answer }).toEqual({
          round,
          answer: expect.objectContaining({ status: 'accepted', path: 'latin1.ini', merged_with_unsaved_edits: true }),
        });
      }
      for (const a of accepted) {
        expect(a).toEqual({
          name: a.name,
          heard: expect.stringMatching(/has been updated successfully\.[\s\S]*The user modified your proposed (changes|content) before accepting (them|it)/),
        });
      }
    } finally {
      for (const p of [specPath, resultsPath]) fs.rmSync(p, { force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }, 1_200_000);
});
