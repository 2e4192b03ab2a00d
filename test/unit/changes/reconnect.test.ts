import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../../src/changes/beforeImageStore';
import { ChangeTracker, type TrackedSession } from '../../../src/changes/changeTracker';
import type { LedgerState } from '../../../src/changes/changeLedger';
import { closeAllDiffTabsTool } from '../../../src/tools/closeAllDiffTabs';
import type { ChangeCapture } from '../../../src/host/changeCapture';
import type { ReviewHost } from '../../../src/host/review';

/**
 * A claude that reconnected (Restart Server, a window reload) after its first turn sends no baseline for
 * its edits any more (test/real/cli-ide-reconnect.test.ts): the list says so once, and its unannounced
 * edits still land in its own group. Real files and the real store, as in changeTracker.test.ts.
 */
describe("Claude's changes after a reconnect", () => {
  let root: string;
  let clock: number;
  let saved: LedgerState | undefined;
  /** Which connection each connection id is now (a reconnect gives the same claude a new one). */
  let connections: Map<number, TrackedSession>;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-reconnect-')));
    clock = 1_000;
    saved = undefined;
    connections = new Map([
      [1, { id: 'claude-pid-11', label: 'one', connection: '1@100' }],
      [2, { id: 'claude-pid-22', label: 'two', connection: '2@100' }],
    ]);
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  function tracker(state?: LedgerState): ChangeTracker {
    return new ChangeTracker({
      store: new BeforeImageStore(path.join(root, '.store')),
      sessionOf: (id) => connections.get(id),
      save: (s) => (saved = JSON.parse(JSON.stringify(s))),
      now: () => clock,
      // git's content of the file (what an unannounced change is compared with): its first line in lower case.
      fallback: async (p) => ({ bytes: Buffer.from(`${path.basename(p)[0]}1\n`), source: 'git' }),
      state,
    });
  }
  const file = (name: string) => path.join(root, name);

  /** claude's Edit as it is before a reconnect: announced by its baseline, then written. */
  async function announcedEdit(t: ChangeTracker, connection: number, name: string, content: string): Promise<void> {
    await t.beforeWrite(connection, file(name), 'baseline');
    await fs.writeFile(file(name), content);
    clock += 20;
    await t.fileChanged(file(name));
  }

  /** Restart Server: the same claude on a new connection (the new server numbers its connections from 1 again). */
  function reconnect(t: ChangeTracker, id: number): TrackedSession {
    const session = { ...connections.get(id)!, connection: `${id}@${clock}` };
    connections.set(id, session);
    t.sessionConnected(session);
    return session;
  }

  test('a claude that reconnects after a call is told about once; its next, unannounced edit is listed in its own group, without certainty', async () => {
    await fs.writeFile(file('a.txt'), 'a1\n');
    await fs.writeFile(file('b.txt'), 'b1\n');
    const t = tracker();
    const told: string[] = [];
    t.onDidLoseAnnouncements((s) => told.push(s.label));
    t.sessionConnected(connections.get(1)!);
    await announcedEdit(t, 1, 'a.txt', 'A1\n');
    t.sessionConnected(connections.get(1)!); // the same connection again (any bridge change): nothing new
    expect(told).toEqual([]);
    clock += 1000;
    reconnect(t, 1);
    const since = clock;
    reconnect(t, 1);
    t.sessionConnected(connections.get(1)!);
    expect(told).toEqual(['one']);
    expect(t.list()).toMatchObject([{ id: 'claude-pid-11', unannouncedSince: since }]);
    expect(saved?.sessions[0].unannouncedSince).toBe(since);
    // Its next Edit: only the turn's closeAllDiffTabs comes, no baseline.
    clock += 5_000;
    t.noteCall(1);
    await fs.writeFile(file('b.txt'), 'B1\n');
    clock += 20;
    await t.fileChanged(file('b.txt'));
    expect(t.list()).toHaveLength(1);
    expect(t.list()[0].files.map((f) => [path.basename(f.path), f.attribution])).toEqual([
      ['a.txt', 'certain'],
      ['b.txt', 'uncertain'],
    ]);
  });

  test('a claude that reconnects before it ever called (no turn yet) still announces its edits: nothing is said', async () => {
    const t = tracker();
    const told: string[] = [];
    t.onDidLoseAnnouncements((s) => told.push(s.label));
    t.sessionConnected(connections.get(1)!);
    t.sessionSeen(connections.get(1)!);
    reconnect(t, 1);
    expect(told).toEqual([]);
    expect(t.list()[0]?.unannouncedSince).toBeUndefined();
  });

  test('a baseline on the new connection shows the edits are announced again: the note goes', async () => {
    await fs.writeFile(file('a.txt'), 'a1\n');
    await fs.writeFile(file('c.txt'), 'c1\n');
    const t = tracker();
    await announcedEdit(t, 1, 'a.txt', 'A1\n');
    reconnect(t, 1);
    expect(t.list()[0].unannouncedSince).toBeDefined();
    await announcedEdit(t, 1, 'c.txt', 'C1\n');
    expect(t.list()[0].unannouncedSince).toBeUndefined();
    expect(t.list()[0].files.map((f) => f.attribution)).toEqual(['certain', 'certain']);
  });

  test('a window reload: the claude of the saved list that connects again is a reconnect (its first connection in this window)', async () => {
    await fs.writeFile(file('a.txt'), 'a1\n');
    const before = tracker();
    await announcedEdit(before, 1, 'a.txt', 'A1\n');
    await before.settled();
    const state = saved!;
    expect(state.sessions[0]).toMatchObject({ id: 'claude-pid-11', called: true });
    // The reloaded window: a new tracker on the saved list; the same claude reconnects (connection 1 again).
    clock += 10_000;
    const after = tracker(state);
    const told: string[] = [];
    after.onDidLoseAnnouncements((s) => told.push(s.label));
    connections.set(1, { ...connections.get(1)!, connection: `1@${clock}` });
    after.sessionConnected(connections.get(1)!);
    // A claude new to this window is not a reconnect.
    after.sessionConnected(connections.get(2)!);
    expect(told).toEqual(['one']);
    expect(after.list().map((s) => [s.id, s.unannouncedSince])).toEqual([['claude-pid-11', clock]]);
  });

  test('two claudes: an unannounced change goes to the one whose edits are no longer announced, even when the other called last', async () => {
    await fs.writeFile(file('a.txt'), 'a1\n');
    await fs.writeFile(file('f.txt'), 'f1\n');
    await fs.writeFile(file('g.txt'), 'g1\n');
    const t = tracker();
    await announcedEdit(t, 1, 'a.txt', 'A1\n');
    reconnect(t, 1);
    clock += 1000;
    // Both work at once: "one" (reconnected) edits g.txt unannounced; "two" announces f.txt and writes it.
    t.noteCall(1);
    clock += 10;
    await t.beforeWrite(2, file('f.txt'), 'baseline');
    await fs.writeFile(file('g.txt'), 'G1\n');
    await fs.writeFile(file('f.txt'), 'F1\n');
    clock += 20;
    await t.fileChanged(file('f.txt'));
    await t.fileChanged(file('g.txt'));
    const files = (id: string) =>
      t
        .list()
        .find((s) => s.id === id)
        ?.files.map((f) => `${path.basename(f.path)} ${f.attribution}`);
    expect(files('claude-pid-22')).toEqual(['f.txt certain']);
    expect(files('claude-pid-11')).toEqual(['a.txt certain', 'g.txt uncertain']);
  });

  test("closeAllDiffTabs (the call claude still makes before its edits after a reconnect) counts as the session's call", async () => {
    const noted: number[] = [];
    const capture: ChangeCapture = { beforeWrite: async () => undefined, writeCancelled: () => undefined, noteCall: (id) => noted.push(id) };
    const review = { closeAll: async () => 0 } as unknown as ReviewHost;
    await closeAllDiffTabsTool(review, capture).handle({}, { connectionId: 7, signal: new AbortController().signal });
    expect(noted).toEqual([7]);
  });
});
