import { chooseHandoffTarget, deliverHandoff, MENTION_BEFORE_TEXT_MS, TerminalRecency, type HandoffPlace } from '../../../src/selection/promptHandoff';
import { capExcerpt, changePrompt, problemPrompt } from '../../../src/selection/promptText';
import type { IdeSession } from '../../../src/server/sessionSource';

const session = (id: number, log: string[] = []): IdeSession => ({
  id,
  notify: async (method, params) => void log.push(`${method} ${JSON.stringify(params)}`),
});

describe('chooseHandoffTarget', () => {
  const a: HandoffPlace<string> = { session: session(1), terminal: 'A' };
  const b: HandoffPlace<string> = { session: session(2), terminal: 'B' };
  const outside: HandoffPlace<string> = { session: session(3) };

  it("none connected, or connected only outside this window's terminals", () => {
    expect(chooseHandoffTarget([], () => undefined, 'lastUsed')).toEqual({ kind: 'none' });
    expect(chooseHandoffTarget([outside], () => undefined, 'lastUsed')).toEqual({ kind: 'unreachable', places: [outside] });
  });

  it('one reachable session: it, whatever the setting', () => {
    expect(chooseHandoffTarget([a, outside], () => undefined, 'ask')).toEqual({ kind: 'one', place: a });
  });

  it('several: the terminal used last, else (unknown or tie) ask; "ask" always asks', () => {
    const recency = new TerminalRecency<string>(() => 1000);
    expect(chooseHandoffTarget([a, b], recency.lastUsed, 'lastUsed')).toEqual({ kind: 'ask', places: [a, b] });
    recency.touch('B');
    expect(chooseHandoffTarget([a, b], recency.lastUsed, 'lastUsed')).toEqual({ kind: 'one', place: b });
    recency.touch('A');
    expect(chooseHandoffTarget([a, b], recency.lastUsed, 'lastUsed')).toEqual({ kind: 'one', place: a });
    expect(chooseHandoffTarget([a, b], recency.lastUsed, 'ask')).toEqual({ kind: 'ask', places: [a, b] });
    recency.forget('A');
    expect(chooseHandoffTarget([a, b], recency.lastUsed, 'lastUsed')).toEqual({ kind: 'one', place: b });
  });
});

describe('deliverHandoff', () => {
  it('the @-reference first, a pause, then the text as one paste without Enter', async () => {
    const log: string[] = [];
    const place = { session: session(1, log), terminal: 'T' };
    await deliverHandoff(
      place,
      { mention: { filePath: '/w/a.ts', lineStart: 2, lineEnd: 2 }, text: 'Fix this\nnow' },
      {
        type: (terminal, bytes) => log.push(`type ${terminal} ${JSON.stringify(bytes)}`),
        sleep: async (ms) => void log.push(`sleep ${ms}`),
      },
    );
    expect(log).toEqual([
      'at_mentioned {"filePath":"/w/a.ts","lineStart":2,"lineEnd":2}',
      `sleep ${MENTION_BEFORE_TEXT_MS}`,
      `type T ${JSON.stringify('\x1b[200~Fix this\nnow \x1b[201~')}`,
    ]);
  });

  it('without a reference: only the paste', async () => {
    const log: string[] = [];
    await deliverHandoff({ session: session(1, log), terminal: 'T' }, { text: 'x ' }, { type: (_t, bytes) => log.push(bytes), sleep: async () => undefined });
    expect(log).toEqual(['\x1b[200~x \x1b[201~']);
  });
});

describe('prompt text', () => {
  it('one problem reads as a sentence after the reference', () => {
    expect(
      problemPrompt('fix', [{ severity: 'error', message: "Type 'string' is not assignable\n  to type 'number'.", source: 'ts', code: 2322, line: 4 }]),
    ).toBe("Fix this error on line 5 (ts 2322): Type 'string' is not assignable to type 'number'.");
    expect(problemPrompt('explain', [{ severity: 'info', message: 'm', line: 0 }])).toBe('Explain this problem on line 1: m');
  });

  it('capExcerpt keeps the head of code and the tail of an output, and says the cap', () => {
    const text = Array.from({ length: 10 }, (_, i) => `l${i}`).join('\n');
    expect(capExcerpt(text, 'head', 3, 1000)).toBe('l0\nl1\nl2\n[first 3 of 10 lines shown: capped at 3 lines / 1000 characters]');
    expect(capExcerpt(text, 'tail', 2, 1000)).toBe('[last 2 of 10 lines shown: capped at 2 lines / 1000 characters]\nl8\nl9');
    expect(capExcerpt('short\n', 'tail')).toBe('short');
  });
});

describe('changePrompt says whose change only as far as it is known', () => {
  test("git's change, claude's change, and one Claude's changes lists without certainty", () => {
    const diff = '-a\n+b';
    expect(changePrompt({ kind: 'git', displayPath: 'x.ts', diff })).toMatch(/^About this uncommitted change in x\.ts:\n/);
    expect(changePrompt({ kind: 'claude', displayPath: 'x.ts', diff })).toMatch(/^About this change claude made in x\.ts:\n/);
    const uncertain = changePrompt({ kind: 'claude-uncertain', displayPath: 'x.ts', diff: '' });
    expect(uncertain).toBe('About this change in x.ts, made while claude was working (maybe not by claude):');
    expect(uncertain).not.toMatch(/claude made/);
  });
});
