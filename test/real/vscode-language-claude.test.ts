/**
 * The language tools as the model gets them: ONE fresh code-server window (new user data, new extension
 * host, TypeScript cold) on a small TypeScript project with cross-file imports (test/support/languageProject.ts),
 * the real `claude` (2.1.328) typed into its terminal with the tools route registered as the extension
 * installs it, and a scripted model that asks, through ToolSearch then `mcp__vscode__<tool>`:
 *
 *   definition  find_definitions of `double` where app.ts calls it: math.ts's declaration (another file).
 *   references  find_references of math.ts's exported `double`: exactly its real uses, the declaration
 *               marked; not the comment, the string, nor other/double.ts's function of the same name.
 *   hover       describe_symbol of app.ts's `result` (its type inferred): `const result: number`.
 *   outline     file_outline of math.ts: nested symbols with kinds and line ranges.
 *   symbols     find_symbols `Calculator`: the class, where it is.
 *   calls       call_hierarchy (incoming) of `double`: `add` and `run`, with their call sites.
 *
 * The first scenario's call is the window's first question to TypeScript; the rounds after the first
 * (NC_LANGUAGE_ROUNDS, default 2) ask the same again in the same window (a window with history). Checked
 * here: the tool_result each call gave the model (exact files, lines and columns), and claude's debug log
 * (every call completed, none failed, aborted or timed out). Each answer is printed on a line starting
 * `language-claude answer` (the tool, the model's question, how long the model waited, the answer).
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-language-claude.test.ts
 *   bash test/setup/repeat-real-test.sh 10 test/real/vscode-language-claude.test.ts
 * NC_LANGUAGE_DEBUG=1 prints the inner results, the extension's log and claude's debug lines about the tools.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { placeIn as place, writeLanguageProject } from '../support/languageProject';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { cliMcpToolCalls, cliMcpToolTrouble } from './harness/claudeDiagnostics';
import { codeServerAvailable, compileInnerSuites } from './harness/codeServer';
import { contentBlocks, freshMessages, scenarioModel, startFakeModel, type ReplyFn, type ToolUse } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { expectInnerPassed, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';

const ROUNDS = Number(process.env.NC_LANGUAGE_ROUNDS ?? 2);

/** `line:column` of a place (its file is the group's heading in find_references' answer). */
const at = (p: string) => p.split(':').slice(1).join(':');

