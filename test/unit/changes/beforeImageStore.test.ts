import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../../src/changes/beforeImageStore';

describe('BeforeImageStore', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-before-'));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('stores each content once, 0600 in a 0700 folder, and gives the same bytes back', async () => {
    const store = new BeforeImageStore(path.join(root, 'images'));
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xff, 0x00]);
    const id = await store.put(bytes);
    expect(await store.put(Buffer.from(bytes))).toBe(id);
    expect(await store.get(id)).toEqual(bytes);
    expect(await fs.readdir(path.join(root, 'images'))).toEqual([id]);
    expect((await fs.stat(path.join(root, 'images', id))).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.join(root, 'images'))).mode & 0o777).toBe(0o700);
  });

  test('a damaged or missing blob is refused with a reason, never restored', async () => {
    const store = new BeforeImageStore(root);
    const id = await store.put(Buffer.from('before'));
    await fs.writeFile(path.join(root, id), 'tampered');
    await expect(store.get(id)).rejects.toThrow(/damaged: the file can only be kept/);
    await fs.rm(path.join(root, id));
    await expect(store.get(id)).rejects.toThrow(/no longer stored \(ENOENT\)/);
    await expect(store.get('../x')).rejects.toThrow(/not a before-image id/);
  });

  test('a blob cut short is written again; a symlink planted under a blob name is not followed', async () => {
    const store = new BeforeImageStore(root);
    const id = await store.put(Buffer.from('full content'));
    await fs.writeFile(path.join(root, id), 'full');
    await store.put(Buffer.from('full content'));
    expect((await store.get(id)).toString()).toBe('full content');
    const target = path.join(root, 'elsewhere');
    await fs.writeFile(target, 'secret');
    const other = await store.put(Buffer.from('other'));
    await fs.rm(path.join(root, other));
    await fs.symlink(target, path.join(root, other));
    await expect(store.get(other)).rejects.toThrow(/no longer stored \(ELOOP\)/);
  });

  test('sweep deletes what the ledger no longer needs, and nothing else in the folder', async () => {
    const store = new BeforeImageStore(root);
    const keep = await store.put(Buffer.from('keep'));
    const drop = await store.put(Buffer.from('drop'));
    await fs.writeFile(path.join(root, 'changes.json'), '{}');
    await store.sweep(new Set([keep]));
    expect((await fs.readdir(root)).sort()).toEqual([keep, 'changes.json'].sort());
    expect(drop).not.toBe(keep);
  });

  test('a folder path that is a file is refused with a reason', async () => {
    await fs.writeFile(path.join(root, 'file'), 'x');
    await expect(new BeforeImageStore(path.join(root, 'file')).put(Buffer.from('a'))).rejects.toThrow();
  });
});
