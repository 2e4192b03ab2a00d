import { ChangeLedger, type Image } from '../../../src/changes/changeLedger';

const blob = (name: string, size = 10): Image => ({ blob: name.padEnd(64, '0'), size });
const none = () => undefined;

describe('ChangeLedger', () => {
  test("a write announced by a call is the calling session's, with the before-image taken at the call", () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s1', 'claude (1)', 0);
    ledger.sessionStarted('s2', 'claude (2)', 0);
    ledger.expectWrite('s1', '/w/a.ts', blob('a0'), 'baseline', 100, 5_000);
    ledger.noteCall('s2', 150); // s2 called later, but s1 announced this file
    const change = ledger.fileChanged('/w/a.ts', blob('a1'), 200, none);
    expect(change).toMatchObject({ path: '/w/a.ts', before: blob('a0'), claudeLeft: blob('a1'), attribution: 'certain', source: 'baseline' });
    expect(ledger.list().find((s) => s.id === 's1')!.files).toHaveLength(1);
    expect(ledger.list().find((s) => s.id === 's2')!.files).toHaveLength(0);
  });

  test('a change no call announced goes, uncertain, to the session whose call came last before it, with the fallback before-image', () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s1', 'one', 0);
    ledger.sessionStarted('s2', 'two', 0);
    ledger.noteCall('s1', 100);
    ledger.noteCall('s2', 300);
    const change = ledger.fileChanged('/w/b.txt', blob('b1'), 200, () => ({ before: blob('b0'), source: 'git' }));
    expect(change).toMatchObject({ attribution: 'uncertain', source: 'git', before: blob('b0') });
    expect(
      ledger
        .list()
        .find((s) => s.id === 's1')!
        .files.map((f) => f.path),
    ).toEqual(['/w/b.txt']);
  });

  test('without a fallback before-image an unannounced change is not listed; an expired announcement does not count', () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s1', 'one', 0);
    ledger.expectWrite('s1', '/w/c.txt', blob('c0'), 'baseline', 100, 1_000);
    expect(ledger.fileChanged('/w/c.txt', blob('c1'), 2_000, none)).toBeUndefined();
    expect(ledger.list()[0].files).toEqual([]);
  });

  test('later changes keep the first before-image; a change back to it settles the entry', () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s1', 'one', 0);
    ledger.expectWrite('s1', '/w/d', blob('d0'), 'openDiff', 10, 1_000);
    ledger.fileChanged('/w/d', blob('d1'), 20, none);
    ledger.expectWrite('s1', '/w/d', blob('d1'), 'baseline', 30, 1_000);
    expect(ledger.fileChanged('/w/d', blob('d2'), 40, none)).toMatchObject({ before: blob('d0'), claudeLeft: blob('d2'), source: 'openDiff' });
    expect(ledger.fileChanged('/w/d', blob('d0'), 50, none)).toBeUndefined();
    expect(ledger.list()[0].files).toEqual([]);
  });

  test('a new file is listed with an absent before-image; a rejected review cancels the announcement', () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s1', 'one', 0);
    ledger.expectWrite('s1', '/w/new', { absent: true }, 'tools-route', 1, 1_000);
    expect(ledger.fileChanged('/w/new', blob('n1'), 2, none)).toMatchObject({ before: { absent: true }, attribution: 'certain' });
    ledger.expectWrite('s1', '/w/e', blob('e0'), 'openDiff', 3, 1_000);
    ledger.cancelExpected('s1', '/w/e');
    // Only s1's last call is left to go by: uncertain, with the fallback before-image.
    expect(ledger.fileChanged('/w/e', blob('e1'), 4, () => ({ before: blob('e-git'), source: 'git' }))).toMatchObject({
      attribution: 'uncertain',
      before: blob('e-git'),
    });
  });

  test('the list survives a reload as JSON, and a reconnect of the same session keeps it', () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s1', 'one', 0);
    ledger.expectWrite('s1', '/w/f', blob('f0'), 'baseline', 1, 1_000);
    ledger.fileChanged('/w/f', blob('f1'), 2, none);
    const again = new ChangeLedger(JSON.parse(JSON.stringify(ledger.toJSON())));
    again.sessionStarted('s1', 'one (renamed)', 5);
    expect(again.list()).toEqual([
      { id: 's1', label: 'one (renamed)', startedAt: 0, called: true, files: [expect.objectContaining({ path: '/w/f', before: blob('f0') })] },
    ]);
    expect(again.neededBlobs()).toEqual(new Set([blob('f0'), blob('f1')].map((i) => (i as { blob: string }).blob)));
  });

  test('over the bound the oldest changes are dropped, each distinct blob counted once, and the view is told', () => {
    const ledger = new ChangeLedger(undefined, { maxBytes: 100, maxFiles: 3 });
    ledger.sessionStarted('s1', 'one', 0);
    for (let i = 0; i < 5; i++) {
      ledger.expectWrite('s1', `/w/${i}`, blob('shared', 30), 'baseline', i * 10, 1_000);
      ledger.fileChanged(`/w/${i}`, blob(`after${i}`, 20), i * 10 + 1, none);
    }
    // Files bound: 3 kept (the newest); bytes: 30 (shared once) + 3 × 20 = 90 ≤ 100.
    expect(ledger.list()[0].files.map((f) => f.path)).toEqual(['/w/2', '/w/3', '/w/4']);
    expect(ledger.droppedNote()).toMatchObject({ files: 2 });
    ledger.expectWrite('s1', '/w/big', blob('big', 60), 'baseline', 100, 1_000);
    ledger.fileChanged('/w/big', blob('bigafter', 5), 101, none);
    // 30 + 60 + 5 + 20×k ≤ 100 → k = 0: the three older ones go.
    expect(ledger.list()[0].files.map((f) => f.path)).toEqual(['/w/big']);
    expect(ledger.droppedNote()).toMatchObject({ files: 5 });
  });
});

describe('ChangeLedger: late reports', () => {
  test('a report of the file still holding its before-image (a late event of an earlier write) does not use up the announcement', () => {
    const ledger = new ChangeLedger();
    ledger.sessionStarted('s', 'claude', 0);
    const img = (id: string) => ({ blob: id.padEnd(64, '0'), size: 1 });
    ledger.expectWrite('s', '/w/late', img('a'), 'baseline', 10, 10_000);
    expect(ledger.fileChanged('/w/late', img('a'), 20, () => undefined)).toBeUndefined();
    expect(ledger.fileChanged('/w/late', img('b'), 300, () => undefined)).toMatchObject({ attribution: 'certain', before: img('a'), claudeLeft: img('b') });
  });
});
