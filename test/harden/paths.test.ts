// Hardening — paths: every workspace tool × escape paths (`..`, absolute, symlink to outside, symlink
// loop, NUL, `~`, file URIs, multi-root), each refused with a reason, with positive controls inside,
// and symbolic links swapped in while reviews are open. Real server, real sockets, real temp folders.
// HARDEN_FAST=1 (the CI subset) runs fewer swap rounds; the matrix is always complete.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renameEdit, ScriptedLanguageFeatures } from '../support/fakeHosts';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

jest.setTimeout(120_000);

const FAST = process.env.HARDEN_FAST === '1';
const SWAP_ROUNDS = FAST ? 20 : 200;

/** Why a path is refused: each refusal must say one of these. */
const REASON = /outside the workspace|NUL character|loop of symbolic links|not a valid file URI|path is empty/;

type Tool = { name: string; args: (p: string) => Record<string, unknown> };
const TOOLS: Tool[] = [
  { name: 'read_file', args: (p) => ({ path: p }) },
  { name: 'list_files', args: (p) => ({ path: p }) },
  { name: 'search_files', args: (p) => ({ path: p, regex: 'secret' }) },
  { name: 'get_diagnostics', args: (p) => ({ path: p }) },
  { name: 'write_file', args: (p) => ({ path: p, content: 'PWNED\n' }) },
  { name: 'apply_diff', args: (p) => ({ path: p, diff: '<<<<<<< SEARCH\nsecret\n=======\nPWNED\n>>>>>>> REPLACE' }) },
  { name: 'execute_command', args: (p) => ({ command: 'echo PWNED', cwd: p }) },
  // The language tools: a position (line + name), a file alone, a name looked up in a file's outline.
  { name: 'find_references', args: (p) => ({ path: p, line: 1, symbol: 'secret' }) },
  { name: 'file_outline', args: (p) => ({ path: p }) },
  { name: 'call_hierarchy', args: (p) => ({ path: p, symbol: 'secret' }) },
  { name: 'rename_symbol', args: (p) => ({ path: p, line: 1, symbol: 'secret', new_name: 'PWNED' }) },
];