/** Each scenario: the tool, the model's question, and the check of the answer it got. */
const QUESTIONS: Record<string, { tool: string; input: Record<string, unknown>; expectAnswer: (text: string) => void }> = {
  definition: {
    tool: 'find_definitions',
    input: { path: 'src/app.ts', line: 6, symbol: 'double' },
    expectAnswer: (text) =>
      expect(text).toBe(
        `Definition of \`double\` at ${place('src/app.ts', 'const result', 'double')}:\n${place('src/math.ts', 'export function double', 'double')} — export function double(n: number): number {`,
      ),
  },
  references: {
    tool: 'find_references',
    input: { path: 'src/math.ts', line: 2, symbol: 'double' },
    expectAnswer: (text) =>
      expect(text).toBe(
        [
          `References to \`double\` at ${place('src/math.ts', 'export function double', 'double')}: 5 references in 2 files`,
          'src/app.ts',
          `  ${at(place('src/app.ts', 'import', 'double'))} — import { double } from './math';`,
          `  ${at(place('src/app.ts', 'const result', 'double'))} — const result = double(21);`,
          `  ${at(place('src/app.ts', 'return result', 'double'))} — return result + double(1) + label.length;`,
          'src/math.ts',
          `  ${at(place('src/math.ts', 'export function double', 'double'))} (declaration) — export function double(n: number): number {`,
          `  ${at(place('src/math.ts', 'this.total +=', 'double'))} — this.total += double(n);`,
        ].join('\n'),
      ),
  },
  hover: {
    tool: 'describe_symbol',
    input: { path: 'src/app.ts', line: 6, symbol: 'result' },
    expectAnswer: (text) =>
      expect(text).toMatch(new RegExp(`^\`result\` at ${place('src/app.ts', 'const result', 'result')}:\n\`\`\`typescript\nconst result: number\n\`\`\`$`)),
  },
  outline: {
    tool: 'file_outline',
    input: { path: 'src/math.ts' },
    expectAnswer: (text) => {
      expect(text).toMatch(/^src\/math\.ts: 4 symbols\n/);
      expect(text).toMatch(/^double \(function\) lines \d–4$/m);
      expect(text).toMatch(/^Calculator \(class\) lines 6–12$/m);
      expect(text).toMatch(/^ {2}total \(property\) line 7$/m);
      expect(text).toMatch(/^ {2}add \(method\) lines 8–11$/m);
      expect(text.split('\n')).toHaveLength(5);
    },
  },
  symbols: {
    tool: 'find_symbols',
    input: { query: 'Calculator' },
    // TypeScript's workspace symbol location is the declaration's start (`export class…`), column 1.
    expectAnswer: (text) => expect(text).toBe('1 symbol matching "Calculator":\nCalculator (class) src/math.ts:6:1'),
  },
  calls: {
    tool: 'call_hierarchy',
    input: { path: 'src/math.ts', line: 2, symbol: 'double' },
    expectAnswer: (text) => {
      const [heading, ...callers] = text.split('\n');
      expect(heading).toBe(`Callers of double (function, ${place('src/math.ts', 'export function double', 'double')}), depth 1: 2 found`);
      expect(callers.sort()).toEqual([
        expect.stringMatching(new RegExp(`^- add \\(method\\) ${place('src/math.ts', '  add(', 'add')} — calls at 9:\\d+ \\(in its file\\)$`)),
        expect.stringMatching(
          new RegExp(`^- run \\(function\\) ${place('src/app.ts', 'export function run', 'run')} — calls at 6:\\d+, 7:\\d+ \\(in its file\\)$`),
        ),
      ]);
    },
  },
};

const toolName = (tool: string) => `mcp__${TOOLS_SERVER_NAME}__${tool}`;
/** The scenario `<question>-<round>`'s calls: ToolSearch loads the tool (claude 2.1 defers MCP tools), then the question. */
const stepsOf = (scenario: string): ToolUse[] => {
  const q = QUESTIONS[scenario.replace(/-\d+$/, '')];
  if (!q) throw new Error(`no question for ${scenario}`);
  return [
    { name: 'ToolSearch', input: { query: `select:${toolName(q.tool)}`, max_results: 1 } },
    { name: toolName(q.tool), input: q.input },
  ];
};
/** The id of the scenario's question (its second call; scenarioModel numbers them from 0). */
const questionId = (scenario: string) => `toolu_nc_lang_${scenario}_1`;

