// Hardening — Claude's changes' before-image store on disk. Every content the tracker saw was stored as
// a blob, but the bound (256 MiB, 5,000 files) applied to the list only, and blobs no entry needed were
// deleted at start-up only: a 256 KiB file rewritten 40 times while a claude worked left 41 blobs (10 MiB)
// where the list needs 2, and contents last seen of files the watcher reported piled up without limit.
// Now the store is bounded on disk after every write, the oldest dropped, and the user told once. Real
// tracker, real store, real files; a bound of 1 MiB stands in for 256 MiB.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../src/changes/beforeImageStore';
import { ChangeTracker } from '../../src/changes/changeTracker';
import { figures, MiB } from './support/hardenServer';

jest.setTimeout(60_000);

const KiB = 1024;
/** Distinct content of `size` bytes (line text, so the tracker diffs it like source). */
const content = (seed: string, size: number) => `${seed}\n`.repeat(Math.ceil(size / (seed.length + 1))).slice(0, size);

describe("hardening: Claude's changes' store is bounded on disk at every write", () => {
  let root: string;
  let storeDir: string;
  let told: number;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-store-')));
    storeDir = path.join(root, 'store');
    told = 0;
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  function tracker(maxBytes = 256 * MiB) {
    const t = new ChangeTracker({
      store: new BeforeImageStore(storeDir),
      sessionOf: () => ({ id: 's', label: 'claude' }),
      save: () => undefined,
      bound: { maxBytes, maxFiles: 5000 },
    });
    (t as unknown as { onDidDropOldest?: (l: () => void) => void }).onDidDropOldest?.(() => told++);
    return t;
  }

  async function onDisk(): Promise<{ blobs: number; bytes: number }> {
    const names = (await fs.readdir(storeDir).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{64}$/.test(n));
    let bytes = 0;
    for (const name of names) bytes += (await fs.stat(path.join(storeDir, name))).size;
    return { blobs: names.length, bytes };
  }

  test('a 256 KiB file rewritten 40 times while claude works: the blobs the list needs, not one per write', async () => {
    const t = tracker();
    const file = path.join(root, 'big.txt');
    await fs.writeFile(file, content('before', 256 * KiB));
    await t.beforeWrite(1, file, 'baseline');
    for (let i = 1; i <= 40; i++) {
      await fs.writeFile(file, content(`write ${i}`, 256 * KiB));
      await t.fileChanged(file);
    }
    await t.settled();
    const disk = await onDisk();
    figures('256 KiB file rewritten 40 times', { blobs: disk.blobs, MiB: (disk.bytes / MiB).toFixed(2) });
    expect(t.list()[0].files).toHaveLength(1);
    expect(disk.blobs).toBe(2); // before Claude, and what it left
    // The change still undoes to its before-image byte for byte.
    await t.undoFile('s', file, async () => true);
    expect(await fs.readFile(file, 'utf8')).toBe(content('before', 256 * KiB));
  });

  test('what Redo brings back keeps its blobs through the collections: its hunks still undo', async () => {
    const t = tracker();
    const file = path.join(root, 'r.txt');
    await fs.writeFile(file, 'one\ntwo\nthree\n');
    await t.beforeWrite(1, file, 'baseline');
    await fs.writeFile(file, 'one\nTWO\nthree\n');
    await t.fileChanged(file);
    // The user edits another line after claude, then undoes claude's change anyway.
    await fs.writeFile(file, 'one\nTWO\nthree (mine)\n');
    await t.undoFile('s', file, async () => true);
    // Other work collects meanwhile.
    const other = path.join(root, 'other.txt');
    await fs.writeFile(other, 'x\n');
    await t.beforeWrite(1, other, 'baseline');
    await fs.writeFile(other, 'y\n');
    await t.fileChanged(other);
    await t.settled();
    await t.redo();
    expect(await fs.readFile(file, 'utf8')).toBe('one\nTWO\nthree (mine)\n');
    // The relisted change still has what claude left: undoing its hunk asks about the user's line, then works.
    expect(await t.undoHunk('s', file, { index: 0 }, async () => true)).toBe(true);
    expect(await fs.readFile(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  test('changes of 8 files of 256 KiB against a 1 MiB bound: never over it on disk, the oldest dropped, the user told once', async () => {
    const t = tracker(1 * MiB);
    let most = 0;
    for (let i = 0; i < 8; i++) {
      const file = path.join(root, `f${i}.txt`);
      await fs.writeFile(file, content(`before ${i}`, 256 * KiB));
      await t.beforeWrite(1, file, 'baseline');
      await fs.writeFile(file, content(`after ${i}`, 256 * KiB));
      await t.fileChanged(file);
      await t.settled();
      most = Math.max(most, (await onDisk()).bytes);
    }
    const listed = t.list().flatMap((s) => s.files.map((f) => path.basename(f.path)));
    figures('8 changed files of 256 KiB, bound 1 MiB', { mostOnDiskMiB: (most / MiB).toFixed(2), listed: listed.length, told });
    expect(most).toBeLessThanOrEqual(1 * MiB);
    expect(listed).toEqual(['f6.txt', 'f7.txt']); // each needs 512 KiB: the newest two fit
    expect(told).toBe(1);
  });

  test('contents last seen of 12 files the watcher reported (no call named them): within the bound, the oldest forgotten', async () => {
    const t = tracker(1 * MiB);
    t.noteCall(1);
    let most = 0;
    for (let i = 0; i < 12; i++) {
      const file = path.join(root, `out${i}.txt`);
      await fs.writeFile(file, content(`generated ${i}`, 256 * KiB));
      await t.fileChanged(file);
      await t.settled();
      most = Math.max(most, (await onDisk()).bytes);
    }
    figures('12 files of 256 KiB seen by the watcher, bound 1 MiB', { mostOnDiskMiB: (most / MiB).toFixed(2), told });
    expect(most).toBeLessThanOrEqual(1 * MiB);
    expect(told).toBe(1);
    // The newest one still has its content last seen: its next unannounced change is listed against it.
    const last = path.join(root, 'out11.txt');
    await fs.writeFile(last, content('changed again', 256 * KiB));
    expect(await t.fileChanged(last)).toMatchObject({ source: 'last-known' });
  });
});
