// Hardening — faults: a client killed mid-review, named pipes / devices / sockets among the files,
// and the CLI's ~/.claude.json malformed, read-only, in an unwritable folder, symlinked, and raced by
// writers that use the CLI's lock and by one that rewrites it in place without it. Real processes,
// real sockets, real files. HARDEN_FAST=1 (the CI subset) runs fewer rounds; every check still runs.
// (The race against the real claude CLI is in test/real/cli-user-config.test.ts.)

import { execFile, execFileSync, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClaudeUserConfig } from '../../src/cliSetup/claudeUserConfig';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { TEST_TOKEN } from '../support/serverFixture';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

jest.setTimeout(600_000);

const FAST = process.env.HARDEN_FAST === '1';
const KILL_ROUNDS = FAST ? 3 : 20;
const RACE_ROUNDS = FAST ? 300 : 3000;
const FAULT_PROCESS = path.join(__dirname, 'support', 'faultProcess.ts');
const TS_NODE = require.resolve('ts-node/register/transpile-only');
const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

const figures: string[] = [];
afterAll(() => {
  console.log(`hardening/faults figures${FAST ? ' (fast subset)' : ''}:\n  ${figures.join('\n  ')}`);
});

/**
 * Runs one task of faultProcess.ts to its end; `asNobody` drops root so permissions apply. The child
 * drops it itself once its code is loaded: started as nobody, it could not load ts-node from a checkout
 * under a folder only root may enter (e.g. a 0700 `mktemp -d`).
 */
function runTask<T>(task: Record<string, unknown>, options: { asNobody?: boolean } = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const asUid = options.asNobody && IS_ROOT ? { asUid: NOBODY } : {};
    execFile(
      process.execPath,
      ['-r', TS_NODE, FAULT_PROCESS, JSON.stringify({ ...task, ...asUid })],
      { maxBuffer: 1 << 20, env: { ...process.env, TS_NODE_PROJECT: path.join(__dirname, '..', '..', 'tsconfig.json') } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as T);
      },
    );
  });
}

const BASE = { projects: { '/work/p': { hasTrustDialogAccepted: true } }, oauthAccount: { emailAddress: 'user@example.com' }, userID: 'u-1', numStartups: 3 };

