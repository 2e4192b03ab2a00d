// Hardening — rename_symbol against what a language server's edit, the workspace on disk and the user's
// editor can throw at it: an edit touching a file outside the workspace (refused whole before anything is
// shown), a file of the workspace that is a link leading outside, a hard-linked file, a folder swapped for
// a link while the review is open, a provider that never answers (bounded), and a file with unsaved
// edits (the rename of the buffer, written with it; edited again during the review: nothing written at
// all). Real server, real sockets, real temp folders; VS Code's rename provider scripted.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renameEdit, ScriptedLanguageFeatures } from '../support/fakeHosts';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

jest.setTimeout(60_000);

const ANSWER_MS = 400;
const MATH = 'export function double(n: number) {\n  return n * 2;\n}\n';
const APP = "import { double } from './math';\nexport const x = double(2);\n";
const OUTSIDE = "import { double } from '../ws/src/math';\nexport const SECRET = double(1);\n";

describe('hardening: rename_symbol', () => {
  let root: string;
  let ws: string;
  let outside: string;
  const language = new ScriptedLanguageFeatures();
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;
  const abs = (rel: string) => path.join(ws, rel);
  const call = async () => server.call(await server.tools(), 'rename_symbol', { path: 'src/math.ts', line: 1, symbol: 'double', new_name: 'twice' });
  /** The provider's edit: math.ts's declaration and app.ts's import and call, plus `more` files' first two lines. */
  const script = (more: Record<string, Array<[number, number]>> = {}) =>
    language.renameAt.set(
      `${abs('src/math.ts')}:0:16`,
      renameEdit('twice', 6, {
        [abs('src/math.ts')]: [[0, 16]],
        [abs('src/app.ts')]: [
          [0, 9],
          [1, 17],
        ],
        ...more,
      }),
    );
  const untouched = async () => {
    expect(await fs.readFile(abs('src/math.ts'), 'utf8')).toBe(MATH);
    expect(await fs.readFile(abs('src/app.ts'), 'utf8')).toBe(APP);
    expect(await fs.readFile(path.join(outside, 'user.ts'), 'utf8')).toBe(OUTSIDE);
  };

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-rename-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    server = await startWorkspaceToolServer(() => [ws], { language, languageBudgets: { readyMs: 600, answerMs: ANSWER_MS } });
  });

  beforeEach(async () => {
    await fs.rm(ws, { recursive: true, force: true });
    await fs.rm(outside, { recursive: true, force: true });
    await fs.mkdir(path.join(ws, 'src'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(abs('src/math.ts'), MATH);
    await fs.writeFile(abs('src/app.ts'), APP);
    await fs.writeFile(path.join(outside, 'user.ts'), OUTSIDE);
    language.hang.clear();
    language.renameAt.clear();
    server.review.opened.length = 0;
    server.documents.unsaved.clear();
    server.documents.written.length = 0;
  });

  afterAll(async () => {
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('an edit that touches a file outside the workspace is refused whole: nothing shown, nothing written', async () => {
    script({
      [path.join(outside, 'user.ts')]: [
        [0, 9],
        [1, 22],
      ],
    });
    const r = await call();
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe(
      `Renaming \`double\` → \`twice\` would change 1 file outside the workspace (after symlinks): ${path.join(outside, 'user.ts')}. The rename was refused whole: nothing was shown or written.`,
    );
    expect(server.review.opened).toEqual([]);
    expect(server.documents.written).toEqual([]);
    await untouched();
  });

  test('a file of the workspace that is a link leading outside (or a file in a linked folder) refuses the rename whole', async () => {
    await fs.symlink(path.join(outside, 'user.ts'), abs('src/link.ts'));
    await fs.symlink(outside, abs('linked'));
    for (const via of [abs('src/link.ts'), abs('linked/user.ts')]) {
      script({
        [via]: [
          [0, 9],
          [1, 22],
        ],
      });
      const r = await call();
      expect(r.isError).toBe(true);
      expect(resultText(r)).toMatch(
        /would change 1 file outside the workspace \(after symlinks\): .*The rename was refused whole: nothing was shown or written\.$/,
      );
      expect(server.review.opened).toEqual([]);
      expect(server.documents.written).toEqual([]);
      await untouched();
    }
  });

  test('two names of one file in the edit (a link inside the workspace to another file of it) refuse the rename', async () => {
    await fs.symlink(abs('src/app.ts'), abs('src/alias.ts'));
    script({ [abs('src/alias.ts')]: [[0, 9]] });
    const r = await call();
    expect(resultText(r)).toMatch(/names one file twice \(src\/alias\.ts and src\/app\.ts|names one file twice \(src\/app\.ts and src\/alias\.ts/);
    expect(server.review.opened).toEqual([]);
    await untouched();
  });

  test('a hard-linked file in the edit (maybe a file outside) refuses the rename whole before any review', async () => {
    await fs.link(abs('src/app.ts'), path.join(outside, 'app-hardlink.ts'));
    script();
    const r = await call();
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(/^Renaming `double` → `twice` was refused whole, nothing was shown or written: src\/app\.ts: .*link/);
    expect(server.review.opened).toEqual([]);
    await untouched();
  });

  test('a folder swapped for a link leading outside while the review is open: nothing written, to any file', async () => {
    script();
    const pending = call();
    await server.review.decide((q) => ({ kind: 'accepted', text: q.proposedText }));
    // After the first review, before the last: src/ becomes a link to a copy outside.
    await fs.cp(path.join(ws, 'src'), path.join(outside, 'src'), { recursive: true });
    await fs.rename(path.join(ws, 'src'), path.join(root, 'moved-src'));
    await fs.symlink(path.join(outside, 'src'), path.join(ws, 'src'));
    await server.review.decide((q) => ({ kind: 'accepted', text: q.proposedText }));
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(resultText(r)).toMatch(
      /^Renaming `double` → `twice` was accepted but nothing was written: The change to src\/app\.ts was accepted but not written: /,
    );
    expect(server.documents.written).toEqual([]);
    expect(await fs.readFile(path.join(outside, 'src/math.ts'), 'utf8')).toBe(MATH);
    expect(await fs.readFile(path.join(outside, 'src/app.ts'), 'utf8')).toBe(APP);
  });

  test('a rename provider that never answers costs the bounded wait, says so, and the connection keeps serving', async () => {
    script();
    language.hang.add('rename');
    const started = Date.now();
    const r = await call();
    const ms = Date.now() - started;
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe(
      `VS Code's rename provider for typescript did not answer within ${ANSWER_MS} ms (a language server still busy, or an extension stuck): nothing was found or ruled out. Ask again in a moment; if it keeps happening, use search_files.`,
    );
    expect(ms).toBeLessThan(ANSWER_MS + 3000);
    expect(server.review.opened).toEqual([]);
    language.hang.clear();
    const again = call();
    await server.review.decide({ kind: 'rejected', reason: 'user' });
    expect(JSON.parse(resultText(await again)).status).toBe('rejected');
    await untouched();
  });

  test('unsaved edits: the rename of the buffer is reviewed beside it and written with it; typed into again during the review, nothing is written at all', async () => {
    const typed = "import { double } from './math';\n// typed, not saved\nexport const x = double(2);\n";
    server.documents.unsaved.set(abs('src/app.ts'), typed);
    language.renameAt.set(
      `${abs('src/math.ts')}:0:16`,
      renameEdit('twice', 6, {
        [abs('src/math.ts')]: [[0, 16]],
        [abs('src/app.ts')]: [
          [0, 9],
          [2, 17],
        ],
      }),
    );
    // Typed into again while the review is open: the accepted rename is not written to either file.
    const pending = call();
    const first = await server.review.decide((q) => ({ kind: 'accepted', text: q.proposedText }));
    expect(first.merged).toEqual({ unsavedText: typed, conflicts: 0 });
    expect(first.proposedText).toBe(typed.replace(/double/g, 'twice'));
    server.documents.unsaved.set(abs('src/app.ts'), `${typed}// more\n`);
    await server.review.decide((q) => ({ kind: 'accepted', text: q.proposedText }));
    const r = await pending;
    expect(resultText(r)).toMatch(
      /^Renaming `double` → `twice` was accepted but nothing was written: src\/app\.ts was edited in VS Code while the review was open/,
    );
    expect(server.documents.written).toEqual([]);
    await untouched();
    // Not typed into again: the buffer's rename is written, with the user's unsaved edits.
    server.documents.unsaved.set(abs('src/app.ts'), typed);
    const ok = call();
    await server.review.decide((q) => ({ kind: 'accepted', text: q.proposedText }));
    await server.review.decide((q) => ({ kind: 'accepted', text: q.proposedText }));
    expect(JSON.parse(resultText(await ok)).files[0]).toEqual({ path: 'src/app.ts', operation: 'modified', merged_with_unsaved_edits: true, replacements: 2 });
    expect(await fs.readFile(abs('src/app.ts'), 'utf8')).toBe(typed.replace(/double/g, 'twice'));
  });
});
