// Hardening — Claude's changes read files on behalf of a peer (claude's baseline `getDiagnostics {uri}`
// names any path) and of the file watcher (a link in the workspace leads anywhere). A procfs file reports
// size 0 and reads without end: `getDiagnostics {uri:"file:///proc/self/pagemap"}` from any token holder
// made the extension host allocate hundreds of MiB within seconds, and the same happened for a workspace
// link to it seen by the watcher. Any absolute path (`/proc/<pid>/environ`, `~/.ssh/…`) was also copied
// into the before-image store. Now only files inside the workspace (links resolved) are kept, and every
// read is bounded (regular files only, size 0 with content refused, 32 MiB at most). The real tool, the
// real ClaudeChanges (against a stand-in of the `vscode` module) and its tracker; real files and /proc.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { BeforeImageStore } from '../../src/changes/beforeImageStore';
import { ChangeTracker, readFileIfExists } from '../../src/changes/changeTracker';
import { ideGetDiagnosticsTool } from '../../src/tools/ideGetDiagnostics';
import { ClaudeChanges } from '../../src/vscode/changes/claudeChanges';
import { memoryLogger } from '../../src/util/logger';
import { readBytesIfExists } from '../../src/workspace/readTextIfExists';
import { StaticDiagnostics } from '../support/fakeHosts';
import { figures, MiB } from './support/hardenServer';
import { oneClaude, standIn } from './support/vscodeStandIn';

jest.setTimeout(60_000);

const describeLinux = process.platform === 'linux' ? describe : describe.skip;
const PAGEMAP = '/proc/self/pagemap';
/** Growth of this process's memory allowed while a capture runs (the fix's reads are bytes; the old one grew by hundreds of MiB). */
const BOUND = 64 * MiB;

/** Runs `work`, sampling the process's memory every 20 ms; the peak growth (stops waiting once past 4x the bound or after 5 s). */
async function peakGrowth(work: () => Promise<unknown>): Promise<{ grown: number; finished: boolean }> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.memoryUsage().rss;
  let peak = 0;
  let finished = false;
  const done = work().then(
    () => (finished = true),
    () => (finished = true),
  );
  const deadline = Date.now() + 5_000;
  while (!finished && Date.now() < deadline && peak < 4 * BOUND) {
    await new Promise((r) => setTimeout(r, 20));
    peak = Math.max(peak, process.memoryUsage().rss - start);
  }
  peak = Math.max(peak, process.memoryUsage().rss - start);
  if (finished) await done;
  return { grown: peak, finished };
}