describe('hardening: faults', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-faults-')));
    await fs.chmod(root, 0o755); // reachable by the unprivileged child
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  test('a client killed (SIGKILL) mid-review: the review is closed and nothing is written', async () => {
    const ws = path.join(root, 'ws');
    await fs.mkdir(ws);
    const server = await startWorkspaceToolServer(() => [ws]);
    let closed = 0;
    try {
      for (let round = 0; round < KILL_ROUNDS; round++) {
        const child = spawn(
          process.execPath,
          ['-r', TS_NODE, FAULT_PROCESS, JSON.stringify({ kind: 'killedClient', url: `${server.url}/tools`, token: TEST_TOKEN, path: `killed${round}.txt` })],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => d.toString().includes('CALLED') && resolve());
          child.once('exit', (code) => reject(new Error(`client exited early (${code})`)));
        });
        await server.review.waitForPending(1, 10_000);
        child.kill('SIGKILL');
        const deadline = Date.now() + 10_000;
        while (server.review.registry.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        if (server.review.registry.size === 0) closed++;
      }
      figures.push(`${KILL_ROUNDS} clients killed mid-review: ${closed} reviews closed, ${(await fs.readdir(ws)).length} files written`);
      expect(closed).toBe(KILL_ROUNDS);
      expect(await fs.readdir(ws)).toEqual([]);
      expect(server.documents.written).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  test('named pipes, devices and sockets: every reading tool refuses them at once; the fs pool never blocks', async () => {
    const ws = path.join(root, 'ws');
    await fs.mkdir(path.join(ws, 'pipes'), { recursive: true });
    await fs.writeFile(path.join(ws, 'plain.txt'), 'plain\n');
    for (let i = 0; i < 16; i++) execFileSync('mkfifo', [path.join(ws, 'pipes', `p${i}`)]);
    const socketPath = path.join(ws, 'sock');
    const unixServer = net.createServer().listen(socketPath);
    await new Promise((r) => unixServer.once('listening', r));
    const server = await startWorkspaceToolServer(() => [ws]);
    try {
      const tools = await server.tools();
      const ide = await server.ide();
      const specials = [...Array.from({ length: 16 }, (_, i) => `pipes/p${i}`), 'sock'];
      const calls = specials.flatMap((p) => [
        server.call(tools, 'write_file', { path: p, content: 'x' }),
        server.call(tools, 'apply_diff', { path: p, diff: '<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE' }),
        server.call(tools, 'read_file', { path: p }),
        server.call(tools, 'search_files', { path: p, regex: 'x' }),
      ]);
      const devices = ['/dev/zero', '/dev/urandom', '/dev/null', path.join(ws, 'pipes', 'p0'), socketPath].map((old) =>
        server.call(ide, 'openDiff', { old_file_path: old, new_file_path: path.join(ws, 'n.txt'), new_file_contents: 'x', tab_name: `t ${old}` }),
      );
      const rssBefore = process.memoryUsage().rss;
      const results = await Promise.all([...calls, ...devices]);
      const rssGrowth = process.memoryUsage().rss - rssBefore;
      const refused = results.filter((r) => r.isError && /not a regular file|named pipe|socket|device/.test(resultText(r))).length;
      // Folders holding pipes are still listed and searched, and a plain file still reads.
      const listed = await server.call(tools, 'list_files', { path: 'pipes' });
      const searched = await server.call(tools, 'search_files', { path: '.', regex: 'plain' });
      const plain = await server.call(tools, 'read_file', { path: 'plain.txt' });
      figures.push(
        `${results.length} calls on ${specials.length} pipes/sockets and 3 devices (write_file, apply_diff, read_file, search_files, openDiff): ${refused} refused at once, ` +
          `${server.review.opened.length} reviews opened, RSS change ${(rssGrowth / 1024 / 1024).toFixed(0)} MiB`,
      );
      expect(refused).toBe(results.length);
      expect(server.review.opened).toHaveLength(0);
      expect(listed.isError).toBeFalsy();
      expect(resultText(searched)).toContain('plain.txt');
      expect(resultText(plain)).toContain('plain');
      expect(rssGrowth).toBeLessThan(256 * 1024 * 1024);
    } finally {
      await server.stop();
      unixServer.close();
    }
  });

  describe('~/.claude.json', () => {
    let file: string;
    beforeEach(() => {
      file = path.join(root, '.claude.json');
    });

    test('malformed in every way: refused, the bytes left exactly as they were, with what to do', async () => {
      const valid = JSON.stringify(BASE, null, 2);
      const variants = [
        '',
        ' \n\t',
        '{',
        '{"projects":',
        valid.slice(0, valid.length / 2),
        '[]',
        '[{"a":1}]',
        'null',
        '"text"',
        '42',
        'true',
        '{"a":1}{"b":2}',
        '\u0000\u0000\u0000',
        '\uFEFF{"a":1',
      ];
      let refused = 0;
      for (const text of variants) {
        await fs.writeFile(file, text);
        const config = new ClaudeUserConfig(file, { unreadableGraceMs: 30 });
        for (const edit of [() => config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry()), () => config.removeServer(TOOLS_SERVER_NAME)]) {
          const error = await edit().then(
            () => undefined,
            (e: Error) => e,
          );
          if (error && /left unchanged.*(Run claude once|backup)/s.test(error.message)) refused++;
        }
        expect(await fs.readFile(file, 'utf8')).toBe(text);
      }
      figures.push(`${variants.length} malformed ~/.claude.json variants × 2 edits: ${refused} refused, 0 changed`);
      expect(refused).toBe(variants.length * 2);
    });

    test('read-only file, and a folder where the lock cannot be made: refused with the reason, nothing changed', async () => {
      const dir = path.join(root, 'home');
      await fs.mkdir(dir);
      const ro = path.join(dir, '.claude.json');
      await fs.writeFile(ro, JSON.stringify(BASE));
      await fs.chmod(ro, 0o444);
      if (IS_ROOT) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
      const readOnly = await runTask<{ ok: boolean; message?: string }>({ kind: 'configEdit', file: ro, op: 'set' }, { asNobody: true });
      expect(readOnly).toMatchObject({ ok: false, message: expect.stringMatching(/is read-only.*left unchanged.*chmod u\+w/) });
      expect(JSON.parse(await fs.readFile(ro, 'utf8'))).toEqual(BASE);

      await fs.chmod(ro, 0o644);
      await fs.chmod(dir, 0o555); // the lock folder <file>.lock cannot be created here
      const noLock = await runTask<{ ok: boolean; message?: string }>({ kind: 'configEdit', file: ro, op: 'set' }, { asNobody: true });
      expect(noLock).toMatchObject({
        ok: false,
        message: expect.stringMatching(/Cannot create claude's lock .*\.lock \((EACCES|EPERM)\).*not writable; nothing was changed/),
      });
      expect(JSON.parse(await fs.readFile(ro, 'utf8'))).toEqual(BASE);
      await fs.chmod(dir, 0o755);
      figures.push(`read-only ~/.claude.json and unwritable folder (as uid ${IS_ROOT ? NOBODY : process.getuid?.()}): both refused, file unchanged`);
    });

    test('symlinked (a chain of two links): both links kept, the final target updated with its mode', async () => {
      const dotfiles = path.join(root, 'dotfiles');
      await fs.mkdir(dotfiles);
      const target = path.join(dotfiles, 'claude.json');
      await fs.writeFile(target, JSON.stringify(BASE));
      await fs.chmod(target, 0o600);
      await fs.symlink(target, path.join(root, 'middle.json'));
      await fs.symlink(path.join(root, 'middle.json'), file);
      await new ClaudeUserConfig(file).setServer(TOOLS_SERVER_NAME, toolsRouteEntry());
      expect((await fs.lstat(file)).isSymbolicLink()).toBe(true);
      expect((await fs.lstat(path.join(root, 'middle.json'))).isSymbolicLink()).toBe(true);
      expect(JSON.parse(await fs.readFile(target, 'utf8'))).toEqual({ ...BASE, mcpServers: { vscode: toolsRouteEntry() } });
      expect((await fs.stat(target)).mode & 0o777).toBe(0o600);
    });

    test(`raced by two writers using the CLI's lock (${RACE_ROUNDS} writes each) while the entry is toggled: no key ever lost, the link kept`, async () => {
      const target = path.join(root, 'dotfiles-claude.json');
      await fs.writeFile(target, JSON.stringify(BASE));
      await fs.symlink(target, file);
      const config = new ClaudeUserConfig(file, { lockWaitMs: 60_000 });
      let done = false;
      const writers = Promise.all(
        ['a', 'b'].map((prefix) => runTask<{ written: number; lockWaits: number }>({ kind: 'lockedWriter', file, rounds: RACE_ROUNDS, prefix })),
      ).finally(() => (done = true));
      let edits = 0;
      while (!done) {
        if (edits % 2 === 0) await config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry());
        else await config.removeServer(TOOLS_SERVER_NAME);
        edits++;
      }
      const [a, b] = await writers;
      const final = JSON.parse(await fs.readFile(file, 'utf8'));
      const kept = Object.keys(final).filter((k) => /^[ab]\d+$/.test(k)).length;
      figures.push(
        `lock-protocol race: 2 writers × ${RACE_ROUNDS} locked writes (waited ${a.lockWaits + b.lockWaits} times) + ${edits} toggles of the entry: ${kept}/${2 * RACE_ROUNDS} keys kept`,
      );
      expect(a.written + b.written).toBe(2 * RACE_ROUNDS);
      expect(kept).toBe(2 * RACE_ROUNDS);
      expect(final).toMatchObject(BASE);
      expect(edits).toBeGreaterThan(10);
      expect((await fs.lstat(file)).isSymbolicLink()).toBe(true);
      expect((await fs.readdir(root)).filter((f) => f.includes('.tmp.') || f.endsWith('.lock'))).toEqual([]);
    });

    test(`raced by a writer that rewrites the file in place without the lock (${RACE_ROUNDS} rewrites): never written from an empty or half-written read`, async () => {
      await fs.writeFile(file, JSON.stringify(BASE));
      const config = new ClaudeUserConfig(file, { unreadableGraceMs: 2000 });
      let done = false;
      const writer = runTask<{ rewrites: number; lostSeen: number; unparsableSeen: number }>({
        kind: 'inPlaceWriter',
        file,
        rounds: RACE_ROUNDS,
        keep: Object.keys(BASE),
      }).finally(() => (done = true));
      let edits = 0;
      let refusals = 0;
      while (!done) {
        try {
          if (edits % 2 === 0) await config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry());
          else await config.removeServer(TOOLS_SERVER_NAME);
        } catch {
          refusals++; // the file stayed unusable for the whole grace period or kept changing: nothing was written
        }
        edits++;
      }
      const result = await writer;
      const final = JSON.parse(await fs.readFile(file, 'utf8'));
      figures.push(
        `in-place race: ${result.rewrites} unlocked in-place rewrites + ${edits} edits (${refusals} refused): ${result.lostSeen} states with a lost key seen`,
      );
      expect(result.lostSeen).toBe(0);
      expect(final).toMatchObject(BASE);
      expect(edits).toBeGreaterThan(10);
    });
  });
});
