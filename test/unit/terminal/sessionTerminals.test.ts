import { MentionDispatcher } from '../../../src/selection/atMention';
import type { ParentPidReader } from '../../../src/terminal/processAncestry';
import { SelectionNotifier } from '../../../src/selection/selectionNotifier';
import { SessionTerminals, type TerminalDirectory } from '../../../src/terminal/sessionTerminals';
import { memoryLogger } from '../../../src/util/logger';
import { fakeSessionSource } from '../../support/fakeSessionSource';

/**
 * Two terminals, A (shell pid 500) and B (shell 600); session 1's claude (pid 1001) runs in A under a
 * `bash -c` (pid 700), session 2's (1002) directly in B; session 3's (1003) under tmux (parent 1).
 */
const PARENTS: Record<number, number> = { 1001: 700, 700: 500, 500: 400, 1002: 600, 600: 400, 400: 1, 1003: 1 };
const readParent: ParentPidReader = async (pid) => PARENTS[pid];

function setup() {
  const fake = fakeSessionSource();
  const changeListeners = new Set<() => void>();
  const base = {
    ...fake.source,
    onDidChange: (l: () => void) => (changeListeners.add(l), { dispose: () => changeListeners.delete(l) }),
  };
  const terminals = [
    { terminal: 'A', name: 'claude-a', pid: 500 as number | undefined },
    { terminal: 'B', name: 'claude-b', pid: 600 as number | undefined },
    { terminal: 'C', name: 'bash', pid: 800 as number | undefined },
  ];
  let active: string | undefined = 'B';
  const activeListeners = new Set<() => void>();
  const openListeners = new Set<() => void>();
  const directory: TerminalDirectory<string> = {
    candidates: async () => terminals,
    active: () => active,
    onDidChangeActive: (l) => (activeListeners.add(l), { dispose: () => activeListeners.delete(l) }),
    onDidOpenOrClose: (l) => (openListeners.add(l), { dispose: () => openListeners.delete(l) }),
  };
  const routed = new SessionTerminals(base, directory, readParent);
  return {
    fake,
    routed,
    terminals,
    front: (t: string | undefined) => {
      active = t;
      activeListeners.forEach((l) => l());
    },
    disconnect: (id: number) => {
      fake.disconnect(id);
      changeListeners.forEach((l) => l());
    },
    terminalsChanged: () => openListeners.forEach((l) => l()),
  };
}

const ids = (sessions: { id: number }[]) => sessions.map((s) => s.id);

describe('session terminals (which claude the user means)', () => {
  test('each session is matched to the terminal whose shell is its ancestor; under tmux to none', async () => {
    const t = setup();
    t.fake.connect(1);
    t.fake.connect(2);
    t.fake.connect(3);
    await t.routed.settled();
    expect(t.routed.sessionPlaces().map((p) => [p.session.id, p.terminal, p.terminalName])).toEqual([
      [1, 'A', 'claude-a'],
      [2, 'B', 'claude-b'],
      [3, undefined, undefined],
    ]);
    expect(ids(t.routed.sessionsIn('A'))).toEqual([1]);
    expect(t.routed.terminalOf(2)).toBe('B');
  });

  test('targets: the session(s) in the terminal in front; a front terminal without claude, or none, means all', async () => {
    const t = setup();
    t.fake.connect(1);
    t.fake.connect(2);
    t.fake.connect(3);
    await t.routed.settled();
    const changes: number[] = [];
    t.routed.onDidChangeTargets(() => changes.push(changes.length));
    expect(ids(t.routed.targets())).toEqual([2]);
    t.front('A');
    expect(changes.length).toBe(1);
    expect(ids(t.routed.targets())).toEqual([1]);
    t.front('C');
    expect(ids(t.routed.targets())).toEqual([1, 2, 3]);
    t.front(undefined);
    expect(ids(t.routed.targets())).toEqual([1, 2, 3]);
  });

  test('a terminal whose pid is known only later is matched when terminals change; a gone session is forgotten', async () => {
    const t = setup();
    t.terminals[1].pid = undefined;
    t.fake.connect(2);
    await t.routed.settled();
    expect(t.routed.terminalOf(2)).toBeUndefined();
    t.terminals[1].pid = 600;
    t.terminalsChanged();
    await t.routed.settled();
    expect(t.routed.terminalOf(2)).toBe('B');
    t.disconnect(2);
    expect(t.routed.terminalOf(2)).toBeUndefined();
    expect(t.routed.targets()).toEqual([]);
  });

  test('selection_changed goes to the claude in front; another terminal coming to the front gets it then', async () => {
    jest.useFakeTimers();
    try {
      const t = setup();
      t.fake.connect(1);
      t.fake.connect(2);
      await t.routed.settled();
      const notifier = new SelectionNotifier({ sessions: t.routed, log: memoryLogger(), welcomeResendMs: [], debounceMs: 10 });
      notifier.update({ filePath: '/w/a.ts', text: 'abc', selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } } });
      jest.advanceTimersByTime(20);
      await Promise.resolve();
      expect(t.fake.sent.map((s) => s.session)).toEqual([2]);
      t.front('A');
      await Promise.resolve();
      expect(t.fake.sent.map((s) => s.session)).toEqual([2, 1]);
      t.front('B'); // B already has it: nothing resent
      await Promise.resolve();
      expect(t.fake.sent.length).toBe(2);
      notifier.dispose();
    } finally {
      jest.useRealTimers();
    }
  });

  test('an at-mention goes to the claude in front only, or to all when the front terminal runs none', async () => {
    const t = setup();
    t.fake.existing(1);
    t.fake.existing(2);
    t.terminalsChanged();
    await t.routed.settled();
    const dispatcher = new MentionDispatcher({ sessions: t.routed, log: memoryLogger() });
    const sent = await dispatcher.mention([{ filePath: '/w/a.ts' }]);
    expect(sent.kind === 'sent' && ids(sent.sessions)).toEqual([2]);
    expect(t.fake.sent.map((s) => [s.session, s.method])).toEqual([[2, 'at_mentioned']]);
    t.front('C');
    await dispatcher.mention([{ filePath: '/w/b.ts' }]);
    expect(t.fake.sent.slice(1).map((s) => s.session)).toEqual([1, 2]);
    dispatcher.dispose();
  });
});
