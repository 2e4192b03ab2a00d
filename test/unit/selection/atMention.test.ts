import { MentionDispatcher, buildAtMention, formatAtMention, type AtMentionParams } from '../../../src/selection/atMention';
import type { Range } from '../../../src/selection/selectionNotifier';
import { memoryLogger } from '../../../src/util/logger';
import { fakeSessionSource } from '../../support/fakeSessionSource';

const range = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

/** The CLI's own reading of a selection (docs/protocol.md#selection_changed), 1-based, as it shows it. */
function cliSelectionLines(r: Range): { lineStart: number; lineEnd: number; lineCount: number } {
  const lineStart = r.start.line + 1;
  let lineCount = r.end.line - r.start.line + 1;
  if (r.end.character === 0) lineCount--;
  return { lineStart, lineEnd: lineStart + lineCount - 1, lineCount };
}

describe('selection at-mention lines', () => {
  test('no range, or an empty one (a bare cursor), mentions the whole file', () => {
    expect(buildAtMention('/w/a.py')).toEqual({ filePath: '/w/a.py' });
    expect(buildAtMention('/w/a.py', range(3, 4, 3, 4))).toEqual({ filePath: '/w/a.py' });
  });

  test('lines are 0-based: lines 1-3 as the user sees them are 0..2', () => {
    expect(buildAtMention('/w/a.py', range(0, 0, 2, 5))).toEqual({ filePath: '/w/a.py', lineStart: 0, lineEnd: 2 });
    expect(formatAtMention(buildAtMention('a.py', range(0, 0, 2, 5)))).toBe('@a.py#L1-3');
  });

  test('a selection that ends at character 0 of the next line does not include that line', () => {
    // Triple-click / shift+down on lines 1-3: VS Code ends the selection at (3, 0).
    expect(buildAtMention('/w/a.py', range(0, 0, 3, 0))).toEqual({ filePath: '/w/a.py', lineStart: 0, lineEnd: 2 });
    expect(buildAtMention('/w/a.py', range(4, 2, 5, 0))).toEqual({ filePath: '/w/a.py', lineStart: 4, lineEnd: 4 });
    expect(formatAtMention(buildAtMention('a.py', range(4, 2, 5, 0)))).toBe('@a.py#L5');
  });

  test('a selection within one line mentions that line', () => {
    expect(buildAtMention('/w/a.py', range(7, 2, 7, 9))).toEqual({ filePath: '/w/a.py', lineStart: 7, lineEnd: 7 });
  });

  test('a backwards range is read forwards', () => {
    expect(buildAtMention('/w/a.py', range(5, 3, 1, 2))).toEqual({ filePath: '/w/a.py', lineStart: 1, lineEnd: 5 });
  });

  test('the mention shows the same lines the CLI shows for the same selection (selection_changed arithmetic)', () => {
    for (let sl = 0; sl < 6; sl++)
      for (let sc = 0; sc < 3; sc++)
        for (let el = sl; el < 8; el++)
          for (let ec = 0; ec < 3; ec++) {
            if (el === sl && ec <= sc) continue; // empty or backwards: covered above
            const mention = buildAtMention('f', range(sl, sc, el, ec));
            const cli = cliSelectionLines(range(sl, sc, el, ec));
            expect({ start: mention.lineStart! + 1, end: mention.lineEnd! + 1 }).toEqual({ start: cli.lineStart, end: cli.lineEnd });
          }
  });

  test('formatAtMention mirrors the CLI: no range, #Ln for one line, #La-b otherwise', () => {
    expect(formatAtMention({ filePath: '/w/src/a.ts' }, 'src/a.ts')).toBe('@src/a.ts');
    expect(formatAtMention({ filePath: 'a', lineStart: 4, lineEnd: 4 })).toBe('@a#L5');
    expect(formatAtMention({ filePath: 'a', lineStart: 0, lineEnd: 2 })).toBe('@a#L1-3');
  });
});

