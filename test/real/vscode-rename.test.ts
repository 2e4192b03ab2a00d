/**
 * rename_symbol end to end: ONE fresh code-server window with the packaged extension, ONE real `claude`
 * (2.1.328, default permission mode) typed into its terminal, a scripted model that calls the tools
 * route's rename_symbol. A small TypeScript project whose exported function `double` (src/r<n>/math.ts)
 * is imported and called in three other files; a comment naming it and a same-named function of another
 * module must stay. Each round (NC_RENAME_ROUNDS, default 2; each in its own copy of the project, all
 * written before the window opens, so round 1's rename is the window's first TypeScript question and
 * later rounds run in a window with history): the rename rejected at its first review (nothing changed),
 * then accepted file by file (bytes exact, every import updated), then renamed again while app.ts has
 * unsaved typing (the rename of the buffer, reviewed beside it, written with it). The inner suite
 * (test/vscode/suites/rename-claude.test.ts) reviews and checks the disk; this test checks what the
 * model heard.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-rename.test.ts
 *   bash test/setup/repeat-real-test.sh 10 test/real/vscode-rename.test.ts
 * NC_RENAME_DEBUG=1 prints the inner results and the extension's log.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites } from './harness/codeServer';
import { scenarioModel, startFakeModel, type ToolUse } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { expectInnerPassed, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';

const ROUNDS = Number(process.env.NC_RENAME_ROUNDS ?? 2);
const TOOL = `mcp__${TOOLS_SERVER_NAME}__rename_symbol`;

/** One round's project: each renamed file before and after (review order: by path), and files left alone. */
function project(round: number) {
  const dir = `src/r${round}`;
  const renamed = [
    {
      rel: `${dir}/app.ts`,
      before: "import { double } from './math';\n\nexport function run(): number {\n  return double(21);\n}\n",
      after: "import { twice } from './math';\n\nexport function run(): number {\n  return twice(21);\n}\n",
    },
    {
      rel: `${dir}/math.ts`,
      before: '// double: the number times two\nexport function double(n: number): number {\n  return n * 2;\n}\n\nexport const four = double(2);\n',
      after: '// double: the number times two\nexport function twice(n: number): number {\n  return n * 2;\n}\n\nexport const four = twice(2);\n',
    },
    {
      rel: `${dir}/report.ts`,
      before: "import { double, four } from './math';\n\nexport const line = `${double(four)} and ${double(1)}`;\n",
      after: "import { twice, four } from './math';\n\nexport const line = `${twice(four)} and ${twice(1)}`;\n",
    },
    {
      rel: `${dir}/stats.ts`,
      before: "import * as math from './math';\nimport { double as dbl } from './math';\n\nexport const all = [math.double(3), dbl(4)];\n",
      after: "import * as math from './math';\nimport { twice as dbl } from './math';\n\nexport const all = [math.twice(3), dbl(4)];\n",
    },
  ];
  const untouched = [
    { rel: `${dir}/other/double.ts`, text: "export function double(s: string): string {\n  return s + s;\n}\nexport const twice2 = double('x');\n" },
  ];
  return { renamed, untouched };
}