describe('vscode-language-claude: the language tools answer the real claude CLI, from a fresh window and in a window with history', () => {
  beforeAll(() => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
  });

  it('definition, references, hover, outline, workspace symbol, incoming calls: each answer exact, every round', async () => {
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    const model = await startFakeModel();
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-language-claude-')));
    writeLanguageProject(workspace);
    const scenarios = Array.from({ length: ROUNDS }, (_, r) => Object.keys(QUESTIONS).map((q) => `${q}-${r + 1}`)).flat();
    // The model's side of each call: when the call was sent, and when its result came back.
    const sentAt = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    const scripted = scenarioModel('lang', stepsOf);
    const timed: ReplyFn = async (request) => {
      const now = Date.now();
      for (const b of contentBlocks(freshMessages(request)))
        if (b.type === 'tool_result' && b.tool_use_id && !answeredAt.has(b.tool_use_id)) answeredAt.set(b.tool_use_id, now);
      const reply = await scripted(request);
      if ('toolUse' in reply && reply.toolUse?.id) sentAt.set(reply.toolUse.id, now);
      return reply;
    };
    model.respond(...Array.from({ length: 10 * scenarios.length }, () => timed));
    const specPath = `${workspace}-spec.json`;
    const resultsPath = `${specPath}.results.json`;
    const ic = prepareIntegratedClaude({
      workspace,
      modelUrl: model.url,
      env: { NC_LANGUAGE_CLAUDE_SPEC: specPath },
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}`] } },
    });
    const debugFile = path.join(ic.root, 'claude-debug.log');
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath, debugFile, scenarios }));
    let debugLog = '';
    const {
      suite,
      suiteError,
      results: inner,
      extensionLog,
    } = await runClaudeInnerSuite<InnerResult>({
      ic,
      model,
      server: { workspace, vsixPaths: [vsix], userSettings: { 'git.enabled': false, 'files.autoSave': 'off', 'workbench.startupEditor': 'none' } },
      run: { files: ['language-claude'], timeout: 600_000, timeoutMs: 700_000, name: 'language-claude' },
      resultsPath,
      after: async () => {
        debugLog = fs.existsSync(debugFile) ? fs.readFileSync(debugFile, 'utf8') : '';
      },
    });
    try {
      const tools = Object.values(QUESTIONS).map((q) => q.tool);
      if (process.env.NC_LANGUAGE_DEBUG) {
        const toolLines = debugLog.split('\n').filter((l) => tools.some((t) => l.includes(t)));
        console.log(
          `--- inner\n${JSON.stringify(inner, null, 2)}\n--- extension log\n${extensionLog.slice(-12000)}\n--- claude debug (the tools)\n${toolLines.slice(-80).join('\n')}\n--- inner log\n${suite?.log.slice(-60).join('\n')}`,
        );
      }
      const cliCalls = Object.fromEntries(tools.map((t) => [t, cliMcpToolCalls(debugLog, TOOLS_SERVER_NAME, t)]));
      // What the model asked and got, for the record (one findable line per call).
      const heard = scenarios.map((name) => {
        const q = QUESTIONS[name.replace(/-\d+$/, '')];
        const id = questionId(name);
        const round = Number(/-(\d+)$/.exec(name)![1]);
        const entry = {
          scenario: name,
          tool: q.tool,
          question: q.input,
          modelWaitedMs: (answeredAt.get(id) ?? NaN) - (sentAt.get(id) ?? NaN),
          cliMs: cliCalls[q.tool][round - 1]?.spanMs,
          answer: model.toolResultText(id),
        };
        console.log(`language-claude answer ${JSON.stringify(entry)}`);
        return entry;
      });
      console.log(`language-claude figures ${JSON.stringify({ inner: inner?.data, cliCalls })}`);
      expectInnerPassed('language-claude', inner, () => ({
        suiteError: suiteError?.message.slice(0, 3000),
        innerLogTail: suite?.log.slice(-40),
        log: extensionLog.split('\n').slice(-30),
      }));
      for (const { scenario, answer } of heard) {
        const q = QUESTIONS[scenario.replace(/-\d+$/, '')];
        expect({ scenario, answered: answer !== undefined, isError: model.toolResult(questionId(scenario))?.is_error === true }).toEqual({
          scenario,
          answered: true,
          isError: false,
        });
        q.expectAnswer(answer!);
      }
      // claude's debug log: every call of each tool started and completed (one per round), none failed,
      // was aborted or timed out.
      for (const tool of tools) {
        expect({
          tool,
          started: (debugLog.match(new RegExp(`Calling MCP tool: ${tool}\\b`, 'g')) ?? []).length,
          completed: cliCalls[tool].filter((c) => Number.isFinite(c.ms)).length,
          trouble: cliMcpToolTrouble(debugLog, tool),
        }).toEqual({ tool, started: ROUNDS, completed: ROUNDS, trouble: [] });
      }
    } finally {
      for (const p of [specPath, resultsPath]) fs.rmSync(p, { force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }, 900_000);
});
