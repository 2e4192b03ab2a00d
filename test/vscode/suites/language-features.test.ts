/**
 * The language tools with VS Code's own TypeScript server, from a fresh window: the outer test
 * (test/real/vscode-language.test.ts) writes a small TypeScript project with cross-file imports, starts a
 * new code-server, and runs this suite; its first call is the window's first question to TypeScript.
 * The tools are called over the real socket with the MCP SDK's Client (port and token from the lock file).
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, describe, it } from '../bdd';
import { placeIn as place } from '../../support/languageProject';
import { record, toolsSuite, type ToolsConnection } from '../toolsClient';

describe("language tools (VS Code's TypeScript server, fresh window)", function () {
  this.timeout(120_000);
  let t: ToolsConnection;
  let ws: string;
  toolsSuite(async (conn, root) => {
    t = conn;
    ws = root;
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('[lang-definition] find_definitions across files, the first question of the window (TypeScript cold)', async () => {
    const started = Date.now();
    const answer = await t.call('find_definitions', { path: 'src/app.ts', line: 6, symbol: 'double' });
    record('lang-definition', { ms: Date.now() - started, answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    assert.strictEqual(
      answer.text,
      `Definition of \`double\` at ${place('src/app.ts', 'const result', 'double')}:\n${place('src/math.ts', 'export function double', 'double')} — export function double(n: number): number {`,
    );
  });

  it("[lang-references] find_references: exactly the real uses (not the comment, the string or the other module's double)", async () => {
    const answer = await t.call('find_references', { path: 'src/math.ts', line: 2, symbol: 'double' });
    record('lang-references', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    const at = (p: string) => p.split(':').slice(1).join(':');
    const expected = [
      `References to \`double\` at ${place('src/math.ts', 'export function double', 'double')}: 5 references in 2 files`,
      'src/app.ts',
      `  ${at(place('src/app.ts', 'import', 'double'))} — import { double } from './math';`,
      `  ${at(place('src/app.ts', 'const result', 'double'))} — const result = double(21);`,
      `  ${at(place('src/app.ts', 'return result', 'double'))} — return result + double(1) + label.length;`,
      'src/math.ts',
      `  ${at(place('src/math.ts', 'export function double', 'double'))} (declaration) — export function double(n: number): number {`,
      `  ${at(place('src/math.ts', 'this.total +=', 'double'))} — this.total += double(n);`,
    ].join('\n');
    assert.strictEqual(answer.text, expected);
  });

  it('[lang-hover] describe_symbol of an inferred variable gives its type in a code fence', async () => {
    const answer = await t.call('describe_symbol', { path: 'src/app.ts', line: 6, symbol: 'result' });
    record('lang-hover', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    assert.match(answer.text, /```typescript\nconst result: number\n```/);
  });

  it('[lang-outline] file_outline: nested symbols with kinds and line ranges', async () => {
    const answer = await t.call('file_outline', { path: 'src/math.ts' });
    record('lang-outline', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    assert.match(answer.text, /^src\/math\.ts: 4 symbols\n/);
    assert.match(answer.text, /^double \(function\) lines \d–4$/m);
    assert.match(answer.text, /^Calculator \(class\) lines 6–12$/m);
    assert.match(answer.text, /^ {2}total \(property\) line 7$/m);
    assert.match(answer.text, /^ {2}add \(method\) lines 8–11$/m);
  });

  it('[lang-symbols] find_symbols finds a class by name in the workspace', async () => {
    const answer = await t.call('find_symbols', { query: 'Calculator' });
    record('lang-symbols', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    // TypeScript's workspace symbol location is the declaration's start (`export class…`), column 1.
    assert.match(answer.text, /^1 symbol matching "Calculator":\nCalculator \(class\) src\/math\.ts:6:1$/);
  });

  it('[lang-calls] call_hierarchy incoming: the two functions that call double, with their call sites', async () => {
    const answer = await t.call('call_hierarchy', { path: 'src/math.ts', line: 2, symbol: 'double' });
    record('lang-calls', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    const [heading, ...callers] = answer.text.split('\n');
    assert.match(heading, /^Callers of double \(function, src\/math\.ts:2:17\), depth 1: 2 found$/);
    const sorted = callers.sort();
    assert.strictEqual(sorted.length, 2, answer.text);
    assert.match(sorted[0], new RegExp(`^- add \\(method\\) ${place('src/math.ts', '  add(', 'add')} — calls at 9:\\d+ \\(in its file\\)$`));
    assert.match(
      sorted[1],
      new RegExp(`^- run \\(function\\) ${place('src/app.ts', 'export function run', 'run')} — calls at 6:\\d+, 7:\\d+ \\(in its file\\)$`),
    );
  });

  it('[lang-by-name] a symbol named alone is found through the workspace symbol search', async () => {
    const answer = await t.call('describe_symbol', { symbol: 'Calculator' });
    record('lang-by-name', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    // At the class's name (line 6, column 14), not at the declaration's start the search answered with.
    assert.match(answer.text, /^`Calculator` at src\/math\.ts:6:14:\n```typescript\nclass Calculator\n```/);
  });

  it("[lang-outside] a definition in TypeScript's lib files is named, its contents not shown", async () => {
    const answer = await t.call('find_definitions', { path: 'src/main.ts', line: 3, symbol: 'max' });
    record('lang-outside', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    assert.match(answer.text, /^Definition of `max` at src\/main\.ts:3:29:\n\/\S+\/lib\.es5\.d\.ts:\d+:\d+ \(outside the workspace: contents not shown\)$/);
  });

  it('[lang-stuck] a reference provider that never answers costs the bound (10 s) and the answer says so', async function () {
    // Another extension's bug, as a provider registered here for .ini files.
    const stuck = vscode.languages.registerReferenceProvider({ language: 'ini' }, { provideReferences: () => new Promise<vscode.Location[]>(() => undefined) });
    try {
      const started = Date.now();
      const answer = await t.call('find_references', { path: 'settings.ini', line: 2, symbol: 'name' });
      const ms = Date.now() - started;
      record('lang-stuck', { ms, answer: answer.text });
      assert.strictEqual(answer.isError, true, answer.text);
      assert.match(answer.text, /^VS Code's reference provider for ini did not answer within 10 s .*nothing was found or ruled out/);
      assert.ok(ms >= 10_000 && ms < 15_000, `answered after ${ms} ms`);
    } finally {
      stuck.dispose();
    }
  });

  it('[lang-no-support] a plain text file: the missing language support is named at once', async () => {
    const started = Date.now();
    const answer = await t.call('file_outline', { path: 'notes.txt' });
    record('lang-no-support', { ms: Date.now() - started, answer: answer.text });
    assert.strictEqual(answer.isError, true, answer.text);
    assert.match(answer.text, /VS Code has no language support for notes\.txt \(language "plaintext"\)/);
    assert.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`);
  });

  it("[lang-unsaved] unsaved edits that move lines: positions and line texts are the editor's, not the disk's", async () => {
    const appUri = vscode.Uri.file(path.join(ws, 'src/app.ts'));
    const onDisk = fs.readFileSync(appUri.fsPath);
    const doc = await vscode.workspace.openTextDocument(appUri);
    const added = '// two lines added in the editor,\n// not saved\n';
    const edit = new vscode.WorkspaceEdit();
    edit.insert(appUri, new vscode.Position(0, 0), added);
    assert.ok(await vscode.workspace.applyEdit(edit), 'applyEdit');
    try {
      assert.ok(doc.isDirty, 'app.ts has unsaved edits');
      // The buffer's lines: each of app.ts's lines two further down.
      const buffer = doc.getText().split('\n');
      const lineOf = (marker: string) => buffer.findIndex((l) => l.includes(marker)) + 1;
      const col = (marker: string, nth = 0) => [...buffer[lineOf(marker) - 1].matchAll(/\bdouble\b/g)][nth].index + 1;
      const references = await t.call('find_references', { path: 'src/math.ts', line: 2, symbol: 'double' });
      // The editor's line 8 (the disk's line 6): asked in the buffer.
      const definition = await t.call('find_definitions', { path: 'src/app.ts', line: lineOf('const result'), symbol: 'double' });
      record('lang-unsaved', { references: references.text, definition: definition.text });
      assert.strictEqual(references.isError, false, references.text);
      const appPart = references.text.split('\n').slice(1, 5).join('\n');
      assert.strictEqual(
        appPart,
        [
          'src/app.ts',
          `  ${lineOf('import')}:${col('import')} — import { double } from './math';`,
          `  ${lineOf('const result')}:${col('const result')} — const result = double(21);`,
          `  ${lineOf('return result')}:${col('return result')} — return result + double(1) + label.length;`,
        ].join('\n'),
      );
      assert.strictEqual(definition.isError, false, definition.text);
      assert.match(
        definition.text,
        new RegExp(`^Definition of \`double\` at src/app\\.ts:${lineOf('const result')}:${col('const result')}:\nsrc/math\\.ts:2:17 — export function double`),
      );
    } finally {
      // The edit taken back: the buffer is the disk's text again, and clean (nothing of the user's lost: it was the test's).
      const undo = new vscode.WorkspaceEdit();
      undo.delete(appUri, new vscode.Range(new vscode.Position(0, 0), new vscode.Position(2, 0)));
      await vscode.workspace.applyEdit(undo);
      if (doc.isDirty) await doc.save();
      assert.deepStrictEqual(fs.readFileSync(appUri.fsPath), onDisk, 'app.ts on disk unchanged');
    }
  });

  it('[lang-overhead] each tool against the provider command it calls, in the same window (figures, p50 of 15)', async () => {
    const uri = vscode.Uri.file(path.join(ws, 'src/math.ts'));
    const at = new vscode.Position(1, 16);
    const p50 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
    const timed = async (fn: () => Thenable<unknown>): Promise<number> => {
      const started = performance.now();
      await fn();
      return performance.now() - started;
    };
    const pairs: Array<[string, () => Thenable<unknown>, () => Thenable<unknown>]> = [
      [
        'find_references',
        () => t.call('find_references', { path: 'src/math.ts', line: 2, symbol: 'double' }),
        () => vscode.commands.executeCommand('vscode.executeReferenceProvider', uri, at),
      ],
      [
        'find_definitions',
        () => t.call('find_definitions', { path: 'src/math.ts', line: 2, symbol: 'double' }),
        () => vscode.commands.executeCommand('vscode.executeDefinitionProvider', uri, at),
      ],
      [
        'describe_symbol',
        () => t.call('describe_symbol', { path: 'src/math.ts', line: 2, symbol: 'double' }),
        () => vscode.commands.executeCommand('vscode.executeHoverProvider', uri, at),
      ],
      [
        'file_outline',
        () => t.call('file_outline', { path: 'src/math.ts' }),
        () => vscode.commands.executeCommand('vscode.executeDocumentSymbolProvider', uri),
      ],
      [
        'find_symbols',
        () => t.call('find_symbols', { query: 'Calculator' }),
        () => vscode.commands.executeCommand('vscode.executeWorkspaceSymbolProvider', 'Calculator'),
      ],
    ];
    const figures: Record<string, { toolMs: number; commandMs: number; ratio: number }> = {};
    for (const [name, tool, command] of pairs) {
      const toolMs: number[] = [];
      const commandMs: number[] = [];
      for (let i = 0; i < 15; i++) {
        toolMs.push(await timed(tool));
        commandMs.push(await timed(command));
      }
      figures[name] = {
        toolMs: Math.round(p50(toolMs) * 10) / 10,
        commandMs: Math.round(p50(commandMs) * 10) / 10,
        ratio: Math.round((p50(toolMs) / p50(commandMs)) * 100) / 100,
      };
    }
    record('lang-overhead', figures);
    const answer = await t.call('find_references', { path: 'src/math.ts', line: 2, symbol: 'double' });
    assert.strictEqual(answer.isError, false, answer.text);
  });
});
