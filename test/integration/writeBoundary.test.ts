// The workspace boundary at the moment of writing, and reads that cannot block or run away: real
// temp folders, real symbolic links and named pipes, the real server and the SDK's real Client.

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PathChangedError, writeWithoutFollowing } from '../../src/workspace/noFollowWrite';
import { readTextIfExists, UnreadableFileError } from '../../src/workspace/readTextIfExists';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

jest.setTimeout(20_000);

const mkfifo = (p: string) => execFileSync('mkfifo', [p]);

describe('writes hold the boundary when they happen; reads touch only regular files', () => {
  let root: string;
  let ws: string;
  let outside: string;
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-boundary-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    await fs.mkdir(path.join(ws, 'swapdir'), { recursive: true });
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'outside original\n');
    await fs.writeFile(path.join(ws, 'notes.txt'), 'inside\n');
    server = await startWorkspaceToolServer(() => [ws]);
  });
  afterEach(async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('write_file into a folder swapped for a link to outside during the review: refused, nothing written outside', async () => {
    const client = await server.tools();
    const answer = server.call(client, 'write_file', { path: 'swapdir/new.txt', content: 'payload\n' });
    await server.review.waitForPending();
    await fs.rm(path.join(ws, 'swapdir'), { recursive: true });
    await fs.symlink(outside, path.join(ws, 'swapdir'));
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/accepted but not written.*symbolic link.*nothing was written/s);
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
  });

  test('write_file to a file replaced by a link to an outside file during the review: refused, the outside file unchanged', async () => {
    const client = await server.tools();
    const answer = server.call(client, 'write_file', { path: 'notes.txt', content: 'overwritten\n' });
    await server.review.waitForPending();
    await fs.rm(path.join(ws, 'notes.txt'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'notes.txt'));
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect((await answer).isError).toBe(true);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside original\n');
  });

  test('apply_diff on a file whose folder became a link during the review: refused', async () => {
    await fs.writeFile(path.join(ws, 'swapdir', 'code.txt'), 'a\nb\n');
    await fs.writeFile(path.join(outside, 'code.txt'), 'a\nb\n');
    const client = await server.tools();
    const answer = server.call(client, 'apply_diff', { path: 'swapdir/code.txt', diff: '<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE' });
    await server.review.waitForPending();
    await fs.rm(path.join(ws, 'swapdir'), { recursive: true });
    await fs.symlink(outside, path.join(ws, 'swapdir'));
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect((await answer).isError).toBe(true);
    expect(await fs.readFile(path.join(outside, 'code.txt'), 'utf8')).toBe('a\nb\n');
  });

  test('positive control: with nothing swapped the accepted write lands inside', async () => {
    const client = await server.tools();
    const answer = server.call(client, 'write_file', { path: 'swapdir/deep/new.txt', content: 'ok\n' });
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect(resultText(await answer)).toContain('"status": "accepted"');
    expect(await fs.readFile(path.join(ws, 'swapdir', 'deep', 'new.txt'), 'utf8')).toBe('ok\n');
  });

  test('the writer itself never follows a link: at the file, or at a folder on the way', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'));
    await expect(writeWithoutFollowing(path.join(ws, 'link.txt'), 'x')).rejects.toThrow(PathChangedError);
    await fs.symlink(outside, path.join(ws, 'linkdir'));
    await expect(writeWithoutFollowing(path.join(ws, 'linkdir', 'new.txt'), 'x')).rejects.toThrow(PathChangedError);
    await expect(writeWithoutFollowing(path.join(ws, 'linkdir', 'a', 'b.txt'), 'x')).rejects.toThrow(PathChangedError);
    expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside original\n');
    await expect(writeWithoutFollowing(path.join(ws, 'x', 'y', 'z.txt'), 'fine')).resolves.toBe('created');
    await expect(writeWithoutFollowing(path.join(ws, 'x', 'y', 'z.txt'), 'again')).resolves.toBe('modified');
    expect(await fs.readFile(path.join(ws, 'x', 'y', 'z.txt'), 'utf8')).toBe('again');
  });

  test('named pipes: write_file, apply_diff, read_file and search_files refuse them at once, and the pool stays free', async () => {
    for (let i = 0; i < 6; i++) mkfifo(path.join(ws, `pipe${i}`));
    const client = await server.tools();
    // Six at once: before, each blocked a libuv pool thread in open(2) and the fourth froze all fs calls.
    const answers = await Promise.all([
      ...[0, 1, 2, 3].map((i) => server.call(client, 'write_file', { path: `pipe${i}`, content: 'x' })),
      server.call(client, 'apply_diff', { path: 'pipe4', diff: '<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE' }),
      server.call(client, 'read_file', { path: 'pipe5' }),
      server.call(client, 'search_files', { path: 'pipe5', regex: 'x' }),
    ]);
    for (const answer of answers) {
      expect(answer.isError).toBe(true);
      expect(resultText(answer)).toMatch(/pipe|not a regular file/);
    }
    expect(resultText(answers[0])).toMatch(/named pipe \(FIFO\), not a regular file.*Nothing was changed/s);
    expect(server.review.opened).toHaveLength(0);
    // Plain files still work (the pool is not blocked).
    expect(resultText(await server.call(client, 'read_file', { path: 'notes.txt' }))).toContain('inside');
  });

  test('openDiff with old_file_path /dev/zero or a pipe: refused at once, no review, no runaway read', async () => {
    mkfifo(path.join(ws, 'pipe'));
    const client = await server.ide();
    const args = (old: string) => ({ old_file_path: old, new_file_path: path.join(ws, 'n.txt'), new_file_contents: 'x', tab_name: `t-${old}` });
    const before = process.memoryUsage().rss;
    for (const old of ['/dev/zero', path.join(ws, 'pipe')]) {
      const answer = await server.call(client, 'openDiff', args(old));
      expect(answer.isError).toBe(true);
      expect(resultText(answer)).toMatch(/No review opened: .*(character device|named pipe).*not a regular file/);
    }
    expect(server.review.opened).toHaveLength(0);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  test('readTextIfExists: missing → undefined; pipe, device, folder and over-cap files refused with the reason', async () => {
    mkfifo(path.join(ws, 'p'));
    await expect(readTextIfExists(path.join(ws, 'missing'))).resolves.toBeUndefined();
    await expect(readTextIfExists(path.join(ws, 'notes.txt'))).resolves.toBe('inside\n');
    await expect(readTextIfExists(path.join(ws, 'p'))).rejects.toThrow(/named pipe/);
    await expect(readTextIfExists('/dev/zero')).rejects.toThrow(/character device/);
    await expect(readTextIfExists(ws)).rejects.toThrow(/a folder/);
    await expect(readTextIfExists(path.join(ws, 'notes.txt'), { maxBytes: 3 })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(readTextIfExists(path.join(ws, 'notes.txt'), { maxBytes: 3 })).rejects.toBeInstanceOf(UnreadableFileError);
  });
});
