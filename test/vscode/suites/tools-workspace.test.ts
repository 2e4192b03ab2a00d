/**
 * search_files / list_files with the ripgrep real VS Code ships (found under its appRoot), and
 * get_diagnostics from VS Code's own JSON language server, over the real `/tools` socket. The inner half
 * of test/real/vscode-tools.test.ts; runs only when that test started code-server.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describe, it } from '../bdd';
import { waitFor } from '../util';
import { record, toolsSuite, type ToolsConnection } from '../toolsClient';

describe('search, list and diagnostics in VS Code', function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ws: string;
  const write = (rel: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), content);
  };

  toolsSuite((conn, root) => {
    t = conn;
    ws = root;
    write('search/.gitignore', 'ignored/\n*.log\n');
    write('search/src/one.ts', 'export const a = 1;\nexport const needle_42 = "x";\nexport const b = 2;\n');
    write('search/src/two.ts', '// needle_7 here\n');
    write('search/ignored/hidden.ts', 'export const needle_99 = 0;\n');
    write('search/debug.log', 'needle_1 in a log\n');
    write('search/README.md', '# search fixture\n');
  });

  it("[search] search_files finds a regex with VS Code's own rg: grouped by file, with line numbers, .gitignore honoured", async () => {
    // The lookup the product does (docs/vscode-traps.md, trap 18): this VS Code ships rg in the new place.
    const rg = path.join(vscode.env.appRoot, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', `${process.platform}-${process.arch}`, 'rg');
    record('search', { appRoot: vscode.env.appRoot, rgExists: fs.existsSync(rg) });
    const answer = await t.call('search_files', { path: 'search', regex: 'needle_\\d+' });
    record('search', { answer: answer.text });
    assert.strictEqual(answer.isError, false, answer.text);
    assert.strictEqual(
      answer.text,
      [
        '2 matching lines in 2 files',
        'search/src/one.ts',
        '  1- export const a = 1;',
        '  2: export const needle_42 = "x";',
        '  3- export const b = 2;',
        'search/src/two.ts',
        '  1: // needle_7 here',
      ].join('\n'),
    );
  });

  it('[search-invalid] an invalid regex gives a clear error', async () => {
    const answer = await t.call('search_files', { path: '.', regex: 'needle_(' });
    record('search-invalid', { answer: answer.text });
    assert.strictEqual(answer.isError, true, answer.text);
    assert.match(answer.text, /^The regex "needle_\(" is not valid:/);
    assert.match(answer.text, /unclosed group|unopened group|regex parse error/i);
  });

  it('[list] list_files honours .gitignore (outside a git repository too), direct and recursive', async () => {
    const direct = await t.call('list_files', { path: 'search' });
    record('list', { direct: direct.text });
    assert.strictEqual(direct.isError, false, direct.text);
    assert.deepStrictEqual(direct.text.split('\n'), ['search/.gitignore', 'search/README.md', 'search/src/']);
    const recursive = await t.call('list_files', { path: 'search', recursive: true });
    record('list', { recursive: recursive.text });
    assert.deepStrictEqual(recursive.text.split('\n'), ['search/.gitignore', 'search/README.md', 'search/src/', 'search/src/one.ts', 'search/src/two.ts']);
  });

  it("[diagnostics] get_diagnostics reports the JSON language server's syntax error of an opened file", async () => {
    const rel = 'broken.json';
    write(rel, '{\n  "a": 1,,\n  "b": 2\n}\n');
    const uri = vscode.Uri.file(path.join(ws, rel));
    await vscode.window.showTextDocument(uri, { preview: false });
    await waitFor('the JSON language server to report on broken.json', () => vscode.languages.getDiagnostics(uri).length > 0, 30_000, 100);
    const answer = await t.call('get_diagnostics', { path: rel });
    record('diagnostics', { answer: answer.text, vscode: vscode.languages.getDiagnostics(uri).map((d) => d.message) });
    assert.strictEqual(answer.isError, false, answer.text);
    const [header, ...lines] = answer.text.split('\n');
    assert.match(header, /^\d+ problems? \(\d+ errors?.*\) in 1 file$/);
    assert.ok(
      lines.some((l) => /^\[error\] broken\.json:2 — .+\(json/.test(l)),
      answer.text,
    );
    // The whole-workspace call lists it too; filtering by severity keeps it.
    const all = await t.call('get_diagnostics', { severity: 'error' });
    assert.match(all.text, /\[error\] broken\.json:2 — /);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
