import {
  MAX_SELECTION_TEXT_CHARS,
  SelectionNotifier,
  TRUNCATION_MARKER,
  toSelectionParams,
  truncateSelectionText,
  type EditorState,
} from '../../../src/selection/selectionNotifier';
import { memoryLogger } from '../../../src/util/logger';
import { fakeSessionSource } from '../../support/fakeSessionSource';

const state = (filePath: string, sl: number, sc: number, el: number, ec: number, text = 'x'): EditorState => ({
  filePath,
  text,
  selection: { start: { line: sl, character: sc }, end: { line: el, character: ec } },
});

describe('selection notifier', () => {
  let sessions: ReturnType<typeof fakeSessionSource>;
  let log: string[];
  let notifier: SelectionNotifier;
  const make = (options: Partial<ConstructorParameters<typeof SelectionNotifier>[0]> = {}) =>
    new SelectionNotifier({ sessions: sessions.source, log: memoryLogger(log), welcomeResendMs: [], ...options });

  beforeEach(() => {
    jest.useFakeTimers();
    sessions = fakeSessionSource();
    log = [];
  });
  afterEach(() => {
    notifier?.dispose();
    jest.useRealTimers();
  });

  test('a drag of 50 selection events sends once, the final state, 150 ms after the last event', async () => {
    notifier = make();
    sessions.connect(1);
    for (let i = 1; i <= 50; i++) {
      notifier.update(state('/w/a.ts', 0, 0, i, 3, `text ${i}`));
      jest.advanceTimersByTime(10); // mouse-move events arrive every 10 ms: the debounce never fires
    }
    expect(sessions.sent).toHaveLength(0);
    jest.advanceTimersByTime(139);
    expect(sessions.sent).toHaveLength(0);
    jest.advanceTimersByTime(1);
    await Promise.resolve();
    expect(sessions.sent).toEqual([
      {
        session: 1,
        method: 'selection_changed',
        params: { selection: { start: { line: 0, character: 0 }, end: { line: 50, character: 3 } }, text: 'text 50', filePath: '/w/a.ts' },
      },
    ]);
  });

  test('an identical state is not resent; a changed one is, also when it changes back', () => {
    notifier = make();
    sessions.connect(1);
    notifier.update(state('/w/a.ts', 1, 0, 1, 4, 'abcd'));
    jest.advanceTimersByTime(200);
    notifier.update(state('/w/a.ts', 1, 0, 1, 4, 'abcd'));
    jest.advanceTimersByTime(200);
    expect(sessions.sent).toHaveLength(1);
    notifier.update(state('/w/b.ts', 1, 0, 1, 4, 'abcd'));
    jest.advanceTimersByTime(200);
    notifier.update(state('/w/a.ts', 1, 0, 1, 4, 'abcd'));
    jest.advanceTimersByTime(200);
    expect(sessions.sent.map((s) => s.params.filePath)).toEqual(['/w/a.ts', '/w/b.ts', '/w/a.ts']);
  });

  test('the same range with different text (an edit inside it) is a change', () => {
    notifier = make();
    sessions.connect(1);
    notifier.update(state('/w/a.ts', 1, 0, 1, 4, 'abcd'));
    jest.advanceTimersByTime(200);
    notifier.update(state('/w/a.ts', 1, 0, 1, 4, 'abXd'));
    jest.advanceTimersByTime(200);
    expect(sessions.sent.map((s) => s.params.text)).toEqual(['abcd', 'abXd']);
  });

  test('a new session gets the current state immediately; the sessions that have it are not resent', () => {
    notifier = make();
    sessions.connect(1);
    notifier.update(state('/w/a.ts', 2, 0, 3, 0, 'line\n'));
    jest.advanceTimersByTime(200);
    expect(sessions.sent).toHaveLength(1);

    sessions.connect(2); // no timer advanced: sent synchronously on connect
    expect(sessions.sent).toHaveLength(2);
    expect(sessions.sent[1]).toMatchObject({ session: 2, params: { filePath: '/w/a.ts', text: 'line\n' } });
    jest.advanceTimersByTime(1000);
    expect(sessions.sent).toHaveLength(2);
  });

  test('a session connecting while a drag is pending gets the latest state now, and not again when the debounce fires', () => {
    notifier = make();
    notifier.update(state('/w/a.ts', 0, 0, 5, 1));
    jest.advanceTimersByTime(50);
    sessions.connect(7);
    expect(sessions.sent).toHaveLength(1);
    jest.advanceTimersByTime(500);
    expect(sessions.sent).toHaveLength(1);
  });

  test('a session connecting before any file was active is sent nothing', () => {
    notifier = make();
    sessions.connect(1);
    jest.advanceTimersByTime(5000);
    expect(sessions.sent).toHaveLength(0);
  });

  test('a new session is sent the state again at the welcome delays (the CLI drops what comes before its handler exists)', () => {
    notifier = make({ welcomeResendMs: [300, 1000] });
    notifier.update(state('/w/a.ts', 0, 0, 0, 0, ''));
    jest.advanceTimersByTime(200);
    sessions.connect(1);
    sessions.connect(2);
    jest.advanceTimersByTime(300);
    expect(sessions.sent.filter((s) => s.session === 1)).toHaveLength(2);
    sessions.disconnect(2);
    jest.advanceTimersByTime(700);
    expect(sessions.sent.filter((s) => s.session === 1)).toHaveLength(3);
    expect(sessions.sent.filter((s) => s.session === 2)).toHaveLength(2);
    jest.advanceTimersByTime(10_000);
    expect(sessions.sent).toHaveLength(5);
  });

  test('an empty selection sends the cursor as an empty range, empty text and the file path', () => {
    notifier = make();
    sessions.connect(1);
    notifier.update(state('/w/a.ts', 4, 7, 4, 7, 'stale text from the adapter'));
    jest.advanceTimersByTime(150);
    expect(sessions.sent[0].params).toEqual({
      selection: { start: { line: 4, character: 7 }, end: { line: 4, character: 7 } },
      text: '',
      filePath: '/w/a.ts',
    });
  });

  test('clear() sends an empty range without a file path (the CLI ignores null), once', () => {
    notifier = make();
    sessions.connect(1);
    notifier.update(state('/w/a.ts', 1, 0, 2, 0));
    jest.advanceTimersByTime(150);
    notifier.clear();
    notifier.clear();
    jest.advanceTimersByTime(150);
    notifier.clear();
    jest.advanceTimersByTime(150);
    expect(sessions.sent).toHaveLength(2);
    expect(sessions.sent[1].params).toEqual({ selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '' });
    expect('filePath' in sessions.sent[1].params).toBe(false);
  });

  test('a failed send is logged and retried at the next flush', async () => {
    notifier = make();
    sessions.connect(1);
    sessions.failing.add(1);
    notifier.update(state('/w/a.ts', 1, 0, 1, 2));
    jest.advanceTimersByTime(150);
    await Promise.resolve();
    await Promise.resolve();
    expect(log.join('\n')).toMatch(/Could not send selection_changed to #1: socket closed/);
    sessions.failing.delete(1);
    notifier.flush();
    expect(sessions.sent).toHaveLength(1);
  });

  test('dispose stops the pending send and unsubscribes', () => {
    notifier = make({ welcomeResendMs: [300] });
    notifier.update(state('/w/a.ts', 1, 0, 1, 2));
    notifier.dispose();
    sessions.connect(1);
    jest.advanceTimersByTime(1000);
    expect(sessions.sent).toHaveLength(0);
    expect(sessions.listenerCount()).toBe(0);
  });
});

describe('selection text cap', () => {
  test('text up to the cap is sent as is', () => {
    const text = 'a'.repeat(MAX_SELECTION_TEXT_CHARS);
    expect(truncateSelectionText(text)).toBe(text);
  });

  test('longer text is cut at the cap and marked the way the CLI marks its own cut', () => {
    const out = truncateSelectionText('a'.repeat(50_000));
    expect(out).toBe('a'.repeat(MAX_SELECTION_TEXT_CHARS) + TRUNCATION_MARKER);
    expect(TRUNCATION_MARKER).toBe('\n... (truncated)');
  });

  test('the cut never splits a surrogate pair', () => {
    const out = truncateSelectionText('ab😀cd', 3);
    expect(out).toBe('ab' + TRUNCATION_MARKER);
  });

  test('toSelectionParams caps the text but keeps the full range (the CLI counts lines from the range)', () => {
    const params = toSelectionParams(state('/w/big.txt', 0, 0, 100_000, 0, 'x'.repeat(20_001)), 100);
    expect(params.text).toBe('x'.repeat(100) + TRUNCATION_MARKER);
    expect(params.selection.end.line).toBe(100_000);
  });
});
