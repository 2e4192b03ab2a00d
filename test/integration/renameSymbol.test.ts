// rename_symbol through the real server, the SDK's real Client on a real socket, over a temp workspace on
// disk: VS Code's rename provider is scripted (ScriptedLanguageFeatures), the review is answered by the
// test, accepted writes go to disk through the no-follow writer. The real provider and the real review are
// tested in code-server (test/real/vscode-rename.test.ts).

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { ChangeCapture } from '../../src/host/changeCapture';
import { TOOLS_INSTRUCTIONS } from '../../src/tools/instructions';
import { diagnostic, renameEdit, ScriptedLanguageFeatures } from '../support/fakeHosts';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

const FILES: Record<string, string> = {
  'src/math.ts': 'export function double(n: number) {\n  return n * 2;\n}\n',
  'src/app.ts': "import { double } from './math';\nexport const x = double(2);\n",
  'src/report.ts': "import { double } from './math';\nexport const y = double(double(1));\n",
};

describe('rename_symbol over the /tools route', () => {
  let root: string;
  let ws: string;
  const language = new ScriptedLanguageFeatures();
  const captured: string[] = [];
  const changes: ChangeCapture = { beforeWrite: async (_c, file) => void captured.push(file), writeCancelled: () => undefined, noteCall: () => undefined };
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;
  let client: Client;
  const file = (rel: string) => path.join(ws, rel);
  const read = (rel: string) => fs.readFile(file(rel), 'utf8');
  const call = (args: Record<string, unknown>) => server.call(client, 'rename_symbol', args);
  /** The rename of `double` (declared at math.ts 0:16) to `twice`, as TypeScript's provider answers it. */
  const scriptRename = () =>
    language.renameAt.set(
      `${file('src/math.ts')}:0:16`,
      renameEdit('twice', 6, {
        [file('src/math.ts')]: [[0, 16]],
        [file('src/app.ts')]: [
          [0, 9],
          [1, 17],
        ],
        [file('src/report.ts')]: [
          [0, 9],
          [1, 17],
          [1, 24],
        ],
      }),
    );
  const renamed = (text: string) => text.replace(/\bdouble\b/g, 'twice');

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-rename-')));
    ws = path.join(root, 'ws');
    server = await startWorkspaceToolServer(() => [ws], { language, languageBudgets: { readyMs: 2000, answerMs: 500 }, changes });
    client = await server.tools();
  });

  beforeEach(async () => {
    await fs.rm(ws, { recursive: true, force: true });
    for (const [rel, content] of Object.entries(FILES)) {
      await fs.mkdir(path.dirname(file(rel)), { recursive: true });
      await fs.writeFile(file(rel), content);
    }
    language.renameAt.clear();
    server.review.opened.length = 0;
    captured.length = 0;
    server.documents.unsaved.clear();
    scriptRename();
  });

  afterAll(async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('tools/list: rename_symbol, a write tool, small; the instructions say when to use it', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'rename_symbol');
    expect(tool).toBeDefined();
    expect(tool!.annotations?.readOnlyHint).toBe(false);
    const bytes = Buffer.byteLength(JSON.stringify(tool));
    console.log(
      `rename_symbol in tools/list: ${bytes} bytes; all ${tools.length} tools: ${Buffer.byteLength(JSON.stringify(tools))} bytes; instructions ${TOOLS_INSTRUCTIONS.length} characters`,
    );
    expect(bytes).toBeLessThan(1500);
    expect(TOOLS_INSTRUCTIONS).toMatch(/^- rename_symbol: /m);
  });

  test('accepted: one review per file in sequence, nothing written before the last accept, then every file written', async () => {
    const pending = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
    const titles: string[] = [];
    for (const rel of ['src/app.ts', 'src/math.ts', 'src/report.ts']) {
      const request = await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
      titles.push(request.title);
      // Only the last accepted file is brought to the front; before it, the next review is.
      expect(request.revealAccepted).toBe(rel === 'src/report.ts' ? undefined : false);
      expect(request.filePath).toBe(file(rel));
      expect(request.originalText).toBe(FILES[rel]);
      expect(request.proposedText).toBe(renamed(FILES[rel]));
      // Nothing on disk changed while reviews are pending.
      for (const [other, content] of Object.entries(FILES)) expect(await read(other)).toBe(content);
    }
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect(titles).toEqual([
      '✻ Claude proposes: rename to twice (1 of 3): src/app.ts',
      '✻ Claude proposes: rename to twice (2 of 3): src/math.ts',
      '✻ Claude proposes: rename to twice (3 of 3): src/report.ts',
    ]);
    expect(JSON.parse(resultText(result))).toEqual({
      status: 'accepted',
      renamed: '`double` → `twice`',
      files: [
        { path: 'src/app.ts', operation: 'modified', replacements: 2 },
        { path: 'src/math.ts', operation: 'modified', replacements: 1 },
        { path: 'src/report.ts', operation: 'modified', replacements: 3 },
      ],
    });
    for (const [rel, content] of Object.entries(FILES)) expect(await read(rel)).toBe(renamed(content));
    // Claude's changes is told of each file before it is written.
    expect([...captured].sort()).toEqual(['src/app.ts', 'src/math.ts', 'src/report.ts'].map(file));
  });

  test('a problem the rename caused is listed once in new_diagnostics, read after the last write', async () => {
    const report = file('src/report.ts');
    // Appears when report.ts (the last file) is saved: each file's wait sees it; the answer lists it once.
    server.documents.format = (text) => (text.includes('export const y') && server.diagnostics.set(report, [diagnostic('twice is not callable', 1)]), text);
    try {
      const pending = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
      for (let i = 0; i < 3; i++) await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
      const answer = JSON.parse(resultText(await pending));
      expect(answer.new_diagnostics).toEqual([expect.stringMatching(/^\[Error\] src\/report\.ts:2.*twice is not callable/)]);
    } finally {
      server.documents.format = undefined;
      server.diagnostics.set(report, []);
    }
  });

  test('a write that fails after the checks (a disk error): the answer says which files were written and which not', async () => {
    server.documents.format = (text) => {
      if (text.includes('export const y')) throw new Error('disk full');
      return text;
    };
    try {
      const pending = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
      for (let i = 0; i < 3; i++) await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
      const result = await pending;
      expect(result.isError).toBe(true);
      expect(JSON.parse(resultText(result))).toEqual({
        status: 'partly written',
        renamed: '`double` → `twice`',
        written: ['src/app.ts', 'src/math.ts'],
        not_written: [
          { path: 'src/report.ts', error: expect.stringMatching(/^The change to src\/report\.ts was accepted but could not be written: disk full/) },
        ],
      });
      expect(await read('src/report.ts')).toBe(FILES['src/report.ts']);
      // Every file fails: nothing was written, said as such.
      server.documents.format = () => {
        throw new Error('disk full');
      };
      await fs.writeFile(file('src/app.ts'), FILES['src/app.ts']);
      await fs.writeFile(file('src/math.ts'), FILES['src/math.ts']);
      const again = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
      for (let i = 0; i < 3; i++) await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
      expect(resultText(await again)).toMatch(
        /^Renaming `double` → `twice` was accepted but nothing was written: The change to src\/app\.ts was accepted but could not be written: disk full/,
      );
      for (const [rel, content] of Object.entries(FILES)) expect(await read(rel)).toBe(content);
    } finally {
      server.documents.format = undefined;
    }
  });

  test('the user edits one file in its review: written as accepted, user_edits in the answer', async () => {
    const pending = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText.replace('n * 2', 'n + n') }));
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    const answer = JSON.parse(resultText(await pending));
    expect(answer.files[1]).toEqual(expect.objectContaining({ path: 'src/math.ts', user_edits: expect.stringContaining('+  return n + n;') }));
    expect(await read('src/math.ts')).toBe(renamed(FILES['src/math.ts']).replace('n * 2', 'n + n'));
  });

  test('rejected at the second file: nothing written, the rest not shown, the answer says so', async () => {
    const pending = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    await server.review.decide({ kind: 'rejected', reason: 'user' });
    const answer = JSON.parse(resultText(await pending));
    expect(answer).toEqual({
      status: 'rejected',
      renamed: '`double` → `twice`',
      files: ['src/app.ts', 'src/math.ts', 'src/report.ts'],
      rejected_at: 'src/math.ts',
      note: expect.stringContaining('Nothing was written'),
    });
    expect(server.review.registry.size).toBe(0);
    for (const [rel, content] of Object.entries(FILES)) expect(await read(rel)).toBe(content);
    expect(captured).toEqual([]);
  });

  test('a file with unsaved edits: the rename is of the buffer (VS Code computed it there), shown beside it and written with it', async () => {
    const typed = "import { double } from './math';\n// typed, not saved\nexport const x = double(2);\n";
    server.documents.unsaved.set(file('src/app.ts'), typed);
    language.renameAt.set(
      `${file('src/math.ts')}:0:16`,
      renameEdit('twice', 6, {
        [file('src/math.ts')]: [[0, 16]],
        [file('src/app.ts')]: [
          [0, 9],
          [2, 17],
        ],
      }),
    );
    const pending = call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
    const app = await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect(app.merged).toEqual({ unsavedText: typed, conflicts: 0 });
    expect(app.title).toBe('✻ Claude proposes: rename to twice (1 of 2): src/app.ts');
    expect(app.proposedText).toBe(renamed(typed));
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    const answer = JSON.parse(resultText(await pending));
    expect(answer.files[0]).toEqual({ path: 'src/app.ts', operation: 'modified', merged_with_unsaved_edits: true, replacements: 2 });
    expect(await read('src/app.ts')).toBe(renamed(typed));
  });

  test('approvalMode never: written without a review, as write_file', async () => {
    const quiet = await startWorkspaceToolServer(() => [ws], { language, approval: 'never', languageBudgets: { readyMs: 2000, answerMs: 500 } });
    try {
      const result = await quiet.call(await quiet.tools(), 'rename_symbol', { path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
      expect(JSON.parse(resultText(result)).status).toBe('accepted');
      expect(quiet.review.opened).toEqual([]);
      for (const [rel, content] of Object.entries(FILES)) expect(await read(rel)).toBe(renamed(content));
    } finally {
      await quiet.stop();
    }
  });

  test('bad new names, a refusal, and nothing to change are errors; nothing is shown', async () => {
    for (const bad of ['two words', 'a;b', '1abc', 'x\ny']) {
      const result = await call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: bad });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/^new_name must be one identifier/);
    }
    expect(resultText(await call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'double' }))).toMatch(/already named `double`/);
    language.renameAt.set(`${file('src/math.ts')}:0:16`, 'You cannot rename this element.');
    expect(resultText(await call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' }))).toBe(
      "VS Code's rename provider for typescript refused to rename `double` at src/math.ts:1:17: You cannot rename this element. Nothing was changed.",
    );
    language.renameAt.set(`${file('src/math.ts')}:0:16`, { files: [] });
    expect(resultText(await call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' }))).toMatch(/found nothing to change/);
    expect(server.review.opened).toEqual([]);
  });

  test('an edit that does not fit the file (a stale provider) refuses the rename whole', async () => {
    language.renameAt.set(`${file('src/math.ts')}:0:16`, renameEdit('twice', 6, { [file('src/math.ts')]: [[0, 16]], [file('src/app.ts')]: [[7, 0]] }));
    const result = await call({ path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/refused whole, nothing was shown or written: src\/app\.ts: the edit names a place past the file's text/);
    expect(server.review.opened).toEqual([]);
  });
});
