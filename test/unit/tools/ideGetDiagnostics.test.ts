// getDiagnostics as claude and its model call it (src/tools/ideGetDiagnostics.ts), against a scripted
// Problems panel and language server on the real clock.
import type { CheckedDocuments, DiagnosticItem, DiagnosticsSource, FileDiagnostics, LoadOutcome } from '../../../src/host/diagnostics';
import { ideGetDiagnosticsTool } from '../../../src/tools/ideGetDiagnostics';
import { RecentEdits } from '../../../src/review/recentEdits';
import { notCheckedYet } from '../../../src/diagnostics/waitBudgets';
// claude gives up on its baseline at 500 ms and on its call after writes at 2 s: the limits asserted below.

const typeError: DiagnosticItem = {
  message: "Type 'string' is not assignable to type 'number'.",
  severity: 'Error',
  range: { start: { line: 0, character: 13 }, end: { line: 0, character: 18 } },
  source: 'ts',
  code: '2322',
};

/** Files on disk, what VS Code loaded, and a language server that answers and reports when told. */
class World implements DiagnosticsSource {
  readonly disk = new Map<string, string>();
  readonly docs = new Map<string, { changedAt: number }>();
  readonly problems = new Map<string, DiagnosticItem[]>();
  readonly reportedAt = new Map<string, number>();
  readonly loads: Array<{ path: string; show: boolean }> = [];
  released = 0;
  /** How long the language server takes to answer about a file it was just given, and what it reports then. */
  serverDelayMs = 0;
  /** When the first report comes after loading (default: just after the server answers). */
  reportAfterMs?: number;
  reports = new Map<string, DiagnosticItem[]>();
  /** How long comparing a document with the disk takes (a read queued behind a busy extension host). */
  diskReadMs = 0;
  /** Files changed on disk since the last call, and which files use each (what the language server would find). */
  changedOnDisk: string[] = [];
  readonly usedBy = new Map<string, string[]>();
  private readonly listeners = new Set<(paths: readonly string[]) => void>();

  readonly documents: CheckedDocuments = {
    load: async (path, { show }): Promise<LoadOutcome> => {
      this.loads.push({ path, show });
      if (this.docs.has(path)) return 'loaded';
      if (!this.disk.has(path)) return 'skipped';
      this.docs.set(path, { changedAt: Date.now() });
      const report = this.reports.get(path);
      if (report) setTimeout(() => this.report(path, report), this.reportAfterMs ?? this.serverDelayMs + 50);
      return 'opened';
    },
    matchesDisk: async (path) => {
      if (this.diskReadMs) await new Promise((r) => setTimeout(r, this.diskReadMs));
      return this.docs.has(path) ? true : undefined;
    },
    isDirty: () => false,
    lastChange: (path) => ({ document: this.docs.get(path)?.changedAt, diagnostics: this.reportedAt.get(path) }),
    onDidChangeDocument: () => ({ dispose: () => undefined }),
    takeChangedOnDisk: () => this.changedOnDisk.splice(0),
    dependentsOf: async (changed, { limit }) => {
      const all = [...new Set(changed.flatMap((c) => this.usedBy.get(c) ?? []))];
      return { files: all.slice(0, limit), more: all.slice(limit) };
    },
    checkerAnswered: (path) => new Promise((resolve) => setTimeout(() => resolve(this.docs.has(path)), this.serverDelayMs)),
    releaseCheckTabs: () => void this.released++,
  };