describe('selection at-mention dispatch', () => {
  let sessions: ReturnType<typeof fakeSessionSource>;
  let log: string[];
  let delivered: number[];
  let dispatcher: MentionDispatcher;
  const a: AtMentionParams = { filePath: '/w/a.py', lineStart: 0, lineEnd: 2 };
  const b: AtMentionParams = { filePath: '/w/b.py' };
  /** Lets the dispatcher's awaited sends run under fake timers. */
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    sessions = fakeSessionSource();
    log = [];
    delivered = [];
    dispatcher = new MentionDispatcher({
      sessions: sessions.source,
      log: memoryLogger(log),
      onDelivered: (s) => delivered.push(s.id),
      readyDelayMs: 1500,
      maxAgeMs: 60_000,
      maxQueued: 3,
    });
  });
  afterEach(() => {
    dispatcher.dispose();
    jest.useRealTimers();
    // The dispatcher sends nothing but at_mentioned.
    expect(sessions.sent.filter((s) => s.method !== 'at_mentioned')).toEqual([]);
  });

  test('with a connected session the mention is sent at once, in order', async () => {
    sessions.existing(1);
    await expect(dispatcher.mention([a, b])).resolves.toMatchObject({ kind: 'sent', sessions: [{ id: 1 }] });
    expect(sessions.sent).toEqual([
      { session: 1, method: 'at_mentioned', params: a },
      { session: 1, method: 'at_mentioned', params: b },
    ]);
  });

  test('with no session it is queued, and delivered once to the next session when its CLI is ready', async () => {
    await expect(dispatcher.mention([a])).resolves.toEqual({ kind: 'queued', queued: 1 });
    expect(sessions.sent).toHaveLength(0);
    sessions.connect(4);
    jest.advanceTimersByTime(1499);
    await settle();
    expect(sessions.sent).toHaveLength(0); // the CLI drops at_mentioned sent right after ide_connected
    jest.advanceTimersByTime(1);
    await settle();
    expect(sessions.sent).toEqual([{ session: 4, method: 'at_mentioned', params: a }]);
    expect(delivered).toEqual([4]);
    expect(dispatcher.queued).toBe(0);
    sessions.connect(5);
    jest.advanceTimersByTime(5000);
    await settle();
    expect(sessions.sent).toHaveLength(1);
  });

  test('a mention made while a CLI is still starting is pending and delivered when it is ready', async () => {
    sessions.connect(2);
    jest.advanceTimersByTime(200);
    await expect(dispatcher.mention([b])).resolves.toMatchObject({ kind: 'pending', sessions: [{ id: 2 }] });
    jest.advanceTimersByTime(1300);
    await settle();
    expect(sessions.sent).toEqual([{ session: 2, method: 'at_mentioned', params: b }]);
    await expect(dispatcher.mention([a])).resolves.toMatchObject({ kind: 'sent' });
  });

  test('stale queued mentions are dropped and a repeated mention moves to the end instead of doubling', async () => {
    const c = { filePath: '/w/c.py' };
    await dispatcher.mention([a]);
    jest.advanceTimersByTime(61_000);
    await dispatcher.mention([b]);
    await dispatcher.mention([c, b]);
    expect(dispatcher.queued).toBe(3);
    sessions.connect(1);
    jest.advanceTimersByTime(1500);
    await settle();
    expect(sessions.sent.map((s) => s.params.filePath)).toEqual(['/w/c.py', '/w/b.py']);
    expect(log.join('\n')).toMatch(/Dropped 1 queued mention/);
  });

  test('the queue keeps the newest mentions when it is full', async () => {
    const files = ['/w/1', '/w/2', '/w/3', '/w/4', '/w/5'].map((filePath) => ({ filePath }));
    await dispatcher.mention(files);
    expect(dispatcher.queued).toBe(3);
    sessions.connect(1);
    jest.advanceTimersByTime(1500);
    await settle();
    expect(sessions.sent.map((s) => s.params.filePath)).toEqual(['/w/3', '/w/4', '/w/5']);
  });

  test('a queue meant for a session that left waits for the next one', async () => {
    await dispatcher.mention([a]);
    sessions.connect(1);
    sessions.disconnect(1);
    jest.advanceTimersByTime(1500);
    await settle();
    expect(dispatcher.queued).toBe(1);
    sessions.connect(2);
    jest.advanceTimersByTime(1500);
    await settle();
    expect(sessions.sent).toEqual([{ session: 2, method: 'at_mentioned', params: a }]);
  });

  test('a failed send says so; a failed queued delivery keeps what was not sent', async () => {
    sessions.existing(1);
    sessions.failing.add(1);
    await expect(dispatcher.mention([a])).rejects.toThrow('Could not send the mention to claude: socket closed');
    sessions.disconnect(1);

    await dispatcher.mention([a, b]);
    sessions.connect(2);
    sessions.failing.add(2);
    jest.advanceTimersByTime(1500);
    await settle();
    expect(dispatcher.queued).toBe(2);
    expect(delivered).toEqual([]);
    expect(log.join('\n')).toMatch(/Could not deliver queued mentions to #2/);
  });
});
