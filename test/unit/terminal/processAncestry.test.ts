import {
  findClaudeTerminal,
  parentPidReaderFor,
  parseProcStatParentPid,
  procParentPid,
  processAncestry,
  processIdOf,
  terminalCandidates,
  type ParentPidReader,
} from '../../../src/terminal/processAncestry';

/** A process tree given as child → parent. */
const tree =
  (parents: Record<number, number>): ParentPidReader =>
  async (pid) =>
    parents[pid];

describe('selection terminal lookup: process ancestry', () => {
  test('parses the ppid from /proc/<pid>/stat even when the command name has spaces and parentheses', () => {
    expect(parseProcStatParentPid('4242 (bash) S 4100 4242 4242 34816 4300 4194304 ...')).toBe(4100);
    expect(parseProcStatParentPid('77 (my (odd) name) R 12 77 77 0 -1 ...')).toBe(12);
    expect(parseProcStatParentPid('garbage')).toBeUndefined();
  });

  test('walks up to init and stops there', async () => {
    await expect(processAncestry(500, tree({ 500: 400, 400: 300, 300: 1 }))).resolves.toEqual([500, 400, 300]);
  });

  test('stops at an unknown parent, a cycle, a failing reader or the depth limit', async () => {
    await expect(processAncestry(500, tree({ 500: 400 }))).resolves.toEqual([500, 400]);
    await expect(processAncestry(5, tree({ 5: 6, 6: 5 }))).resolves.toEqual([5, 6]);
    await expect(processAncestry(5, async () => Promise.reject(new Error('EACCES')))).resolves.toEqual([5]);
    await expect(processAncestry(100, async (pid) => pid + 1, 4)).resolves.toEqual([100, 101, 102, 103]);
  });

  (process.platform === 'linux' ? test : test.skip)('reads the real parent of this process on Linux', async () => {
    await expect(procParentPid(process.pid)).resolves.toBe(process.ppid);
    expect(parentPidReaderFor('linux')).toBe(procParentPid);
  });
});

describe('selection terminal lookup: which terminal runs claude', () => {
  // pty host 100 → shells 200 (Claude), 300 (bash) ; claude 250 under 200; `npx claude` 260 → 261 under 300.
  const parents = tree({ 250: 200, 200: 100, 261: 260, 260: 300, 300: 100, 100: 1 });
  const terminals = [
    { terminal: 'build', pid: 400, name: 'bash' },
    { terminal: 'claude-tab', pid: 200, name: 'zsh' },
    { terminal: 'other', pid: 300, name: 'bash' },
  ];

  test('the terminal whose shell is an ancestor of the CLI', async () => {
    await expect(findClaudeTerminal(250, terminals, parents)).resolves.toBe('claude-tab');
    await expect(findClaudeTerminal(261, terminals, parents, 'build')).resolves.toBe('other');
  });

  test('the CLI itself being the terminal process (terminal created with claude as its shell)', async () => {
    await expect(findClaudeTerminal(400, terminals, parents)).resolves.toBe('build');
  });

  test('falls back to a terminal named Claude, then one whose name mentions claude, then the active one', async () => {
    const named = [
      { terminal: 'x', pid: 900, name: 'bash' },
      { terminal: 'title', pid: 901, name: '✳ claude code' },
      { terminal: 'launched', pid: 902, name: 'Claude' },
    ];
    await expect(findClaudeTerminal(250, named, parents, 'x')).resolves.toBe('launched');
    await expect(findClaudeTerminal(250, named.slice(0, 2), parents, 'x')).resolves.toBe('title');
    await expect(findClaudeTerminal(250, named.slice(0, 1), parents, 'x')).resolves.toBe('x');
    await expect(findClaudeTerminal(undefined, named.slice(0, 1), parents)).resolves.toBeUndefined();
  });

  test('an unknown CLI pid (0 / missing) skips the ancestry walk', async () => {
    const reader = jest.fn(parents);
    await expect(findClaudeTerminal(undefined, terminals, reader, 'build')).resolves.toBe('build');
    expect(reader).not.toHaveBeenCalled();
  });
});

describe("processIdOf (a terminal's shell pid)", () => {
  it('answers the pid once VS Code has it', async () => {
    await expect(processIdOf({ processId: Promise.resolve(4242) })).resolves.toBe(4242);
  });

  it('answers undefined, not a hang, for a terminal whose process never starts', async () => {
    const never = new Promise<number | undefined>(() => undefined);
    const started = Date.now();
    await expect(processIdOf({ processId: never }, 50)).resolves.toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('answers undefined for a terminal whose processId fails', async () => {
    await expect(processIdOf({ processId: Promise.reject(new Error('disposed')) })).resolves.toBeUndefined();
  });
});

describe('terminalCandidates', () => {
  it('names each terminal with its shell pid, undefined for one whose process never starts', async () => {
    const started = { name: 'claude', processId: Promise.resolve(7) };
    const never = { name: 'bash', processId: new Promise<number | undefined>(() => undefined) };
    jest.useFakeTimers();
    try {
      const asked = terminalCandidates([started, never]);
      await jest.advanceTimersByTimeAsync(500);
      expect(await asked).toEqual([
        { terminal: started, name: 'claude', pid: 7 },
        { terminal: never, name: 'bash', pid: undefined },
      ]);
    } finally {
      jest.useRealTimers();
    }
  });
});