  report(path: string, items: DiagnosticItem[]): void {
    this.problems.set(path, items);
    this.reportedAt.set(path, Date.now());
    for (const l of this.listeners) l([path]);
  }
  all(): FileDiagnostics[] {
    return [...this.problems].filter(([, d]) => d.length).map(([p, diagnostics]) => ({ uri: `file://${p}`, diagnostics }));
  }
  forFile(path: string): DiagnosticItem[] {
    return this.problems.get(path) ?? [];
  }
  onDidChange(listener: (paths: readonly string[]) => void) {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

const texts = (result: { content: Array<{ type: string; text?: string }> }) => result.content.map((c) => c.text ?? '');
const model = (progress?: (m: string) => void) => ({ connectionId: 1, signal: new AbortController().signal, modelToolUseId: 'toolu_01', progress });
const claude = { connectionId: 1, signal: new AbortController().signal };

describe("getDiagnostics (IDE route): claude's calls keep their budgets, the model's wait for the truth", () => {
  test("the model's {uri} on a closed file waits while the language server's first check runs (seconds), with progress, and returns the error", async () => {
    const world = new World();
    world.disk.set('/w/closed.ts', 'export const n: number = "x";\n');
    world.reports.set('/w/closed.ts', [typeError]);
    world.serverDelayMs = 2500; // a cold TypeScript project
    const tool = ideGetDiagnosticsTool(world);
    const progress: string[] = [];
    const started = Date.now();
    const result = await tool.handle(
      { uri: 'file:///w/closed.ts' },
      model((m) => progress.push(m)),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    const [json, ...rest] = texts(result);
    expect(JSON.parse(json)).toEqual([{ uri: 'file:///w/closed.ts', diagnostics: [typeError] }]);
    expect(rest).toEqual([]);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatch(/Waiting for VS Code's language servers to check closed\.ts/);
    expect(world.loads).toEqual([{ path: '/w/closed.ts', show: true }]);
    expect(world.released).toBe(1);
  });

  test("claude's baseline {uri} keeps its budget (it gives up at 500 ms): the first entry is the file, a second text says it is still being checked, its tab stays for the check after the write", async () => {
    const world = new World();
    world.disk.set('/w/a.ts', 'export const a = 1;\n');
    world.serverDelayMs = 5000;
    const tool = ideGetDiagnosticsTool(world);
    const started = Date.now();
    const result = await tool.handle({ uri: 'file:///w/a.ts' }, claude);
    // It did not wait for the server. How close to its deadline it answers is measured where the clock
    // is the point (bench/dependents.real.ts, the real tests' extension log), not on a loaded test machine.
    expect(Date.now() - started).toBeLessThan(2500);
    const [json, note] = texts(result);
    expect(JSON.parse(json)).toEqual([{ uri: 'file:///w/a.ts', diagnostics: [] }]);
    expect(note).toMatch(/still being checked .*\/w\/a\.ts/);
    expect(world.released).toBe(0);
  });

  test("claude's {} after writing a file it asked about when it did not exist yet: the new file is loaded (tab allowed), waited for within the budget, reported; check tabs closed after", async () => {
    const world = new World();
    const tool = ideGetDiagnosticsTool(world);
    await tool.handle({ uri: 'file:///w/new.ts' }, claude); // the baseline: nothing on disk yet
    world.disk.set('/w/new.ts', 'export const n: number = "x";\n'); // claude writes it
    world.reports.set('/w/new.ts', [typeError]);
    world.serverDelayMs = 300; // a warm server
    const started = Date.now();
    const result = await tool.handle({}, claude);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(JSON.parse(texts(result as never)[0])).toEqual([{ uri: 'file:///w/new.ts', diagnostics: [typeError] }]);
    expect(world.loads.filter((l) => l.path === '/w/new.ts').at(-1)).toEqual({ path: '/w/new.ts', show: true });
    expect(world.released).toBe(1);
  });

  test("claude's {} waits for files accepted in a review, and answers within its budget when a server is still busy, naming the file", async () => {
    const world = new World();
    const edits = new RecentEdits();
    world.disk.set('/w/slow.json', '{,}\n');
    world.serverDelayMs = 10_000;
    edits.mark('/w/slow.json');
    const tool = ideGetDiagnosticsTool(world, edits);
    const started = Date.now();
    const result = await tool.handle({}, claude);
    expect(Date.now() - started).toBeLessThan(2000);
    const [json, note] = texts(result);
    // claude reads only the JSON and keeps only the files it wrote: the note is in the file's own entry.
    expect(JSON.parse(json)).toEqual([{ uri: 'file:///w/slow.json', diagnostics: [notCheckedYet()] }]);
    expect(note).toMatch(/still being checked .*slow\.json/);
  });

  test("a file claude wrote that is slower to check than claude's budget: its {} answer says so in the file's entry, and its next {} waits for it again and has the problem instead", async () => {
    const world = new World();
    const tool = ideGetDiagnosticsTool(world);
    await tool.handle({ uri: 'file:///w/slow.ts' }, claude); // the baseline: nothing on disk yet
    world.disk.set('/w/slow.ts', 'export const n: number = "x";\n');
    world.reports.set('/w/slow.ts', [typeError]);
    world.serverDelayMs = 2500; // the server's first check outlasts claude's budget
    const first = texts(await tool.handle({}, claude));
    expect(JSON.parse(first[0])).toEqual([{ uri: 'file:///w/slow.ts', diagnostics: [notCheckedYet()] }]);
    expect(notCheckedYet()).toMatchObject({ severity: 'Information', source: 'native-claude', message: expect.stringMatching(/^Not checked yet/) });
    await new Promise((r) => setTimeout(r, 1200)); // the model answers; claude builds its next request
    const started = Date.now();
    const second = texts(await tool.handle({}, claude));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(JSON.parse(second[0])).toEqual([{ uri: 'file:///w/slow.ts', diagnostics: [typeError] }]);
    expect(second).toHaveLength(1);
    // Checked: a third call does not wait for it any more.
    expect(JSON.parse(texts((await tool.handle({}, claude)) as never)[0])).toEqual([{ uri: 'file:///w/slow.ts', diagnostics: [typeError] }]);
    expect(world.loads.filter((l) => l.path === '/w/slow.ts')).toHaveLength(3); // baseline, first {}, second {}
  });

  // Seen in the real vscode-diagnostics-cold (ts-accept-edits, 1 run in 4): TypeScript answered about the
  // new file (a hover at a name) under a second before claude's deadline, with no report yet. The file was
  // "still being checked" but not "unanswered", so claude's {} carried nothing for it: no problem, no note.
  test("a file claude wrote whose server answered about it but reported nothing yet when claude's budget ends: the note, never nothing", async () => {
    const world = new World();
    const tool = ideGetDiagnosticsTool(world);
    await tool.handle({ uri: 'file:///w/late.ts' }, claude); // the baseline: nothing on disk yet
    world.disk.set('/w/late.ts', 'export const n: number = "x";\n');
    world.reports.set('/w/late.ts', [typeError]);
    world.serverDelayMs = 800; // the server has the file after 800 ms: its silence means "clean" only 1 s later
    world.reportAfterMs = 3000; // its first report comes after claude's budget
    const first = texts(await tool.handle({}, claude));
    expect(JSON.parse(first[0])).toEqual([{ uri: 'file:///w/late.ts', diagnostics: [notCheckedYet()] }]);
  });

  test('a file whose problems were reported but whose server is still busy (no answer yet): the problems, and no note claiming they may be missing', async () => {
    const world = new World();
    const tool = ideGetDiagnosticsTool(world);
    await tool.handle({ uri: 'file:///w/busy.ts' }, claude);
    world.disk.set('/w/busy.ts', 'export const n: number = "x";\n');
    world.reports.set('/w/busy.ts', [typeError]);
    world.serverDelayMs = 5000; // its hover waits for a project still loading
    world.reportAfterMs = 1350; // its first report comes just before claude's budget ends
    const [json] = texts(await tool.handle({}, claude));
    expect(JSON.parse(json)).toEqual([{ uri: 'file:///w/busy.ts', diagnostics: [typeError] }]);
  });

  // At claude's deadline a Markdown file (nothing reports on it) and a TypeScript file whose first report is
  // still coming look the same: the server answered under a second ago, no report since the change. Silence
  // there is not yet "clean", so both get the note ("its problems may be missing"): a cautious word on a
  // clean file costs the model one {uri} call; nothing on a broken one told it the change was clean.
  test("a file whose language server answered but that is not settled yet (a language nothing reports on, Markdown): the note in its entry, claude's next {} waits for it again", async () => {
    const world = new World();
    const tool = ideGetDiagnosticsTool(world);
    await tool.handle({ uri: 'file:///w/notes.md' }, claude);
    world.disk.set('/w/notes.md', '# notes\n');
    world.serverDelayMs = 800; // answered after 800 ms: silence counts as clean 1 s later, past claude's budget
    const [json, note] = texts(await tool.handle({}, claude));
    expect(JSON.parse(json)).toEqual([{ uri: 'file:///w/notes.md', diagnostics: [notCheckedYet()] }]);
    expect(note).toMatch(/still being checked .*notes\.md/);
    await tool.handle({}, claude);
    expect(world.loads.filter((l) => l.path === '/w/notes.md')).toHaveLength(3);
  });

  test("a busy extension host (every look at a file slower than claude's budget) on a turn's first change: claude's calls still answer in time, each file it wrote is named as not checked yet, and the check goes on for the model's {}", async () => {
    const world = new World();
    const tool = ideGetDiagnosticsTool(world);
    const files = ['/w/a.ts', '/w/b.ts', '/w/c.ts', '/w/d.ts', '/w/e.ts'];
    world.diskReadMs = 3000;
    for (const f of files) {
      const started = Date.now();
      await tool.handle({ uri: `file://${f}` }, claude); // nothing on disk yet
      expect(Date.now() - started).toBeLessThan(1500); // its deadline (300 ms), not the look (3 s)
    }
    for (const f of files) {
      world.disk.set(f, 'export const n: number = "x";\n'); // claude writes them
      world.reports.set(f, [typeError]);
    }
    world.serverDelayMs = 2500; // a project still loading
    const started = Date.now();
    const [json, note] = texts(await tool.handle({}, claude));
    expect(Date.now() - started).toBeLessThan(2400); // its deadline (1.5 s), not the looks (3 s each) or the server (2.5 s)
    expect(JSON.parse(json)).toEqual(files.map((f) => ({ uri: `file://${f}`, diagnostics: [notCheckedYet()] })));
    expect(note).toMatch(/still being checked .*\/w\/a\.ts/);
    // The model's {} right after gets the problems: the check went on after claude's answer.
    world.changedOnDisk.push(...files);
    world.diskReadMs = 0;
    const [modelJson, ...modelNotes] = texts(await tool.handle({}, model()));
    expect(JSON.parse(modelJson)).toEqual(files.map((f) => ({ uri: `file://${f}`, diagnostics: [typeError] })));
    expect(modelNotes).toEqual([]);
  });

  test("a call without the model's marker is claude's own even with a uri the model might have asked: it never waits past claude's budget", async () => {
    const world = new World();
    world.disk.set('/w/closed.ts', 'x\n');
    world.serverDelayMs = 3000;
    const tool = ideGetDiagnosticsTool(world);
    const started = Date.now();
    await tool.handle({ uri: '/w/closed.ts' }, { ...claude, progress: () => undefined });
    expect(Date.now() - started).toBeLessThan(1500); // its deadline (300 ms), not the server (3 s)
  });
});

describe("getDiagnostics (IDE route): the model's {} covers the files that use what changed", () => {
  const callerError: DiagnosticItem = { ...typeError, message: "Argument of type 'number' is not assignable to parameter of type 'string'.", code: '2345' };

  test("a signature changed in math.ts: the model's {} loads main.ts (closed, it calls the function), waits for its check and names its error", async () => {
    const world = new World();
    world.disk.set('/w/math.ts', 'export function double(n: string) {}\n');
    world.disk.set('/w/main.ts', 'double(2);\n');
    world.changedOnDisk.push('/w/math.ts');
    world.usedBy.set('/w/math.ts', ['/w/main.ts']);
    world.reports.set('/w/main.ts', [callerError]);
    world.serverDelayMs = 1500;
    const result = await ideGetDiagnosticsTool(world).handle({}, model());
    const [json, ...notes] = texts(result);
    expect(JSON.parse(json)).toEqual([{ uri: 'file:///w/main.ts', diagnostics: [callerError] }]);
    expect(notes).toEqual([]);
    expect(world.loads).toEqual([
      { path: '/w/math.ts', show: true },
      { path: '/w/main.ts', show: true },
    ]);
    expect(world.released).toBe(1);
  });

  test('more files use it than one answer checks: the most relevant are checked, and a note names the rest (never a bare [])', async () => {
    const world = new World();
    world.disk.set('/w/lib.ts', 'export const b = 1;\n');
    const users = Array.from({ length: 13 }, (_, i) => `/w/u${String(i).padStart(2, '0')}.ts`);
    for (const u of users) world.disk.set(u, "import { a } from './lib';\n");
    world.changedOnDisk.push('/w/lib.ts');
    world.usedBy.set('/w/lib.ts', users);
    const [json, note] = texts(await ideGetDiagnosticsTool(world).handle({}, model()));
    expect(JSON.parse(json)).toEqual([]);
    expect(note).toBe(
      'Note: not checked: 3 more files that use the changed files (at most 10 are checked per answer; ask about a file by its path to check it): /w/u10.ts, /w/u11.ts, /w/u12.ts',
    );
    expect(world.loads.map((l) => l.path)).toEqual(['/w/lib.ts', ...users.slice(0, 10)]);
  });

  test("claude's own {} does not look for dependents: claude keeps only the files it wrote", async () => {
    const world = new World();
    world.disk.set('/w/math.ts', 'x\n');
    world.changedOnDisk.push('/w/math.ts');
    world.usedBy.set('/w/math.ts', ['/w/main.ts']);
    await ideGetDiagnosticsTool(world).handle({}, claude);
    expect(world.loads.map((l) => l.path)).not.toContain('/w/main.ts');
  });
});

describe("getDiagnostics (IDE route): claude's baseline is the moment its write is announced (Claude's changes)", () => {
  test("the baseline captures the file before the write (the answer is not held by it); the model's {uri} and claude's {} capture nothing", async () => {
    const { promises: fs } = await import('node:fs');
    const os = await import('node:os');
    const nodePath = await import('node:path');
    const { BeforeImageStore } = await import('../../../src/changes/beforeImageStore');
    const { ChangeTracker } = await import('../../../src/changes/changeTracker');
    const root = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), 'nc-baseline-')));
    try {
      const file = nodePath.join(root, 'a.ts');
      const other = nodePath.join(root, 'b.ts');
      await fs.writeFile(file, 'export const a = 1;\n');
      await fs.writeFile(other, 'export const b = 1;\n');
      const tracker = new ChangeTracker({
        store: new BeforeImageStore(nodePath.join(root, '.store')),
        sessionOf: () => ({ id: 's', label: 'claude' }),
        save: () => undefined,
      });
      const world = new World();
      world.disk.set(file, 'x');
      const tool = ideGetDiagnosticsTool(world, undefined, undefined, tracker);
      await tool.handle({ uri: `file://${file}` }, claude);
      await tool.handle({ uri: `file://${other}` }, model());
      await tool.handle({}, claude);
      // claude writes both right after its answers.
      await fs.writeFile(file, 'export const a = 2;\n');
      await fs.writeFile(other, 'export const b = 2;\n');
      expect(await tracker.fileChanged(file)).toMatchObject({ attribution: 'certain', source: 'baseline' });
      // Not announced, and no fallback before-image: not listed (rather than guessed).
      expect(await tracker.fileChanged(other)).toBeUndefined();
      const entry = tracker.list()[0].files[0];
      expect((await tracker.bytesOf(entry.before)).toString()).toBe('export const a = 1;\n');
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });
});
