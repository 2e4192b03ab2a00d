// Hardening — the language tools (find_references and the others) against what a workspace, a peer or
// another extension can throw at them: a symlinked file leading outside, locations outside the
// workspace in a provider's answer (their contents never shown), a provider that never answers (a
// bounded wait, said so, the connection still serving), and 10,000 references (capped, total said).
// Real server, real sockets, real temp folders; VS Code's providers scripted (ScriptedLanguageFeatures).

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ScriptedLanguageFeatures, sourceLocation } from '../support/fakeHosts';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';
import { REFERENCES_SHOWN } from '../../src/tools/findReferences';

jest.setTimeout(60_000);

const SECRET = 'TOP_SECRET_OUTSIDE';
const ANSWER_MS = 400;
const READY_MS = 600;

describe('hardening: language tools', () => {
  let root: string;
  let ws: string;
  let outside: string;
  let language: ScriptedLanguageFeatures;
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;
  const figures: string[] = [];
  const abs = (rel: string) => path.join(ws, rel);

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-lang-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    await fs.mkdir(path.join(ws, 'src'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.ts'), `export const ${SECRET} = "${SECRET}";\nexport function use() { return ${SECRET}; }\n`);
    await fs.writeFile(abs('src/main.ts'), `import { ${SECRET} } from "../linked/secret";\nexport const v = ${SECRET};\n`);
    // A file and a folder of the workspace that are links to outside.
    await fs.symlink(path.join(outside, 'secret.ts'), abs('src/link.ts'));
    await fs.symlink(outside, abs('linked'));
    language = new ScriptedLanguageFeatures();
    server = await startWorkspaceToolServer(() => [ws], { language, languageBudgets: { readyMs: READY_MS, answerMs: ANSWER_MS } });
  });

  afterAll(async () => {
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });

    console.log(`hardening/language tools figures:\n  ${figures.join('\n  ')}`);
  });

  beforeEach(() => language.hang.clear());

  test('a symlinked file leading outside is refused before any provider is asked', async () => {
    const client = await server.tools();
    for (const args of [
      { path: 'src/link.ts', line: 1, symbol: SECRET },
      { path: 'linked/secret.ts', line: 2, column: 20 },
      { path: 'src/link.ts', symbol: 'use' },
    ]) {
      const before = language.asked.length;
      const r = await server.call(client, 'find_references', args);
      expect(r.isError).toBe(true);
      expect(resultText(r)).toMatch(/outside the workspace/);
      expect(resultText(r)).not.toContain(`"${SECRET}"`);
      expect(language.asked.slice(before)).toEqual([]);
    }
    const outline = await server.call(client, 'file_outline', { path: 'src/link.ts' });
    expect(outline.isError).toBe(true);
  });

  test('definitions and references outside the workspace, directly or through a link inside it: named, contents never shown', async () => {
    const client = await server.tools();
    const main = abs('src/main.ts');
    const at = `${main}:1:17`; // `SECRET` on line 2, column 18
    language.definitionsAt.set(at, [
      sourceLocation(path.join(outside, 'secret.ts'), 0, 13, SECRET.length),
      sourceLocation(abs('linked/secret.ts'), 0, 13, SECRET.length),
    ]);
    language.referencesAt.set(at, [
      sourceLocation(main, 1, 17),
      sourceLocation(path.join(outside, 'secret.ts'), 1, 31),
      sourceLocation(abs('linked/secret.ts'), 1, 31),
      sourceLocation(abs('src/link.ts'), 0, 13),
    ]);
    for (const tool of ['find_definitions', 'find_references']) {
      const r = await server.call(client, tool, { path: 'src/main.ts', line: 2, symbol: SECRET });
      const text = resultText(r);
      expect(r.isError).toBeFalsy();
      expect(text).not.toContain(`"${SECRET}"`); // the outside file's line text
      expect(text).not.toContain('return');
      expect(text).toContain('outside the workspace: contents not shown');
      if (tool === 'find_references') {
        expect(text).toContain(`  2:18 — export const v = ${SECRET};`); // the inside one has its text
        expect(text).toMatch(/^linked\/secret\.ts \(outside the workspace: contents not shown\)$/m);
        expect(text).toMatch(/^src\/link\.ts \(outside the workspace: contents not shown\)$/m);
      }
    }
  });

  test("VS Code's open documents (unsaved text) of files outside, directly or through a link inside: never shown; an inside buffer's huge line cut", async () => {
    const client = await server.tools();
    const main = abs('src/main.ts');
    const at = `${main}:0:9`; // `SECRET` on line 1, column 10
    const unsaved = `export const ${SECRET} = "${SECRET}-UNSAVED";\nexport function use() { return ${SECRET}; }\n`;
    for (const p of [path.join(outside, 'secret.ts'), abs('linked/secret.ts'), abs('src/link.ts')]) language.openDocuments.set(p, unsaved);
    const huge = abs('src/huge.ts');
    await fs.writeFile(huge, 'export const short = 1;\n');
    // The buffer holds a 10 MB line (the disk a short one): its text is what is shown, cut.
    language.openDocuments.set(huge, `export const long = "${'x'.repeat(10_000_000)}";\n`);
    language.referencesAt.set(at, [
      sourceLocation(path.join(outside, 'secret.ts'), 0, 13),
      sourceLocation(abs('linked/secret.ts'), 0, 13),
      sourceLocation(abs('src/link.ts'), 0, 13),
      sourceLocation(huge, 0, 13),
    ]);
    try {
      const r = await server.call(client, 'find_references', { path: 'src/main.ts', line: 1, symbol: SECRET });
      const text = resultText(r);
      expect(r.isError).toBeFalsy();
      expect(text).not.toContain('UNSAVED');
      expect(text).not.toContain('return');
      expect(text.match(/\(outside the workspace: contents not shown\)/g)).toHaveLength(3);
      expect(text).toMatch(/^ {2}1:14 — export const long = "x{170,}…$/m);
      expect(Buffer.byteLength(text)).toBeLessThan(2_000);
    } finally {
      language.openDocuments.clear();
    }
  });

  test('a file whose lines an earlier call kept, replaced by a link leading outside: named, its contents not shown', async () => {
    const client = await server.tools();
    const main = abs('src/main.ts');
    const shared = abs('src/shared.ts');
    await fs.writeFile(shared, `export const inside = 1; // the kept line\n`);
    // Kept only once settled (not written within the last 2 s).
    await new Promise((r) => setTimeout(r, 2100));
    const at = `${main}:1:13`; // `v` on line 2
    language.referencesAt.set(at, [sourceLocation(shared, 0, 13)]);
    const first = await server.call(client, 'find_references', { path: 'src/main.ts', line: 2, symbol: 'v' });
    expect(resultText(first)).toContain('1:14 — export const inside = 1; // the kept line');
    const second = await server.call(client, 'find_references', { path: 'src/main.ts', line: 2, symbol: 'v' });
    expect(resultText(second)).toContain('the kept line');
    await fs.rm(shared);
    await fs.symlink(path.join(outside, 'secret.ts'), shared);
    const swapped = await server.call(client, 'find_references', { path: 'src/main.ts', line: 2, symbol: 'v' });
    expect(resultText(swapped)).not.toContain('the kept line');
    expect(resultText(swapped)).not.toContain(`"${SECRET}"`);
    expect(resultText(swapped)).toMatch(/^src\/shared\.ts \(outside the workspace: contents not shown\)$/m);
    language.referencesAt.delete(at);
  });

  test('a folder or a FIFO where a source file was expected: said at once, no provider asked, nothing opened; a FIFO swapped in under an open buffer is not read', async () => {
    const client = await server.tools();
    await fs.mkdir(abs('src/folder.ts'), { recursive: true });
    execFileSync('mkfifo', [abs('src/pipe.ts')]);
    try {
      for (const [tool, args] of [
        ['file_outline', { path: 'src/folder.ts' }],
        ['file_outline', { path: 'src/pipe.ts' }],
        ['find_definitions', { path: 'src/pipe.ts', symbol: 'v' }],
        ['find_definitions', { path: 'src/pipe.ts', line: 1, column: 1 }],
      ] as const) {
        const before = language.asked.length;
        const r = await server.call(client, tool, args);
        expect(r.isError).toBe(true);
        expect(resultText(r)).toMatch(/is not a file|not a regular file/);
        expect(language.asked.slice(before)).toEqual([]);
      }
      // VS Code holds src/swapped.ts open; on disk a FIFO took its place (a read of it would never end).
      // The providers answer about the buffer: the tool asks there and never opens the FIFO.
      const swapped = abs('src/swapped.ts');
      execFileSync('mkfifo', [swapped]);
      language.openDocuments.set(swapped, 'export function inBuffer() {}\n');
      const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 29 } };
      language.outlines.set(swapped, [{ name: 'inBuffer', kind: 'Function', range, selectionRange: range, children: [] }]);
      const outline = await server.call(client, 'file_outline', { path: 'src/swapped.ts' });
      expect(resultText(outline)).toBe('src/swapped.ts: 1 symbol\ninBuffer (function) line 1');
      const d = await server.call(client, 'find_definitions', { path: 'src/swapped.ts', line: 1, symbol: 'inBuffer' });
      expect(resultText(d)).toMatch(/^Definition of `inBuffer` at src\/swapped\.ts:1:17: none\./);
    } finally {
      language.openDocuments.clear();
      await fs.rm(abs('src/folder.ts'), { recursive: true, force: true });
      await fs.rm(abs('src/pipe.ts'), { force: true });
      await fs.rm(abs('src/swapped.ts'), { force: true });
    }
  });

  test('a provider that never answers costs a bounded wait, is said, and the connection goes on serving', async () => {
    const client = await server.tools();
    const timings: string[] = [];
    const cases: Array<[Parameters<ScriptedLanguageFeatures['hang']['add']>[0], string, Record<string, unknown>, RegExp, number]> = [
      [
        'references',
        'find_references',
        { path: 'src/main.ts', line: 2, symbol: 'v' },
        /reference provider for typescript did not answer within 400 ms/,
        ANSWER_MS,
      ],
      ['hover', 'describe_symbol', { path: 'src/main.ts', line: 2, symbol: 'v' }, /hover provider .* did not answer/, ANSWER_MS],
      ['outline', 'file_outline', { path: 'src/main.ts' }, /document symbol provider .* did not answer/, ANSWER_MS],
      ['workspaceSymbols', 'find_symbols', { query: 'v' }, /workspace symbol provider did not answer/, ANSWER_MS],
      ['prepareCallHierarchy', 'call_hierarchy', { path: 'src/main.ts', line: 2, symbol: 'v' }, /call hierarchy provider .* did not answer/, ANSWER_MS],
      ['open', 'find_definitions', { path: 'src/main.ts', line: 2, symbol: 'v' }, /had not loaded src\/main\.ts after 600 ms.*nothing was checked/, READY_MS],
    ];
    for (const [method, tool, args, said, bound] of cases) {
      language.hang.clear();
      language.hang.add(method);
      const started = Date.now();
      const r = await server.call(client, tool, args);
      const ms = Date.now() - started;
      timings.push(`${tool} (${method} stuck): ${ms} ms`);
      expect(r.isError).toBe(true);
      expect(resultText(r)).toMatch(said);
      expect(ms).toBeGreaterThanOrEqual(bound - 50);
      expect(ms).toBeLessThan(bound + 3000);
    }
    // The definition provider (asked beside the references to mark the declaration) stuck: the references come, unmarked, said so.
    language.hang.clear();
    language.hang.add('definitions');
    language.referencesAt.set(`${abs('src/main.ts')}:1:13`, [sourceLocation(abs('src/main.ts'), 1, 13)]);
    const unmarked = await server.call(client, 'find_references', { path: 'src/main.ts', line: 2, symbol: 'v' });
    expect(unmarked.isError).toBeFalsy();
    expect(resultText(unmarked)).toMatch(/^ {2}2:14 — export const v = .*\n\(declaration not marked: the definition provider did not answer in time\)$/m);
    language.hang.clear();
    const after = await server.call(client, 'file_outline', { path: 'src/main.ts' });
    expect(after.isError).toBeFalsy();
    figures.push(`stuck providers answered after: ${timings.join('; ')}`);
  });

  test('a call hierarchy whose deeper steps never answer: one bound paid, the rest not asked, the answer says so', async () => {
    const client = await server.tools();
    const main = abs('src/main.ts');
    const item = (name: string, line: number) => ({ name, kind: 'Function', location: sourceLocation(main, line, 0), handle: name });
    language.callsAt.set(`${main}:1:13`, [item('v', 1)]);
    language.incoming.set(
      'v',
      Array.from({ length: 50 }, (_, i) => ({ item: item(`caller${i}`, 10 + i), callSites: [] })),
    );
    for (let i = 0; i < 50; i++) language.hangCallsOf.add(`caller${i}`);
    const started = Date.now();
    const r = await server.call(client, 'call_hierarchy', { path: 'src/main.ts', line: 2, symbol: 'v', depth: 3 });
    const ms = Date.now() - started;
    const text = resultText(r);
    expect(r.isError).toBeFalsy();
    expect(text).toMatch(/^ {2}\(not answered in time\)$/m);
    expect(text.match(/not expanded: the provider stopped answering/g)).toHaveLength(49);
    expect(language.asked.filter((q) => /^incomingCalls caller/.test(q))).toHaveLength(1);
    expect(ms).toBeLessThan(ANSWER_MS + 3000);
    figures.push(`call hierarchy, 50 callers whose callers never answer: ${ms} ms`);
  });

  test('10,000 references: capped, the total said, the answer small', async () => {
    const client = await server.tools();
    const many = abs('src/many.ts');
    await fs.writeFile(many, Array.from({ length: 10_000 }, (_, i) => `call(${i});`).join('\n') + '\n');
    language.referencesAt.set(
      `${many}:0:0`,
      Array.from({ length: 10_000 }, (_, i) => sourceLocation(many, 9_999 - i, 0, 4)),
    );
    const started = Date.now();
    const r = await server.call(client, 'find_references', { path: 'src/many.ts', line: 1, symbol: 'call' });
    const ms = Date.now() - started;
    const text = resultText(r);
    const lines = text.split('\n');
    expect(lines[0]).toBe('References to `call` at src/many.ts:1:1: 10000 references in 1 file');
    expect(lines.filter((l) => /^ {2}\d+:\d+/.test(l))).toHaveLength(REFERENCES_SHOWN);
    expect(lines[2]).toBe('  1:1 — call(0);'); // sorted by position
    expect(lines[lines.length - 1]).toBe(`truncated: ${REFERENCES_SHOWN} of 10000 shown.`);
    expect(Buffer.byteLength(text)).toBeLessThan(20_000);
    figures.push(`10,000 references: ${Buffer.byteLength(text)} bytes, ${REFERENCES_SHOWN} shown, ${ms} ms`);
  });
});
