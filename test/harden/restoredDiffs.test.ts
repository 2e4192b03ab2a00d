// Hardening — after a reload (issue 31, finding 6): VS Code restores the diffs of Claude's changes that
// were open. One whose change is still listed is shown again (its before-image is served by the
// extension's read-only file system); one whose change is gone (kept or undone meanwhile) would show "The
// editor could not be opened": it is closed, and the user told which. The real ClaudeChanges against a
// stand-in of the `vscode` module; real files.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { ClaudeChanges } from '../../src/vscode/changes/claudeChanges';
import { memoryLogger } from '../../src/util/logger';
import { oneClaude, standIn } from './support/vscodeStandIn';

jest.setTimeout(30_000);

describe('hardening: the diffs a reload restores are shown again or closed with a word', () => {
  let root: string;
  let storage: string;
  const { bridge, windowSessions } = oneClaude;
  const open: ClaudeChanges[] = [];

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-restored-')));
    storage = path.join(root, '..', `${path.basename(root)}-storage`);
    standIn.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: root } }];
  });
  afterEach(async () => {
    for (const c of open.splice(0)) c.dispose();
    await fs.rm(root, { recursive: true, force: true });
    await fs.rm(storage, { recursive: true, force: true });
  });

  const window = () => {
    const changes = new ClaudeChanges(storage, bridge, windowSessions, () => false, memoryLogger([]));
    open.push(changes);
    return changes;
  };
  const diffTab = (label: string, file: string, blob: string) => ({
    label,
    input: new vscode.TabInputTextDiff(vscode.Uri.from({ scheme: 'claude-before', path: file, query: blob }), vscode.Uri.file(file)),
  });

  test("a listed change's diff stays and reads back its before-image; a kept change's diff is closed, and the user told", async () => {
    // The first window: claude changes two files (its baselines, then its writes).
    const first = window();
    const [a, b] = [path.join(root, 'a.txt'), path.join(root, 'b.txt')];
    for (const f of [a, b]) await fs.writeFile(f, 'one\n');
    for (const f of [a, b]) {
      await first.tracker.beforeWrite(1, f, 'baseline');
      await fs.writeFile(f, 'two\n');
      await first.tracker.fileChanged(f);
    }
    await first.settled();
    const [entryA, entryB] = first.sessions()[0].files;
    const blobOf = (e: typeof entryA) => ('blob' in e.before ? e.before.blob : 'absent');
    const tabA = diffTab('a.txt (before Claude ↔ now)', a, blobOf(entryA));
    const tabB = diffTab('b.txt (before Claude ↔ now)', b, blobOf(entryB));
    // b.txt is kept; then the window reloads with both diffs open.
    await first.tracker.keepFile(first.sessions()[0].id, b);
    await first.settled();
    // The list is saved 200 ms after a change: wait until it holds a.txt alone.
    const ledger = path.join(storage, 'claude-changes', 'ledger.json');
    const saved = async () => {
      const text = await fs.readFile(ledger, 'utf8').catch(() => '');
      return text.includes('a.txt') && !text.includes('b.txt');
    };
    for (let i = 0; i < 100 && !(await saved()); i++) await new Promise((r) => setTimeout(r, 50));
    first.dispose();
    open.length = 0;
    standIn.tabs = [tabA, tabB];
    const second = window();
    await second.settled();
    await new Promise((r) => setTimeout(r, 50));
    expect(standIn.closedTabs.map((t) => t.label)).toEqual(['b.txt (before Claude ↔ now)']);
    expect(standIn.tabs.map((t) => t.label)).toEqual(['a.txt (before Claude ↔ now)']);
    expect(standIn.infos).toEqual([expect.stringMatching(/closed the diff of .*b\.txt.*no longer listed/)]);
    // The one left reads back (UTF-8 behind a BOM, as VS Code is to decode it).
    const fileSystem = standIn.fileSystems.get('claude-before') as { readFile(uri: unknown): Promise<Uint8Array> };
    expect(Buffer.from(await fileSystem.readFile((tabA.input as { original: unknown }).original)).toString('utf8')).toBe('\ufeffone\n');
  });
});