describe('vscode-rename: claude renames an exported function used in three files, reviewed as one change', () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  it('rejected (nothing changed), then accepted (bytes exact, every import updated): fresh window, then the same in the same window', async () => {
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-rename-')));
    const rounds = Array.from({ length: ROUNDS }, (_, i) => project(i + 1));
    fs.writeFileSync(
      path.join(workspace, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'commonjs', noEmit: true }, include: ['src'] }, null, 2) + '\n',
    );
    for (const r of rounds) {
      for (const f of [...r.renamed.map((x) => ({ rel: x.rel, text: x.before })), ...r.untouched]) {
        fs.mkdirSync(path.dirname(path.join(workspace, f.rel)), { recursive: true });
        fs.writeFileSync(path.join(workspace, f.rel), f.text);
      }
    }
    // Scenario `<accept|reject>-<round>`: the same rename, named by its line and name (models are bad at columns).
    const steps = (scenario: string): ToolUse[] => {
      const [kind, round] = scenario.split('-');
      // unsaved: the accepted rename renamed again, while app.ts has unsaved typing.
      const [from, to] = kind === 'unsaved' ? ['twice', 'thrice'] : ['double', 'twice'];
      return [
        { name: 'ToolSearch', input: { query: `select:${TOOL}`, max_results: 1 } },
        { name: TOOL, input: { path: `src/r${round}/math.ts`, line: 2, symbol: from, new_name: to } },
      ];
    };
    model.respond(...Array.from({ length: 30 * ROUNDS }, () => scenarioModel('rename', steps)));
    const specPath = `${workspace}-spec.json`;
    const resultsPath = `${specPath}.results.json`;
    const ic = prepareIntegratedClaude({
      workspace,
      modelUrl: model.url,
      env: { NC_RENAME_SPEC: specPath },
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}`] } },
    });
    fs.writeFileSync(
      specPath,
      JSON.stringify({ workspace, results: resultsPath, rounds: ROUNDS, files: rounds.map((r) => r.renamed), untouched: rounds.map((r) => r.untouched) }),
    );
    const {
      suite,
      suiteError,
      results: inner,
      extensionLog,
    } = await runClaudeInnerSuite<InnerResult>({
      ic,
      model,
      server: { workspace, vsixPaths: [vsix], userSettings: { 'git.enabled': false, 'files.autoSave': 'off', 'workbench.startupEditor': 'none' } },
      run: { files: ['rename-claude'], timeout: 900_000, timeoutMs: 1_000_000, name: 'rename-claude' },
      resultsPath,
    });
    try {
      if (process.env.NC_RENAME_DEBUG)
        console.log(
          `--- inner\n${JSON.stringify(inner, null, 2)}\n--- extension log\n${extensionLog.slice(-12000)}\n--- inner log\n${suite?.log.slice(-60).join('\n')}`,
        );
      expectInnerPassed('rename-claude', inner, () => ({
        suiteError: suiteError?.message.slice(0, 3000),
        log: extensionLog.split('\n').slice(-40),
        innerLogTail: suite?.log.slice(-40),
      }));
      const heard = (scenario: string) => JSON.parse(model.toolResultText(`toolu_nc_rename_${scenario}_1`) ?? '{}') as Record<string, unknown>;
      const answers = Array.from({ length: ROUNDS }, (_, i) => ({
        reject: heard(`reject-${i + 1}`),
        accept: heard(`accept-${i + 1}`),
        unsaved: heard(`unsaved-${i + 1}`),
      }));
      console.log(JSON.stringify({ inner: inner?.data, answers: answers[0] }, null, 2));
      for (const [i, r] of rounds.entries()) {
        const files = r.renamed.map((f) => f.rel);
        expect({ round: i + 1, answer: answers[i].reject }).toEqual({
          round: i + 1,
          answer: { status: 'rejected', renamed: '`double` → `twice`', files, rejected_at: files[0], note: expect.stringContaining('Nothing was written') },
        });
        // No problem is new; TypeScript may still be checking the renamed files when the answer is sent (a
        // 2 s wait), which one note says.
        const { new_diagnostics: notes, ...accept } = answers[i].accept;
        expect({ round: i + 1, notes: notes ?? [] }).toEqual({
          round: i + 1,
          notes: (notes as unknown[] | undefined)?.length
            ? [expect.stringMatching(/^Note: still being checked when this answer was sent .*: src\/r\d\/[a-z]+\.ts/)]
            : [],
        });
        expect({ round: i + 1, answer: accept }).toEqual({
          round: i + 1,
          answer: {
            status: 'accepted',
            renamed: '`double` → `twice`',
            files: [
              { path: files[0], operation: 'modified', replacements: 2 },
              { path: files[1], operation: 'modified', replacements: 2 },
              { path: files[2], operation: 'modified', replacements: 3 },
              { path: files[3], operation: 'modified', replacements: 2 },
            ],
          },
        });
        const { new_diagnostics: _notes, ...unsaved } = answers[i].unsaved;
        expect({ round: i + 1, answer: unsaved }).toEqual({
          round: i + 1,
          answer: {
            status: 'accepted',
            renamed: '`twice` → `thrice`',
            files: [
              { path: files[0], operation: 'modified', merged_with_unsaved_edits: true, replacements: 2 },
              { path: files[1], operation: 'modified', replacements: 2 },
              { path: files[2], operation: 'modified', replacements: 3 },
              { path: files[3], operation: 'modified', replacements: 2 },
            ],
          },
        });
      }
    } finally {
      for (const p of [specPath, resultsPath]) fs.rmSync(p, { force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }, 1_200_000);
});
