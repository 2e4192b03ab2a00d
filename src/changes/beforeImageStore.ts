import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Before-images on disk, in the extension's own storage (never the workspace): one file per distinct
 * content, named by its SHA-256, so the same content changed twice is stored once and a blob that does
 * not match its name is never restored. The folder is 0700 and each blob 0600: a before-image may hold
 * a secret the user later removed from the file. Which blobs are still needed is the ledger's to say
 * (changeLedger.ts); `sweep` deletes the others.
 */
export class BeforeImageStore {
  private ready?: Promise<void>;
  private turn: Promise<void> = Promise.resolve();
  /** The blobs on disk and their sizes (read once when the folder is opened, then kept up to date). */
  private readonly blobs = new Map<string, number>();

  constructor(readonly dir: string) {}

  /** Bytes of all blobs on disk. */
  storedBytes(): number {
    let total = 0;
    for (const size of this.blobs.values()) total += size;
    return total;
  }

  /** The size of a stored blob (undefined: not stored). */
  sizeOf(id: string): number | undefined {
    return this.blobs.get(id);
  }

  /** How many blobs are on disk. */
  storedCount(): number {
    return this.blobs.size;
  }

  /**
   * Deletes every blob not in `needed()`, from what is known to be stored (no listing of the folder).
   * No put runs meanwhile, and `needed` is asked once no put is under way, so a blob stored (or found
   * stored) for a reference being made is never deleted under it.
   */
  collect(needed: () => ReadonlySet<string>): Promise<void> {
    return this.exclusive(async () => {
      await this.open();
      const keep = needed();
      for (const id of [...this.blobs.keys()]) {
        if (keep.has(id)) continue;
        this.blobs.delete(id);
        await fs.rm(path.join(this.dir, id), { force: true });
      }
    });
  }

  /** Puts and collections one at a time. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work);
    this.turn = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Stores `bytes` (if not stored yet) and returns its id. `pin` is told the id before any collection
   * can run after this put (the caller's reference is then safe from it).
   */
  put(bytes: Uint8Array, pin?: (id: string) => void): Promise<string> {
    return this.exclusive(async () => {
      const id = await this.putNow(bytes);
      pin?.(id);
      return id;
    });
  }

  private async putNow(bytes: Uint8Array): Promise<string> {
    await this.open();
    const id = createHash('sha256').update(bytes).digest('hex');
    const file = path.join(this.dir, id);
    // Stored already (a blob cut short, e.g. by a full disk, is written again).
    if ((await sizeOf(file)) === bytes.byteLength) {
      this.blobs.set(id, bytes.byteLength);
      return id;
    }
    // Written under a random name first, so a reader never sees half a blob under its id.
    const temp = path.join(this.dir, `.${id}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    this.blobs.set(id, bytes.byteLength);
    return id;
  }

  /** The bytes stored as `id`; a clear error when the blob is gone or does not match its id. */
  async get(id: string): Promise<Buffer> {
    if (!/^[0-9a-f]{64}$/.test(id)) throw new Error(`not a before-image id: ${JSON.stringify(id)}`);
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path.join(this.dir, id), { flag: fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW });
    } catch (error) {
      throw new Error(
        `the content before Claude's change is no longer stored (${(error as NodeJS.ErrnoException).code ?? String(error)}): the file can only be kept`,
        { cause: error },
      );
    }
    if (createHash('sha256').update(bytes).digest('hex') !== id)
      throw new Error("the stored content before Claude's change is damaged: the file can only be kept");
    return bytes;
  }

  /** Deletes every blob (and leftover temporary file) not in `needed`. */
  async sweep(needed: ReadonlySet<string>): Promise<void> {
    await this.open();
    for (const name of await fs.readdir(this.dir)) {
      if (needed.has(name)) {
        const size = await sizeOf(path.join(this.dir, name));
        if (size !== undefined) this.blobs.set(name, size);
        continue;
      }
      if (/^[0-9a-f]{64}$/.test(name) || /^\.[0-9a-f]{64}\.[0-9a-f]{12}\.tmp$/.test(name)) {
        this.blobs.delete(name);
        await fs.rm(path.join(this.dir, name), { force: true });
      }
    }
  }

  private open(): Promise<void> {
    this.ready ??= (async () => {
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const stat = await fs.lstat(this.dir);
      if (!stat.isDirectory()) throw new Error(`${this.dir} is not a folder: before-images are not stored`);
      if ((stat.mode & 0o077) !== 0) await fs.chmod(this.dir, 0o700);
    })();
    this.ready.catch(() => (this.ready = undefined));
    return this.ready;
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    const stat = await fs.lstat(file);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}
