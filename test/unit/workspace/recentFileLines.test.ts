// RecentFileLines: the lines of a file read in an earlier call are used again only while a stat shows
// the very same file unchanged and not just written; anything else is read again, as readTextIfExists reads.

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecentFileLines } from '../../../src/workspace/recentFileLines';

const split = (text: string) => text.split('\n');
const LATER = 60_000;

describe('RecentFileLines', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-recent-lines-')));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  // `now` far ahead: every file counts as settled (not just written) unless a test says otherwise.
  const recent = (limits = { fileBytes: 1024, totalBytes: 4096, racyMs: 2000 }, now = () => Date.now() + LATER) => new RecentFileLines(split, limits, now);

  test('an unchanged file is used again; a change of the same size is read again', async () => {
    const file = path.join(dir, 'a.ts');
    await fs.writeFile(file, 'one\ntwo\n');
    const lines = recent();
    const first = await lines.lines(file, 1 << 20);
    expect(first).toEqual(['one', 'two', '']);
    expect(await lines.lines(file, 1 << 20)).toBe(first); // the kept copy
    await fs.writeFile(file, 'uno\ndos\n'); // same size: mtime, ctime differ
    expect(await lines.lines(file, 1 << 20)).toEqual(['uno', 'dos', '']);
  });

  test('keptIfUnchanged: the kept lines while a stat shows the file unchanged, else undefined (nothing read)', async () => {
    const file = path.join(dir, 'a.ts');
    await fs.writeFile(file, 'one\ntwo\n');
    const lines = recent();
    expect(await lines.keptIfUnchanged(file)).toBeUndefined(); // never read
    const first = await lines.lines(file, 1 << 20);
    expect(await lines.keptIfUnchanged(file)).toBe(first);
    await fs.writeFile(file, 'uno\ndos\n'); // same size: mtime, ctime differ
    expect(await lines.keptIfUnchanged(file)).toBeUndefined();
    expect(await lines.lines(file, 1 << 20)).toEqual(['uno', 'dos', '']);
    await fs.rm(file);
    expect(await lines.keptIfUnchanged(file)).toBeUndefined();
    // Kept, then asked while its change is within the racy window: not used, whatever the stat says.
    await fs.writeFile(file, 'new\n');
    let later = LATER;
    const racy = recent(undefined, () => Date.now() + later);
    const kept = await racy.lines(file, 1 << 20);
    expect(await racy.keptIfUnchanged(file)).toBe(kept);
    later = 0;
    expect(await racy.keptIfUnchanged(file)).toBeUndefined();
  });

  test("keptIfUnchanged with the caller's stat (taken before the real path was known): the kept lines only when that stat is of the very file read, unchanged", async () => {
    const file = path.join(dir, 'a.ts');
    const other = path.join(dir, 'b.ts');
    const link = path.join(dir, 'link.ts');
    await fs.writeFile(file, 'one\ntwo\n');
    await fs.writeFile(other, 'one\ntwo\n'); // the same text and size: another file
    await fs.symlink(file, link);
    const lines = recent();
    const first = await lines.lines(file, 1 << 20);
    // The path the answer named (a link to the file) stat'ed while its real path was looked up.
    expect(await lines.keptIfUnchanged(file, RecentFileLines.statOf(link))).toBe(first);
    // The link swapped to another file meanwhile: not the file read, so not its lines.
    const swapped = RecentFileLines.statOf(other);
    expect(await lines.keptIfUnchanged(file, swapped)).toBeUndefined();
    expect(await lines.keptIfUnchanged(file, RecentFileLines.statOf(path.join(dir, 'gone.ts')))).toBeUndefined();
  });

  test('a file written within the racy window is never kept (coarse timestamps could hide a change)', async () => {
    const file = path.join(dir, 'a.ts');
    await fs.writeFile(file, 'one\n');
    const lines = recent(undefined, () => Date.now());
    const first = await lines.lines(file, 1 << 20);
    expect(await lines.lines(file, 1 << 20)).not.toBe(first);
  });

  test('the file replaced at the same path (a new inode, a FIFO, gone): read again, or refused as readTextIfExists refuses', async () => {
    const file = path.join(dir, 'a.ts');
    await fs.writeFile(file, 'kept\n');
    const lines = recent();
    const first = await lines.lines(file, 1 << 20);
    expect(first).toEqual(['kept', '']);
    const other = path.join(dir, 'b.ts');
    await fs.writeFile(other, 'kept\n');
    await fs.rename(other, file); // same size and text, another inode
    const again = await lines.lines(file, 1 << 20);
    expect(again).toEqual(['kept', '']);
    expect(again).not.toBe(first);
    await fs.rm(file);
    execFileSync('mkfifo', [file]);
    await expect(lines.lines(file, 1 << 20)).rejects.toThrow(/not a regular file/);
    await fs.rm(file);
    expect(await lines.lines(file, 1 << 20)).toBeUndefined();
  });

  test('bounded: a file over the per-file size is not kept, and the least recently used go past the total', async () => {
    const big = path.join(dir, 'big.ts');
    await fs.writeFile(big, 'x'.repeat(2000));
    const lines = recent({ fileBytes: 1024, totalBytes: 2048, racyMs: 2000 });
    const firstBig = await lines.lines(big, 1 << 20);
    expect(await lines.lines(big, 1 << 20)).not.toBe(firstBig);
    const files = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const f = path.join(dir, `f${i}.ts`);
        await fs.writeFile(f, `${i}`.repeat(1000));
        return f;
      }),
    );
    const read = [];
    for (const f of files) read.push(await lines.lines(f, 1 << 20));
    // 3 x 1,000 bytes over a 2,048 total: the first one read was let go, the last two kept.
    expect(await lines.lines(files[2], 1 << 20)).toBe(read[2]);
    expect(await lines.lines(files[1], 1 << 20)).toBe(read[1]);
    expect(await lines.lines(files[0], 1 << 20)).not.toBe(read[0]);
  });
});
