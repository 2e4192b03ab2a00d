/**
 * The language tools (find_definitions, find_references, describe_symbol, file_outline, find_symbols,
 * call_hierarchy) with VS Code's own TypeScript server, from a FRESH window: a new code-server (new user
 * data, new extension host, TypeScript cold) on a small TypeScript project with cross-file imports,
 * written before the window opens. The inner suite (test/vscode/suites/language-features.test.ts) calls the
 * tools over the real socket with the MCP SDK's Client, as the CLI's tools entry does; its first call is
 * the window's first question to TypeScript. Checked: a definition across files; the references of an
 * exported function are exactly its real uses (not the comment, the string, nor the same-named function
 * of another module); the hover of an inferred variable; the outline; a workspace symbol; the incoming
 * calls; a symbol named alone; a definition in TypeScript's lib files (outside: named, no contents); a
 * reference provider that never answers (bounded, said); a plain text file's missing language support.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-language.test.ts
 *   bash test/setup/repeat-real-test.sh 10 test/real/vscode-language.test.ts
 * NC_LANGUAGE_DEBUG=1 prints the inner log and results.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isolatedEnv } from './harness/claudeCli';
import { codeServerAvailable, compileInnerSuites, type SuiteResult } from './harness/codeServer';
import { runInnerSuite } from './harness/innerSuite';
import { expectInnerPassed as expectInner, innerFailureContext, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';
import { writeLanguageProject } from '../support/languageProject';

const INNER_KEYS = [
  'lang-definition',
  'lang-references',
  'lang-hover',
  'lang-outline',
  'lang-symbols',
  'lang-calls',
  'lang-by-name',
  'lang-no-support',
  'lang-outside',
  'lang-stuck',
  'lang-overhead',
  'lang-unsaved',
];

describe('vscode-language', () => {
  let root = '';
  let run: SuiteResult | undefined;
  let runError: Error | undefined;
  let results: Record<string, InnerResult> = {};

  const expectInnerPassed = (key: string) => expectInner(key, results[key], () => innerFailureContext(results[key], run, runError));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-language-')));
    const workspace = path.join(root, 'workspace');
    const home = path.join(root, 'home');
    const configDir = path.join(root, 'config');
    for (const d of [workspace, home, configDir]) fs.mkdirSync(d);
    writeLanguageProject(workspace);
    const resultsPath = path.join(root, 'results.json');
    const inner = await runInnerSuite<Record<string, InnerResult>>({
      server: {
        workspace,
        vsixPaths: [vsix],
        env: isolatedEnv({ HOME: home, CLAUDE_CONFIG_DIR: configDir, NC_TOOLS_RESULTS: resultsPath }),
        userSettings: { 'git.enabled': false, 'files.autoSave': 'off' },
      },
      run: { files: ['language-features'], timeout: 120_000, timeoutMs: 300_000, name: 'vscode-language' },
      resultsPath,
    });
    ({ suite: run, suiteError: runError } = inner);
    results = inner.results ?? {};
    if (process.env.NC_LANGUAGE_DEBUG)
      console.log(JSON.stringify({ exitCode: run?.exitCode, durationMs: run?.durationMs, results }, null, 2), '\n', run?.log.join('\n'));
    const figures = Object.fromEntries(INNER_KEYS.map((k) => [k, results[k]?.ms]));
    console.log(`vscode-language figures (ms per inner test): ${JSON.stringify({ ...figures, firstQueryMs: results['lang-definition']?.data?.ms })}`);
    console.log(
      `vscode-language overhead (p50 of 15, tool over the socket vs the provider command in the window): ${JSON.stringify(results['lang-overhead']?.data)}`,
    );
  }, 420_000);

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('ran every inner test (none skipped or missing)', () => {
    expect({ exitCode: run?.exitCode, runError: runError?.message.slice(0, 3000) }).toMatchObject({ exitCode: expect.any(Number), runError: undefined });
    expect(Object.keys(results).sort()).toEqual([...INNER_KEYS].sort());
  });

  it('a definition across files, asked first in the fresh window', () => {
    expectInnerPassed('lang-definition');
  });
  it('the references of an exported function: exactly its real uses, the declaration marked', () => {
    expectInnerPassed('lang-references');
  });
  it('the hover of an inferred variable: its type', () => {
    expectInnerPassed('lang-hover');
  });
  it("a file's outline: nested, kinds, line ranges", () => {
    expectInnerPassed('lang-outline');
  });
  it('a workspace symbol by name', () => {
    expectInnerPassed('lang-symbols');
  });
  it('the incoming calls of a function', () => {
    expectInnerPassed('lang-calls');
  });
  it('a symbol named alone, found through the workspace symbol search', () => {
    expectInnerPassed('lang-by-name');
  });
  it("a definition in TypeScript's lib files, outside the workspace: named, its contents not shown", () => {
    expectInnerPassed('lang-outside');
  });
  it("a provider that never answers (another extension's bug): a bounded wait, said so", () => {
    expectInnerPassed('lang-stuck');
  });
  it('each tool measured against the provider command it calls (figures printed)', () => {
    expectInnerPassed('lang-overhead');
  });
  it("unsaved edits that move lines: positions and line texts are the editor's", () => {
    expectInnerPassed('lang-unsaved');
  });
  it('a plain text file: the missing language support said at once', () => {
    expectInnerPassed('lang-no-support');
  });
});