describe('hardening: paths', () => {
  let root: string;
  let ws1: string;
  let ws2: string;
  let outside: string;
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;
  const figures: string[] = [];

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-paths-')));
    ws1 = path.join(root, 'ws1');
    ws2 = path.join(root, 'ws2');
    outside = path.join(root, 'outside');
    await fs.mkdir(path.join(ws1, 'src', 'deep'), { recursive: true });
    await fs.mkdir(ws2);
    await fs.mkdir(path.join(outside, 'dir'), { recursive: true });
    await fs.writeFile(path.join(outside, 'secret.txt'), 'secret\n');
    await fs.writeFile(path.join(outside, 'dir', 'secret.txt'), 'secret\n');
    await fs.writeFile(path.join(ws1, 'src', 'a.txt'), 'secret\n');
    await fs.writeFile(path.join(ws2, 'b.txt'), 'secret\n');
    await fs.symlink(outside, path.join(ws1, 'out-link'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws1, 'out-file'));
    await fs.symlink('../outside', path.join(ws1, 'rel-out-link'));
    await fs.symlink(path.join(ws1, 'loop-b'), path.join(ws1, 'loop-a'));
    await fs.symlink(path.join(ws1, 'loop-a'), path.join(ws1, 'loop-b'));
    await fs.symlink(path.join(outside, 'not-yet'), path.join(ws1, 'dangling-out'));
    await fs.symlink(path.join(ws1, 'src'), path.join(ws1, 'inside-link'));
    await fs.symlink(ws2, path.join(ws1, 'ws2-link'));
    // Every file is of a language with support here, so the inside paths reach the providers.
    const language = new ScriptedLanguageFeatures();
    language.languageOf = () => 'typescript';
    const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 6 } };
    language.outlines.set(path.join(ws1, 'src', 'a.txt'), [{ name: 'secret', kind: 'Variable', range, selectionRange: range, children: [] }]);
    language.outlines.set(path.join(ws2, 'b.txt'), [{ name: 'secret', kind: 'Variable', range, selectionRange: range, children: [] }]);
    // A rename inside changes only the file it is asked in (the positive controls reach its review).
    for (const file of [path.join(ws1, 'src', 'a.txt'), path.join(ws2, 'b.txt')])
      language.renameAt.set(`${file}:0:0`, renameEdit('PWNED', 6, { [file]: [[0, 0]] }));
    server = await startWorkspaceToolServer(() => [ws1, ws2], { language });
  });
  afterAll(async () => {
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });

    console.log(`hardening/paths figures:\n  ${figures.join('\n  ')}`);
  });

  const escapes = (): string[] => [
    '..',
    '../outside/secret.txt',
    '../../../../../../etc/passwd',
    'src/../../outside/secret.txt',
    'src/deep/../../../outside/dir',
    'ws2/../../outside/secret.txt',
    'ws2/../outside/secret.txt',
    '/etc/passwd',
    '/',
    root,
    path.join(outside, 'secret.txt'),
    path.join(ws1, '..', 'outside', 'secret.txt'),
    'out-link',
    'out-link/secret.txt',
    'out-link/dir/new.txt',
    'out-file',
    'rel-out-link/secret.txt',
    'dangling-out',
    'loop-a',
    'loop-a/x.txt',
    'src/a.txt\0.png',
    '\0',
    '~/.bashrc',
    '~',
    'file:///etc/passwd',
    `file://${path.join(outside, 'secret.txt')}`,
    'file://remote-host/share/x.txt',
    '/proc/self/root/etc/passwd',
  ];

  const positives = (): string[] => [
    'src/a.txt',
    path.join(ws1, 'src', 'a.txt'),
    'inside-link/a.txt',
    'ws2/b.txt',
    path.join(ws2, 'b.txt'),
    'ws2-link/b.txt',
    `file://${path.join(ws1, 'src', 'a.txt')}`,
  ];

  test('every tool × every escape path is refused with a reason; nothing outside is read, written or run', async () => {
    const client = await server.tools();
    const before = await snapshot(outside);
    let refused = 0;
    const leaks: string[] = [];
    for (const tool of TOOLS) {
      for (const p of escapes()) {
        // A path that passed the check would open a review; answer it so the call returns (and count it).
        const answer = server.call(client, tool.name, tool.args(p));
        const result = await Promise.race([
          answer,
          server.review.waitForPending(1, 500).then(
            () => undefined,
            () => undefined,
          ),
        ]);
        if (result === undefined && server.review.registry.size > 0) {
          await server.review.decide({ kind: 'rejected', reason: 'user' });
          leaks.push(`${tool.name} ${JSON.stringify(p)}: a review opened`);
          await answer;
          continue;
        }
        const final = result ?? (await answer);
        const text = resultText(final);
        if (final.isError && REASON.test(text)) refused++;
        else leaks.push(`${tool.name} ${JSON.stringify(p)}: ${text.slice(0, 160)}`);
        if (text.includes('secret\n') || text.includes('root:x:0')) leaks.push(`${tool.name} ${JSON.stringify(p)}: content leaked`);
      }
    }
    const total = TOOLS.length * escapes().length;
    figures.push(`${TOOLS.length} tools × ${escapes().length} escape paths = ${total} calls: ${refused} refused with a reason, ${leaks.length} not`);
    expect(leaks).toEqual([]);
    expect(refused).toBe(total);
    expect(escapes().length).toBeGreaterThanOrEqual(20);
    expect(server.review.opened).toHaveLength(0);
    expect(server.commands).toHaveLength(0);
    expect(await snapshot(outside)).toEqual(before);
  });

  test('positive controls: the same tools accept paths inside (relative, absolute, through an inside link, the second root, file URI)', async () => {
    const client = await server.tools();
    let accepted = 0;
    const failures: string[] = [];
    for (const tool of TOOLS) {
      for (const p of positives()) {
        // list_files and execute_command take folders: give them the file's folder.
        const arg = tool.name === 'list_files' || tool.name === 'execute_command' ? folderOf(p) : p;
        const answer = server.call(client, tool.name, tool.args(arg));
        if (tool.name === 'write_file' || tool.name === 'apply_diff' || tool.name === 'rename_symbol') {
          await server.review.decide({ kind: 'rejected', reason: 'user' }); // reaching the review is the proof
        }
        const result = await answer;
        if (result.isError) failures.push(`${tool.name} ${arg}: ${resultText(result).slice(0, 160)}`);
        else accepted++;
      }
    }
    figures.push(`${TOOLS.length} tools × ${positives().length} inside paths: ${accepted} served`);
    expect(failures).toEqual([]);
  });

  test('links swapped in while reviews are open: never a byte written outside', async () => {
    const client = await server.tools();
    const before = await snapshot(outside);
    let refusedAtWrite = 0;
    for (let round = 0; round < SWAP_ROUNDS; round++) {
      const swapFolder = round % 2 === 0;
      const dir = path.join(ws1, `swap${round}`);
      await fs.mkdir(dir);
      await fs.writeFile(path.join(dir, 'f.txt'), 'secret\n');
      const answer = server.call(client, 'write_file', { path: swapFolder ? `swap${round}/new${round}.txt` : `swap${round}/f.txt`, content: 'PWNED\n' });
      await server.review.waitForPending();
      if (swapFolder) {
        await fs.rm(dir, { recursive: true });
        await fs.symlink(outside, dir);
      } else {
        await fs.rm(path.join(dir, 'f.txt'));
        await fs.symlink(path.join(outside, 'secret.txt'), path.join(dir, 'f.txt'));
      }
      await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
      const result = await answer;
      if (result.isError && /symbolic link/.test(resultText(result))) refusedAtWrite++;
    }
    figures.push(
      `${SWAP_ROUNDS} reviews with a folder or file swapped for a link to outside before acceptance: ${refusedAtWrite} refused at write time, outside unchanged`,
    );
    expect(refusedAtWrite).toBe(SWAP_ROUNDS);
    expect(await snapshot(outside)).toEqual(before);
  });
});

function folderOf(p: string): string {
  if (p.startsWith('file://')) return p.slice(0, p.lastIndexOf('/'));
  const dir = path.dirname(p);
  return dir === '.' ? p : dir;
}

/** Every file under `dir` with its content, to prove nothing changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? await fs.readFile(full, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}