describeLinux("hardening: what Claude's changes read for a peer or the watcher is bounded, and only the workspace is kept", () => {
  let root: string;
  let ws: string;
  let secret: string;
  let changes: ClaudeChanges;
  const { bridge, windowSessions, session } = oneClaude;
  const blobs = async () =>
    (await fs.readdir(path.join(root, 'storage', 'claude-changes', 'before-images')).catch(() => [] as string[])).filter((n) => /^[0-9a-f]{64}$/.test(n));

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-bounded-')));
    ws = path.join(root, 'ws');
    secret = path.join(root, 'home', '.ssh', 'id_ed25519');
    await fs.mkdir(ws);
    await fs.mkdir(path.dirname(secret), { recursive: true });
    await fs.writeFile(secret, 'PRIVATE KEY\n');
    standIn.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: ws } }];
    changes = new ClaudeChanges(path.join(root, 'storage'), bridge, windowSessions, () => false, memoryLogger([]));
  });
  afterEach(async () => {
    changes.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** claude's baseline call, as the CLI sends it before a write (no tool_use id). */
  const baseline = (uri: string) =>
    ideGetDiagnosticsTool(new StaticDiagnostics(), undefined, undefined, changes.tracker).handle(
      { uri },
      { connectionId: 1, signal: new AbortController().signal },
    );

  test('getDiagnostics {uri:"file:///proc/self/pagemap"}: answered, memory bounded, nothing captured', async () => {
    const { grown, finished } = await peakGrowth(async () => {
      await baseline(`file://${PAGEMAP}`);
      await changes.tracker.settled();
    });
    figures('baseline of /proc/self/pagemap', { grownMiB: (grown / MiB).toFixed(1), finished: String(finished) });
    expect(finished).toBe(true);
    expect(grown).toBeLessThan(BOUND);
    expect(await blobs()).toEqual([]);
  });

  test('a workspace link to /proc/self/pagemap, seen by the watcher and named by a baseline: memory bounded, nothing captured or listed', async () => {
    const link = path.join(ws, 'pagemap');
    await fs.symlink(PAGEMAP, link);
    changes.tracker.noteCall(1); // claude is working: an unannounced change would go to it
    const { grown, finished } = await peakGrowth(async () => {
      await changes.tracker.fileChanged(link);
      await baseline(`file://${link}`);
      await changes.tracker.fileChanged(link);
      await changes.tracker.settled();
    });
    figures('workspace link to /proc/self/pagemap', { grownMiB: (grown / MiB).toFixed(1), finished: String(finished) });
    expect(finished).toBe(true);
    expect(grown).toBeLessThan(BOUND);
    expect(await blobs()).toEqual([]);
    expect(changes.sessions().flatMap((s) => s.files)).toEqual([]);
  });

  test('a file outside the workspace (a key under ~/.ssh), named by a baseline or reached through a workspace link: never copied into the store', async () => {
    await baseline(`file://${secret}`);
    await fs.writeFile(secret, 'PRIVATE KEY (rotated)\n');
    await changes.tracker.fileChanged(secret);
    const link = path.join(ws, 'key');
    await fs.symlink(secret, link);
    changes.tracker.noteCall(1);
    await changes.tracker.fileChanged(link);
    await baseline(`file://${link}`);
    await changes.tracker.settled();
    expect(await blobs()).toEqual([]);
    expect(changes.sessions().flatMap((s) => s.files)).toEqual([]);
  });

  test('the positive control: a workspace file named by a baseline is kept and listed', async () => {
    const file = path.join(ws, 'a.txt');
    await fs.writeFile(file, 'before\n');
    await baseline(`file://${file}`);
    await fs.writeFile(file, 'after\n');
    await changes.tracker.fileChanged(file);
    await changes.tracker.settled();
    expect(changes.sessions()).toMatchObject([{ id: session, files: [{ path: file, attribution: 'certain' }] }]);
    expect((await blobs()).length).toBe(2);
  });

  test('git\'s content as the "before" of an unannounced change: a blob over the 32 MiB cap is not loaded', async () => {
    // The git extension's API as its git.d.ts has it; git's answer for the index: a 4 GiB blob (a large file committed).
    let loaded = 0;
    const repository = {
      checkIgnore: async () => new Set<string>(),
      getObjectDetails: async () => ({ mode: '100644', object: 'f'.repeat(40), size: 4 * 1024 * MiB }),
      buffer: async () => {
        loaded++;
        return Buffer.alloc(0);
      },
    };
    (vscode.extensions as { getExtension: unknown }).getExtension = () => ({
      isActive: true,
      exports: { getAPI: () => ({ getRepository: () => repository }) },
    });
    changes.dispose();
    changes = new ClaudeChanges(path.join(root, 'storage'), bridge, windowSessions, () => false, memoryLogger([]));
    const file = path.join(ws, 'huge.bin');
    await fs.writeFile(file, 'now\n');
    changes.tracker.noteCall(1);
    await changes.tracker.fileChanged(file);
    await changes.tracker.settled();
    expect(loaded).toBe(0);
    expect(changes.sessions().flatMap((s) => s.files)).toEqual([]);
  });

  test("the reads themselves refuse procfs whoever asks: the capture without a workspace check, and the tools' reader", async () => {
    const tracker = new ChangeTracker({
      store: new BeforeImageStore(path.join(root, 'store')),
      sessionOf: () => ({ id: 's', label: 'claude' }),
      save: () => undefined,
    });
    const { grown, finished } = await peakGrowth(async () => {
      await expect(readFileIfExists(PAGEMAP)).rejects.toThrow(/size of 0 but has content/);
      await expect(readBytesIfExists(PAGEMAP)).rejects.toThrow(/size of 0 but has content/);
      await tracker.beforeWrite(1, PAGEMAP, 'baseline');
      await tracker.settled();
    });
    figures('capture of /proc/self/pagemap with no workspace check', { grownMiB: (grown / MiB).toFixed(1), finished: String(finished) });
    expect(finished).toBe(true);
    expect(grown).toBeLessThan(BOUND);
    expect(tracker.list().flatMap((s) => s.files)).toEqual([]);
    // An empty regular file is still read (size 0, no content).
    await fs.writeFile(path.join(root, 'empty'), '');
    expect((await readFileIfExists(path.join(root, 'empty'))).bytes?.byteLength).toBe(0);
  });
});
