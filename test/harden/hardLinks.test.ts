// Hardening — hard links: a hard link is another name for the same file, so a link inside the
// workspace to a file outside passes every path check (its real path is inside). Writes to a regular
// file with more than one link are refused: before the review when the link is already there, at
// write time when it was made while the review was open. Real server, real sockets, real links.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HardLinkedFileError, writeWithoutFollowing } from '../../src/workspace/noFollowWrite';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

jest.setTimeout(60_000);

const FAST = process.env.HARDEN_FAST === '1';
const SWAP_ROUNDS = FAST ? 10 : 100;
const REASON = /has 2 hard links.*other names, possibly outside the workspace.*Nothing was written.*cp -p/s;

describe('hardening: hard links', () => {
  let root: string;
  let ws: string;
  let outside: string;
  let secret: string;
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;
  const figures: string[] = [];

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-hardlinks-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    secret = path.join(outside, 'secret.txt');
    await fs.mkdir(ws);
    await fs.mkdir(outside);
    await fs.writeFile(secret, 'secret\n');
    await fs.link(secret, path.join(ws, 'linked.txt'));
    server = await startWorkspaceToolServer(() => [ws]);
  });
  afterEach(async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });
  afterAll(() => {
    console.log(`hardening/hard links figures:\n  ${figures.join('\n  ')}`);
  });

  test('write_file and apply_diff to a hard link of an outside file: refused before any review, with why and what to do', async () => {
    const client = await server.tools();
    const calls = [
      { tool: 'write_file', args: { path: 'linked.txt', content: 'PWNED\n' } },
      { tool: 'write_file', args: { path: path.join(ws, 'linked.txt'), content: 'PWNED\n' } },
      { tool: 'apply_diff', args: { path: 'linked.txt', diff: '<<<<<<< SEARCH\nsecret\n=======\nPWNED\n>>>>>>> REPLACE' } },
    ];
    const leaks: string[] = [];
    for (const { tool, args } of calls) {
      const answer = server.call(client, tool, args);
      // A review that opens is a leak: reject it (the write would go to the outside file) and record it.
      const opened = await Promise.race([
        answer.then(() => false),
        server.review.waitForPending(1, 1000).then(
          () => true,
          () => false,
        ),
      ]);
      if (opened) {
        await server.review.decide({ kind: 'rejected', reason: 'user' });
        leaks.push(`${tool} ${args.path}: a review opened`);
      }
      const result = await answer;
      if (!opened && !(result.isError && REASON.test(resultText(result)))) leaks.push(`${tool} ${args.path}: ${resultText(result).slice(0, 160)}`);
    }
    expect(leaks).toEqual([]);
    expect(server.review.opened).toHaveLength(0);
    expect(await fs.readFile(secret, 'utf8')).toBe('secret\n');
    figures.push(`${calls.length} writes to a hard link of an outside file: refused before review, outside unchanged`);
  });

  test('a file replaced by a hard link to an outside file while the review is open: refused at write time, outside unchanged', async () => {
    const client = await server.tools();
    let refused = 0;
    for (let round = 0; round < SWAP_ROUNDS; round++) {
      const name = `notes${round}.txt`;
      await fs.writeFile(path.join(ws, name), 'inside\n');
      const tool = round % 2 === 0 ? 'write_file' : 'apply_diff';
      const args = tool === 'write_file' ? { path: name, content: 'PWNED\n' } : { path: name, diff: '<<<<<<< SEARCH\ninside\n=======\nPWNED\n>>>>>>> REPLACE' };
      const answer = server.call(client, tool, args);
      await server.review.waitForPending();
      await fs.rm(path.join(ws, name));
      await fs.link(secret, path.join(ws, name));
      await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
      const result = await answer;
      if (result.isError && /accepted but could not be written.*hard links/s.test(resultText(result))) refused++;
    }
    figures.push(`${SWAP_ROUNDS} reviews with the file swapped for a hard link to outside before acceptance: ${refused} refused at write time`);
    expect(refused).toBe(SWAP_ROUNDS);
    expect(await fs.readFile(secret, 'utf8')).toBe('secret\n');
  });

  test('the no-follow writer itself refuses a file with another hard link', async () => {
    await expect(writeWithoutFollowing(path.join(ws, 'linked.txt'), 'PWNED\n')).rejects.toThrow(HardLinkedFileError);
    expect(await fs.readFile(secret, 'utf8')).toBe('secret\n');
  });

  test('positive controls: after the copy the message suggests, the write lands inside only; reads of a hard link are served', async () => {
    const client = await server.tools();
    const read = await server.call(client, 'read_file', { path: 'linked.txt' });
    expect(read.isError).toBeFalsy();
    const linked = path.join(ws, 'linked.txt');
    await fs.copyFile(linked, `${linked}.tmp`);
    await fs.rename(`${linked}.tmp`, linked);
    const answer = server.call(client, 'write_file', { path: 'linked.txt', content: 'mine now\n' });
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect(resultText(await answer)).toContain('"status": "accepted"');
    expect(await fs.readFile(linked, 'utf8')).toBe('mine now\n');
    expect(await fs.readFile(secret, 'utf8')).toBe('secret\n');
  });
});
