// Hardening — Claude's changes: an undo writes where a before-image says, long after the capture, so
// whatever was swapped in at that path meanwhile must not redirect it: a symbolic link to a file
// outside, a hard link to one, a link in place of a file claude created. A capture must not block on a
// named pipe put where a file was, and a blob tampered with in the store is never restored. Real files,
// real links, real FIFOs.

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../src/changes/beforeImageStore';
import { ChangeTracker } from '../../src/changes/changeTracker';

jest.setTimeout(30_000);

describe("hardening: Claude's changes", () => {
  let root: string;
  let ws: string;
  let outside: string;
  let tracker: ChangeTracker;
  const yes = async () => true;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-changes-')));
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside.txt');
    await fs.mkdir(ws);
    await fs.writeFile(outside, 'outside\n');
    tracker = new ChangeTracker({
      store: new BeforeImageStore(path.join(root, 'store')),
      sessionOf: () => ({ id: 's', label: 'claude' }),
      save: () => undefined,
    });
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  async function claudeChanged(name: string, before: string | undefined, after: string): Promise<string> {
    const file = path.join(ws, name);
    if (before !== undefined) await fs.writeFile(file, before);
    await tracker.beforeWrite(1, file, 'baseline');
    await fs.writeFile(file, after);
    expect(await tracker.fileChanged(file)).toBeDefined();
    return file;
  }

  test('a symbolic link to a file outside, swapped in before the undo: refused, the outside file untouched', async () => {
    const file = await claudeChanged('a.txt', 'before\n', 'after\n');
    await fs.rm(file);
    await fs.symlink(outside, file);
    await expect(tracker.undoFile('s', file, yes)).rejects.toThrow(/symbolic link.*Nothing was written/s);
    expect(await fs.readFile(outside, 'utf8')).toBe('outside\n');
  });

  test('a hard link to a file outside, swapped in before the undo: refused, the outside file untouched', async () => {
    const file = await claudeChanged('b.txt', 'before\n', 'after\n');
    await fs.rm(file);
    await fs.link(outside, file);
    await expect(tracker.undoHunk('s', file, { index: 0 }, yes)).rejects.toThrow(/hard links/);
    await expect(tracker.undoFile('s', file, yes)).rejects.toThrow(/hard links/);
    expect(await fs.readFile(outside, 'utf8')).toBe('outside\n');
  });

  test('undoing a created file that is now a link: the link is not followed, nothing outside is removed', async () => {
    const file = await claudeChanged('new.txt', undefined, 'new\n');
    await fs.rm(file);
    await fs.symlink(outside, file);
    await expect(tracker.undoFile('s', file, yes)).rejects.toThrow(/symbolic link/);
    expect(await fs.readFile(outside, 'utf8')).toBe('outside\n');
  });

  test("a named pipe where claude's baseline names a file: the capture answers at once, nothing is read from the pipe", async () => {
    const fifo = path.join(ws, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    await tracker.beforeWrite(1, fifo, 'baseline');
    expect(Date.now() - started).toBeLessThan(1_000);
    await tracker.settled();
  });

  test('a blob changed in the store after the capture is never restored: the file stays as it is', async () => {
    const file = await claudeChanged('c.txt', 'before\n', 'after\n');
    const change = tracker.list()[0].files[0];
    if (!('blob' in change.before)) throw new Error('expected a stored before-image');
    await fs.writeFile(path.join(root, 'store', change.before.blob), 'forged\n');
    await expect(tracker.undoFile('s', file, yes)).rejects.toThrow(/damaged: the file can only be kept/);
    expect(await fs.readFile(file, 'utf8')).toBe('after\n');
  });
});
