// The language tools (find_definitions, find_references, describe_symbol, file_outline, find_symbols,
// call_hierarchy) through the real server, the SDK's real Client on a real socket, over a temp
// workspace on disk. VS Code's providers are scripted (ScriptedLanguageFeatures): the answers' shaping,
// the positions, the boundary and the bounds are what is tested here; the real providers in code-server.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ScriptedLanguageFeatures, sourceLocation } from '../support/fakeHosts';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

const FILES: Record<string, string> = {
  'src/math.ts': '// double is documented here\nexport function double(n: number) {\n  return n * 2;\n}\n',
  'src/app.ts': 'import { double } from "./math";\nconst x = double(2);\nexport function run() {\n  return double(x);\n}\n',
  'notes.txt': 'double trouble\n',
};

describe('language tools over the /tools route', () => {
  let root: string;
  let ws: string;
  let outside: string;
  const language = new ScriptedLanguageFeatures();
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;
  let client: Client;
  const file = (rel: string) => path.join(ws, rel);
  const call = (name: string, args: Record<string, unknown>) => server.call(client, name, args);

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-lang-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside', 'lib.d.ts');
    for (const [rel, content] of Object.entries(FILES)) {
      await fs.mkdir(path.dirname(file(rel)), { recursive: true });
      await fs.writeFile(file(rel), content);
    }
    await fs.mkdir(path.dirname(outside), { recursive: true });
    await fs.writeFile(outside, 'declare const SECRET_TYPINGS: string;\n');
    const math = file('src/math.ts');
    const app = file('src/app.ts');
    const decl = sourceLocation(math, 1, 16, 6);
    // `double` on app.ts line 2 (0-based 1), column 11 (0-based 10).
    language.definitionsAt.set(`${app}:1:10`, [decl, decl]);
    language.definitionsAt.set(`${app}:1:6`, [sourceLocation(outside, 0, 14, 13)]);
    language.referencesAt.set(`${app}:1:10`, [
      sourceLocation(app, 3, 9, 6),
      decl,
      sourceLocation(app, 1, 10, 6),
      sourceLocation(app, 0, 9, 6),
      sourceLocation(outside, 0, 14, 6),
    ]);
    language.hoverAt.set(`${app}:1:6`, ['```typescript\nconst x: number\n```', 'See [the docs](command:editor.action.showHover) &nbsp;now']);
    const range = (a: number, b: number) => ({ start: { line: a, character: 0 }, end: { line: b, character: 1 } });
    language.outlines.set(app, [
      { name: 'run', kind: 'Function', range: range(2, 4), selectionRange: range(2, 2), children: [] },
      { name: 'x', kind: 'Constant', detail: 'number', range: range(1, 1), selectionRange: range(1, 1), children: [] },
    ]);
    language.outlines.set(math, [
      {
        name: 'double',
        kind: 'Function',
        range: range(1, 3),
        selectionRange: { start: { line: 1, character: 16 }, end: { line: 1, character: 22 } },
        children: [],
      },
    ]);
    language.symbols = [
      { name: 'double', kind: 'Function', location: decl },
      { name: 'doubleAll', kind: 'Function', container: 'math', location: sourceLocation(math, 9, 16) },
    ];
    const item = (name: string, at: ReturnType<typeof sourceLocation>) => ({ name, kind: 'Function', location: at, handle: name });
    language.callsAt.set(`${math}:1:16`, [item('double', decl)]);
    language.incoming.set('double', [{ item: item('run', sourceLocation(app, 2, 16)), callSites: [range(3, 3)] }]);
    language.incoming.set('run', [{ item: item('run', sourceLocation(app, 2, 16)), callSites: [range(9, 9)] }]);
    server = await startWorkspaceToolServer(() => [ws], { language, languageBudgets: { readyMs: 2000, answerMs: 500 } });
    client = await server.tools();
  });

  afterAll(async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('tools/list has the six tools, each small', async () => {
    const { tools } = await client.listTools();
    const ours = ['find_definitions', 'find_references', 'describe_symbol', 'file_outline', 'find_symbols', 'call_hierarchy'];
    for (const name of ours) {
      const tool = tools.find((t) => t.name === name);
      expect(tool).toBeDefined();
      expect(Buffer.byteLength(JSON.stringify(tool))).toBeLessThan(1500);
      expect(tool!.annotations?.readOnlyHint).toBe(true);
    }
  });

  test('find_definitions by line and symbol name: across files, line text shown, duplicates merged', async () => {
    const r = await call('find_definitions', { path: 'src/app.ts', line: 2, symbol: 'double' });
    expect(r.isError).toBeFalsy();
    expect(resultText(r)).toBe('Definition of `double` at src/app.ts:2:11:\nsrc/math.ts:2:17 — export function double(n: number) {');
    // The wait for the language server asks at the name (TypeScript's syntax server answers a definition from the import while the project loads).
    expect(language.asked).toContain(`open ${file('src/app.ts')}:1:10`);
    expect(language.released).toBeGreaterThan(0);
  });

  test('a definition outside the workspace is named, its contents not shown', async () => {
    const r = await call('find_definitions', { path: 'src/app.ts', line: 2, column: 7 });
    expect(resultText(r)).toBe(`Definition of \`x\` at src/app.ts:2:7:\n${outside}:1:15 (outside the workspace: contents not shown)`);
    expect(resultText(r)).not.toContain('SECRET_TYPINGS');
  });

  test('find_references: grouped by file, sorted, line text, the declaration marked, outside named only', async () => {
    const r = await call('find_references', { path: 'src/app.ts', line: 2, symbol: 'double' });
    expect(resultText(r)).toBe(
      [
        'References to `double` at src/app.ts:2:11: 5 references in 3 files',
        `${outside} (outside the workspace: contents not shown)`,
        '  1:15',
        'src/app.ts',
        '  1:10 — import { double } from "./math";',
        '  2:11 — const x = double(2);',
        '  4:10 — return double(x);',
        'src/math.ts',
        '  2:17 (declaration) — export function double(n: number) {',
      ].join('\n'),
    );
  });

  test('describe_symbol: the hover as plain text, code fenced, command links reduced to their label', async () => {
    const r = await call('describe_symbol', { path: 'src/app.ts', line: 2, symbol: 'x' });
    expect(resultText(r)).toBe('`x` at src/app.ts:2:7:\n```typescript\nconst x: number\n```\n\nSee the docs  now');
  });

  test('file_outline: symbols in line order with kinds and 1-based line ranges', async () => {
    const r = await call('file_outline', { path: 'src/app.ts' });
    expect(resultText(r)).toBe('src/app.ts: 2 symbols\nx (constant) line 2 — number\nrun (function) lines 3–5');
  });

  test('find_symbols: exact name first, kind, place and container', async () => {
    const r = await call('find_symbols', { query: 'double' });
    expect(resultText(r)).toBe('2 symbols matching "double":\ndouble (function) src/math.ts:2:17\ndoubleAll (function) src/math.ts:10:17 in math');
  });

  test('call_hierarchy by symbol name alone (workspace search), incoming, depth 2, recursion not expanded', async () => {
    const before = language.asked.length;
    const r = await call('call_hierarchy', { symbol: 'double', depth: 2 });
    expect(language.asked.slice(before)).toContain(`open ${file('src/math.ts')}:1:16`);
    expect(resultText(r)).toBe(
      [
        'Callers of double (function, src/math.ts:2:17), depth 2: 2 found',
        '- run (function) src/app.ts:3:17 — calls at 4:1 (in its file)',
        '  - run (function) src/app.ts:3:17 — calls at 10:1 (in its file) (recursive: not expanded)',
      ].join('\n'),
    );
  });

  test('a name in a file without a line: looked up in its outline', async () => {
    const before = language.asked.length;
    const r = await call('call_hierarchy', { path: 'src/math.ts', symbol: 'double' });
    expect(resultText(r)).toContain('Callers of double');
    expect(language.asked.slice(before, before + 3)).toEqual([
      `open ${file('src/math.ts')}`,
      `outline ${file('src/math.ts')}`,
      `open ${file('src/math.ts')}:1:16`,
    ]);
  });

  test('mistakes get errors saying what to do: a name not on the line, a line past the end, both column and name', async () => {
    const notThere = await call('find_references', { path: 'src/app.ts', line: 1, symbol: 'run' });
    expect(notThere.isError).toBe(true);
    expect(resultText(notThere)).toBe('`run` is not on line 1 of src/app.ts as a whole word. Names on that line: import, double, from, math.');
    expect(resultText(await call('find_references', { path: 'src/app.ts', line: 99, symbol: 'x' }))).toBe('src/app.ts has 5 lines; line 99 does not exist.');
    expect((await call('find_references', { path: 'src/app.ts', line: 2, column: 1, symbol: 'x' })).isError).toBe(true);
    expect((await call('find_references', { line: 2 })).isError).toBe(true);
  });

  test('a file of a language VS Code has no support for: said at once, naming the language', async () => {
    const r = await call('find_references', { path: 'notes.txt', line: 1, symbol: 'double' });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toContain('VS Code has no language support for notes.txt (language "plaintext")');
  });

  test('a file outside the workspace is refused as read_file refuses it', async () => {
    const r = await call('file_outline', { path: outside });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/outside/i);
    expect(language.asked.some((q) => q.includes(outside) && q.startsWith('outline'))).toBe(false);
  });

  test("a file with unsaved edits: a reference's line text and a position's line are the open document's (the disk's lines moved), the boundary still holds", async () => {
    const math = file('src/math.ts');
    const app = file('src/app.ts');
    // A line added at the top of math.ts in the editor, not saved: the provider answers about the buffer.
    language.openDocuments.set(math, `// added, not saved\n${FILES['src/math.ts']}`);
    // A file outside the workspace that VS Code holds open: still named only.
    language.openDocuments.set(outside, 'declare const SECRET_TYPINGS: string;\n');
    language.referencesAt.set(`${app}:3:9`, [sourceLocation(math, 2, 16, 6), sourceLocation(app, 3, 9, 6), sourceLocation(outside, 0, 14, 6)]);
    try {
      const r = await call('find_references', { path: 'src/app.ts', line: 4, symbol: 'double' });
      expect(resultText(r)).toBe(
        [
          'References to `double` at src/app.ts:4:10: 3 references in 3 files',
          `${outside} (outside the workspace: contents not shown)`,
          '  1:15',
          'src/app.ts',
          '  4:10 — return double(x);',
          'src/math.ts',
          '  3:17 — export function double(n: number) {',
        ].join('\n'),
      );
      // A position is asked in the buffer too: the line the model names is the editor's line 3.
      language.definitionsAt.set(`${math}:2:16`, [sourceLocation(math, 2, 16, 6)]);
      const d = await call('find_definitions', { path: 'src/math.ts', line: 3, symbol: 'double' });
      expect(resultText(d)).toBe('Definition of `double` at src/math.ts:3:17:\nsrc/math.ts:3:17 — export function double(n: number) {');
    } finally {
      language.openDocuments.clear();
      language.referencesAt.delete(`${app}:3:9`);
      language.definitionsAt.delete(`${math}:2:16`);
    }
  });

  test("a file VS Code holds open is not stat'ed (its buffer is asked about), and a location in the asked file is not looked up again", async () => {
    const math = file('src/math.ts');
    language.openDocuments.set(math, FILES['src/math.ts']);
    language.definitionsAt.set(`${math}:1:16`, [sourceLocation(math, 1, 16, 6)]);
    const stat = jest.spyOn(fs, 'stat');
    const realpath = jest.spyOn(fs, 'realpath');
    const of = (spy: jest.SpyInstance, p: string) => spy.mock.calls.filter(([asked]) => String(asked) === p).length;
    try {
      const outline = await call('file_outline', { path: 'src/math.ts' });
      expect(resultText(outline)).toBe('src/math.ts: 1 symbol\ndouble (function) lines 2–4');
      expect(of(stat, math)).toBe(0);
      realpath.mockClear();
      const d = await call('find_definitions', { path: 'src/math.ts', line: 2, symbol: 'double' });
      expect(resultText(d)).toBe('Definition of `double` at src/math.ts:2:17:\nsrc/math.ts:2:17 — export function double(n: number) {');
      // The path asked about, once: the definition in that file takes the call's own check.
      expect(of(realpath, math)).toBe(1);
      // find_references' files (app.ts asked about, math.ts referenced): math.ts's check is one lstat of
      // its entry (src's real path looked up once), not a realpath of the file.
      language.openDocuments.clear();
      const lstat = jest.spyOn(fs, 'lstat');
      realpath.mockClear();
      stat.mockClear();
      try {
        const r = await call('find_references', { path: 'src/app.ts', line: 2, symbol: 'double' });
        expect(resultText(r)).toMatch(/^src\/math\.ts\n {2}2:17 \(declaration\) — export function double/m);
        // (Its lines are then read, or taken as kept, by their own rules: recentFileLines.ts.)
        expect([of(realpath, math), of(lstat, math)]).toEqual([0, 1]);
      } finally {
        lstat.mockRestore();
      }
      // A file not open is still stat'ed (it must be a regular file).
      stat.mockClear();
      expect((await call('file_outline', { path: 'src/math.ts' })).isError).toBeFalsy();
      expect(of(stat, math)).toBe(1);
    } finally {
      stat.mockRestore();
      realpath.mockRestore();
      language.openDocuments.clear();
      language.definitionsAt.delete(`${math}:1:16`);
    }
  });

  test('an empty answer says which provider found nothing (never an empty list)', async () => {
    const r = await call('find_definitions', { path: 'src/app.ts', line: 3, symbol: 'run' });
    expect(resultText(r)).toBe("Definition of `run` at src/app.ts:3:17: none. VS Code's definition provider for typescript found none at that position.");
  });
});
