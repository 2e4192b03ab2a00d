/**
 * Every problem reaches claude, from a FRESH window: each scenario gets its own code-server (new user data,
 * new extension host, TypeScript and JSON servers cold) and its own workspace, with the real `claude`
 * (2.1.328) typed into the integrated terminal and a scripted fake model. Nothing warms a language server
 * before claude's first prompt, which is typed as soon as claude shows its prompt.
 *
 *   json-review      claude Writes a new JSON file with a syntax error; the user saves the review (Ctrl+S):
 *                    claude prints "Found 1 new diagnostic issue" and the next model request carries
 *                    <new-diagnostics>.
 *   ts-accept-edits  in accept-edits mode claude Writes a new .ts file with a type error itself (no review),
 *                    in a project with a tsconfig.json: the next request carries the problem or, when
 *                    TypeScript's first check outlasts claude's 2 s, the "Not checked yet" note; then the
 *                    model's getDiagnostics {uri} gets the problem (and claude's next {} passes it on).
 *   model-uri        the model calls mcp__ide__getDiagnostics {uri} on a closed .ts file with a type error:
 *                    the error is in the tool result.
 * Each also checks claude's debug log: every getDiagnostics call of claude's own answered within its budget
 * (500 ms before a write, 2 s after), and each scenario prints its figures as one JSON line.
 *
 *   npx jest --selectProjects real --runInBand -- test/real/vscode-diagnostics-cold.test.ts [-t json-review]
 *   bash test/setup/repeat-real-test.sh 20 test/real/vscode-diagnostics-cold.test.ts -t json-review
 * NC_COLD_DEBUG=1 prints the extension's log, claude's debug log lines about diagnostics and the inner data.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, type SuiteResult } from './harness/codeServer';
import { freshMessages, startFakeModel, textOf, type FakeModel, type MessagesRequest, type Reply } from './harness/fakeModel';
import { prepareIntegratedClaude, type IntegratedClaude } from './harness/integratedClaude';
import { expectInnerPassed, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';
import { cliDiagnosticsCalls, expectWithinClaudesBudgets } from './harness/claudeDiagnostics';

type ScenarioName = 'json-review' | 'ts-accept-edits' | 'model-uri';

const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'commonjs', noEmit: true }, include: ['src'] }, null, 2) + '\n';
const MAIN_TS = 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n';

interface ScenarioDef {
  /** The workspace's files before claude starts (relative path → content). */
  files: Record<string, string>;
  /** The file the scenario is about. */
  file: string;
  /** The model's tool calls, in order (each after the previous one's result); then `done <scenario>`. */
  toolUses: (file: string) => Array<{ name: string; input: Record<string, unknown> }>;
  /** What must reach the model: in the request after the last tool result. */
  expected: RegExp;
}

const SCENARIOS: Record<ScenarioName, ScenarioDef> = {
  'json-review': {
    files: { 'README.md': '# a folder\n' },
    file: 'data.json',
    toolUses: (file) => [{ name: 'Write', input: { file_path: file, content: '{\n  "name": "demo",\n}\n' } }],
    expected: /<new-diagnostics>[\s\S]*data\.json[\s\S]*Trailing comma/,
  },
  'ts-accept-edits': {
    files: { 'tsconfig.json': TSCONFIG, 'src/main.ts': MAIN_TS },
    file: 'src/broken.ts',
    // Then the model asks about the file, as the note tells it to when the first check was too slow.
    toolUses: (file) => [
      { name: 'Write', input: { file_path: file, content: 'export const count: number = "one";\n' } },
      { name: 'ToolSearch', input: { query: 'select:mcp__ide__getDiagnostics', max_results: 1 } },
      { name: 'mcp__ide__getDiagnostics', input: { uri: `file://${file}` } },
    ],
    expected: /<new-diagnostics>[\s\S]*broken\.ts[\s\S]*Type 'string' is not assignable to type 'number'/,
  },
  'model-uri': {
    files: { 'tsconfig.json': TSCONFIG, 'src/main.ts': MAIN_TS, 'src/closed.ts': 'import { greet } from "./main";\nexport const n: number = greet("x");\n' },
    file: 'src/closed.ts',
    // As a real model does: the IDE's tools are deferred behind ToolSearch in 2.1.
    toolUses: (file) => [
      { name: 'ToolSearch', input: { query: 'select:mcp__ide__getDiagnostics', max_results: 1 } },
      { name: 'mcp__ide__getDiagnostics', input: { uri: `file://${file}` } },
    ],
    expected: /Type 'string' is not assignable to type 'number'/,
  },
};

interface ColdRun {
  inner?: InnerResult;
  suite?: SuiteResult;
  suiteError?: Error;
  requests: MessagesRequest[];
  extensionLog: string;
  debugLog: string;
  model: FakeModel;
}

async function runCold(name: ScenarioName): Promise<ColdRun> {
  const def = SCENARIOS[name];
  const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
  const model = await startFakeModel();
  const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `nc-cold-${name}-`)));
  for (const [rel, content] of Object.entries(def.files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace, rel), content);
  }
  const file = path.join(workspace, def.file);
  const steps = def.toolUses(file);
  // The model: the scenario's tool calls one after another, then "done <scenario>".
  model.respond(
    ...Array.from({ length: 20 }, () => (request: MessagesRequest): Reply => {
      const fresh = freshMessages(request);
      if (fresh.some((m) => m.role === 'user' && textOf(m).includes(`scenario:${name}`))) return { toolUse: { ...steps[0], id: 'toolu_nc_cold_0' } };
      const results = (request.messages ?? []).flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'tool_result').length;
      if (results > 0 && results < steps.length) return { toolUse: { ...steps[results], id: `toolu_nc_cold_${results}` } };
      return { text: results >= steps.length ? `done ${name}` : 'ok' };
    }),
  );
  const specPath = `${workspace}-spec.json`;
  const resultsPath = `${specPath}.results.json`;
  const ic: IntegratedClaude = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_COLD_SPEC: specPath } });
  const debugFile = path.join(ic.root, 'claude-debug.log');
  fs.writeFileSync(specPath, JSON.stringify({ scenario: name, workspace, results: resultsPath, file, debugFile }));
  const run: ColdRun = { requests: [], extensionLog: '', debugLog: '', model };
  try {
    const { suite, suiteError, results, extensionLog } = await runClaudeInnerSuite<InnerResult>({
      ic,
      model,
      server: { workspace, vsixPaths: [vsix], userSettings: { 'git.enabled': false, 'json.schemaDownload.enable': false, 'files.autoSave': 'off' } },
      run: { files: ['diagnostics-cold'], timeout: 120_000, timeoutMs: 240_000, name: `diagnostics-cold-${name}` },
      resultsPath,
      beforeStop: async () => {
        run.debugLog = fs.existsSync(debugFile) ? fs.readFileSync(debugFile, 'utf8') : '';
        run.requests = [...model.mainRequests];
      },
    });
    Object.assign(run, { suite, suiteError, inner: results, extensionLog });
  } finally {
    for (const p of [specPath, resultsPath]) fs.rmSync(p, { force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  if (process.env.NC_COLD_DEBUG) {
    fs.mkdirSync(path.join(__dirname, '..', '..', '.test-runs'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, '..', '..', '.test-runs', `cold-${name}-claude-debug.log`), run.debugLog);
    console.log(
      `--- ${name}: inner\n${JSON.stringify(run.inner, null, 2)}\n--- extension log\n${run.extensionLog.slice(-6000)}\n--- claude debug (diagnostics)\n` +
        run.debugLog
          .split('\n')
          .filter((l) => /diagnostic|getDiagnostics|\[ide|IDE/i.test(l) && !/git clone|marketplace/i.test(l))
          .slice(-60)
          .join('\n') +
        (run.suite ? `\n--- inner log\n${run.suite.log.slice(-40).join('\n')}` : ''),
    );
  }
  return run;
}

/**
 * How long after the extension activated in the window (its log's first line) claude made its first
 * getDiagnostics call (its debug log), in ms: how soon claude's first edit can come with a model that
 * answers at once (docs/diagnostics.md, "At a window's start"). Both logs are stamped by this machine's
 * clock; the extension's in local time, which the real tests run in UTC.
 */
function firstCallAfterActivation(run: ColdRun): number | undefined {
  const activated = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/m.exec(run.extensionLog);
  const firstCall = /^(\S+) \[DEBUG\] MCP server "ide": Calling MCP tool: getDiagnostics$/m.exec(run.debugLog);
  if (!activated || !firstCall) return undefined;
  return Date.parse(firstCall[1]) - Date.parse(`${activated[1]}T${activated[2]}Z`);
}

/** Lines of the extension's log about getDiagnostics calls and TypeScript's start (for the figures). */
function diagnosticsLogLines(log: string): string[] {
  return log.split('\n').filter((l) => /getDiagnostics|TypeScript answered/.test(l));
}

describe('vscode-diagnostics-cold: every problem reaches claude from a fresh window', () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  const check = async (name: ScenarioName) => {
    const run = await runCold(name);
    const context = () => ({
      suiteError: run.suiteError?.message.slice(0, 3000),
      log: diagnosticsLogLines(run.extensionLog),
      innerLogTail: run.suite?.log.slice(-30),
    });
    const figures = {
      scenario: name,
      inner: run.inner?.data && { doneAfterMs: run.inner.data.doneAfterMs, cliScreen: run.inner.data.cliScreen },
      claudesCalls: cliDiagnosticsCalls(run.debugLog),
      log: diagnosticsLogLines(run.extensionLog),
      firstCallAfterActivationMs: firstCallAfterActivation(run),
    };
    console.log(JSON.stringify(figures));
    expectInnerPassed(name, run.inner, context);
    expectWithinClaudesBudgets(run);
    return run;
  };

  it('json-review: a new JSON file with a syntax error, accepted with Ctrl+S → "Found 1 new diagnostic issue" and <new-diagnostics>', async () => {
    const run = await check('json-review');
    const last = run.requests[run.requests.length - 1];
    expect(JSON.stringify(freshMessages(last))).toMatch(SCENARIOS['json-review'].expected);
  }, 300_000);

  // The guarantee of docs/diagnostics.md ("When a first check is slower than claude waits"): the request
  // after claude's write carries the problem, or, when TypeScript's first check outlasted claude's 2 s,
  // the note that the file is not checked yet; never nothing. The problem itself reaches the model either
  // way: the model's getDiagnostics {uri} waits for the check, and claude's next {} after TypeScript's
  // report carries it as new, once. Which branch a run took depends on the machine's load; both are asserted whole,
  // and the slow one is forced every run in vscode-diagnostics-dependents (held-back).
  it('ts-accept-edits: a new .ts file with a type error written by claude in accept-edits mode → the problem (or the note, then the problem) in <new-diagnostics>', async () => {
    const run = await check('ts-accept-edits');
    const answering = (id: string) =>
      run.requests.find((r) =>
        freshMessages(r).some((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === id)),
      );
    const afterWrite = JSON.stringify(freshMessages(answering('toolu_nc_cold_0')!));
    const problem = SCENARIOS['ts-accept-edits'].expected;
    const note = /<new-diagnostics>[\s\S]*broken\.ts[\s\S]*Not checked yet/;
    const branch = problem.test(afterWrite) ? 'checked in time' : note.test(afterWrite) ? 'not checked yet' : 'nothing';
    console.log(JSON.stringify({ scenario: 'ts-accept-edits', branch }));
    expect(branch).not.toBe('nothing');
    expect(run.model.toolResultText('toolu_nc_cold_2')).toMatch(/Type 'string' is not assignable to type 'number'/);
    // The problem comes as new at claude's first {} after TypeScript reported it: the one before the
    // request answering the ToolSearch when the report came during that wait (1 run in 7 under load), else
    // the one before the request answering the model's {uri}.
    if (branch === 'not checked yet') {
      const later = ['toolu_nc_cold_1', 'toolu_nc_cold_2'].map((id) => JSON.stringify(freshMessages(answering(id)!)));
      expect(later.filter((fresh) => problem.test(fresh))).toHaveLength(1);
    }
  }, 300_000);

  it("model-uri: the model's getDiagnostics {uri} on a closed .ts file with a type error → the error in the tool result", async () => {
    const run = await check('model-uri');
    const text = run.model.toolResultText('toolu_nc_cold_1');
    expect(text).toMatch(SCENARIOS['model-uri'].expected);
    expect(text).not.toMatch(/still being checked/);
  }, 300_000);
});
