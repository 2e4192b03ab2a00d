import type { CheckedDocuments, DiagnosticItem, DiagnosticsSource, FileDiagnostics, LoadOutcome } from '../../../src/host/diagnostics';
import { ASSUME_CHECKED_AFTER_MS, settleDiagnostics } from '../../../src/diagnostics/settleDiagnostics';
import { lineMap, newProblemsInEditedFile, newProblemsInOtherFiles } from '../../../src/diagnostics/changeDiagnostics';

const item = (message: string, line: number, severity: DiagnosticItem['severity'] = 'Error', character = 0): DiagnosticItem => ({
  message,
  severity,
  range: { start: { line, character }, end: { line, character: character + 1 } },
  source: 'ts',
  code: '2322',
});

/** A Problems panel and loaded documents driven by the test, on the real clock. */
class FakeWorld implements DiagnosticsSource {
  readonly problems = new Map<string, DiagnosticItem[]>();
  readonly docs = new Map<string, { text: string; changedAt: number; dirty?: boolean }>();
  readonly disk = new Map<string, string>();
  readonly reportedAt = new Map<string, number>();
  readonly loads: Array<{ path: string; show: boolean }> = [];
  private readonly diagnosticListeners = new Set<(paths: readonly string[]) => void>();
  private readonly documentListeners = new Set<(path: string) => void>();
  changedOnDisk: string[] = [];
  /** How long comparing a document with the disk takes (a read queued behind a busy extension host). */
  diskReadMs = 0;
  /** What loading a file does (default: load it with the disk's text). */
  onLoad: (path: string) => void = (p) => this.reload(p);

  readonly documents: CheckedDocuments = {
    load: async (path, { show }): Promise<LoadOutcome> => {
      this.loads.push({ path, show });
      if (this.docs.has(path)) return 'loaded';
      if (!this.disk.has(path)) return 'skipped';
      this.onLoad(path);
      return 'opened';
    },
    matchesDisk: async (path) => {
      if (this.diskReadMs) await new Promise((r) => setTimeout(r, this.diskReadMs));
      const doc = this.docs.get(path);
      if (!doc) return undefined;
      return !doc.dirty && doc.text === this.disk.get(path);
    },
    isDirty: (path) => this.docs.get(path)?.dirty ?? false,
    lastChange: (path) => ({ document: this.docs.get(path)?.changedAt, diagnostics: this.reportedAt.get(path) }),
    onDidChangeDocument: (listener) => {
      this.documentListeners.add(listener);
      return { dispose: () => this.documentListeners.delete(listener) };
    },
    takeChangedOnDisk: () => this.changedOnDisk.splice(0),
    checkerAnswered: (path) => this.checker(path),
    releaseCheckTabs: () => {
      this.released++;
    },
  };
  /** How a language server answers about a loaded file (default: at once). */
  checker: (path: string) => Promise<boolean> = async (path) => this.docs.has(path);
  released = 0;

  /** VS Code reloads the document from disk. */
  reload(path: string): void {
    this.docs.set(path, { text: this.disk.get(path) ?? '', changedAt: Date.now() });
    for (const l of this.documentListeners) l(path);
  }

  /** A language server reports. */
  report(path: string, items: DiagnosticItem[]): void {
    this.problems.set(path, items);
    this.reportedAt.set(path, Date.now());
    for (const l of [...this.diagnosticListeners]) l([path]);
  }

  all(): FileDiagnostics[] {
    return [...this.problems].filter(([, d]) => d.length).map(([p, diagnostics]) => ({ uri: `file://${p}`, diagnostics }));
  }
  forFile(path: string): DiagnosticItem[] {
    return this.problems.get(path) ?? [];
  }
  onDidChange(listener: (paths: readonly string[]) => void) {
    this.diagnosticListeners.add(listener);
    return { dispose: () => this.diagnosticListeners.delete(listener) };
  }
  listenerCount(): number {
    return this.diagnosticListeners.size + this.documentListeners.size;
  }
}

const later = (ms: number, fn: () => void) => setTimeout(fn, ms);

describe('settleDiagnostics: waiting until the problems reflect the disk', () => {
  test('a closed file is loaded (show asked for) and the answer waits for its report plus the quiet period', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/a.ts', 'let x: number = "s";\n');
    world.onLoad = (p) => {
      world.reload(p);
      later(80, () => world.report(p, [item('syntax ok', 0, 'Hint')])); // syntax report
      later(200, () => world.report(p, [item("Type 'string' is not assignable to type 'number'.", 0)])); // type report follows
    };
    const report = await settleDiagnostics(world, ['/w/a.ts'], { timeoutMs: 2000, load: 'show', quietMs: 150 });
    expect(world.loads).toEqual([{ path: '/w/a.ts', show: true }]);
    expect(world.forFile('/w/a.ts').map((d) => d.message)).toEqual(["Type 'string' is not assignable to type 'number'."]);
    expect(report.unsettled).toEqual([]);
    expect(report.waitedMs).toBeGreaterThanOrEqual(340);
    expect(report.waitedMs).toBeLessThan(1000);
    expect(world.listenerCount()).toBe(0);
  });

  test('a change on disk VS Code has not reloaded yet is waited for, then its report', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/a.ts', 'old\n');
    world.reload('/w/a.ts');
    world.report('/w/a.ts', []);
    await new Promise((r) => setTimeout(r, 20));
    world.disk.set('/w/a.ts', 'new\n'); // the CLI wrote it
    later(120, () => world.reload('/w/a.ts')); // VS Code's file watcher
    later(220, () => world.report('/w/a.ts', [item('broken', 0)]));
    const report = await settleDiagnostics(world, ['/w/a.ts'], { timeoutMs: 1500, quietMs: 100 });
    expect(world.forFile('/w/a.ts')).toHaveLength(1);
    expect(report.unsettled).toEqual([]);
    expect(report.waitedMs).toBeGreaterThanOrEqual(300);
  });

  test('an already checked file answers at once; the budget bounds a file that never gets a report', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/ok.ts', 'x\n');
    world.docs.set('/w/ok.ts', { text: 'x\n', changedAt: Date.now() - 5000 });
    world.reportedAt.set('/w/ok.ts', Date.now() - 4000);
    const quick = await settleDiagnostics(world, ['/w/ok.ts'], { timeoutMs: 1000 });
    expect(quick.waitedMs).toBeLessThan(500);

    world.disk.set('/w/silent.ts', 'y\n');
    const slow = await settleDiagnostics(world, ['/w/silent.ts'], { timeoutMs: 300, load: 'load' });
    expect(slow.unsettled).toEqual(['/w/silent.ts']);
    expect(slow.waitedMs).toBeGreaterThanOrEqual(290);
    expect(slow.waitedMs).toBeLessThan(450);
  });

  test(`a change with no report for ${ASSUME_CHECKED_AFTER_MS} ms counts as checked (a clean file's server stays silent)`, async () => {
    const world = new FakeWorld();
    world.disk.set('/w/clean.ts', 'z\n');
    world.docs.set('/w/clean.ts', { text: 'z\n', changedAt: Date.now() - ASSUME_CHECKED_AFTER_MS + 100 });
    const report = await settleDiagnostics(world, ['/w/clean.ts'], { timeoutMs: 2000 });
    expect(report.unsettled).toEqual([]);
    expect(report.waitedMs).toBeGreaterThanOrEqual(90);
    expect(report.waitedMs).toBeLessThan(400);
  });

  test('a file just opened whose checker is still busy (a first check in a fresh window) is not taken for clean: the wait lasts until it answered', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/cold.ts', 'export const n: number = "x";\n');
    let answer!: () => void;
    world.checker = () => new Promise<boolean>((resolve) => (answer = () => resolve(true)));
    later(1500, () => answer()); // the project is loaded; then its report comes
    later(1700, () => world.report('/w/cold.ts', [item("Type 'string' is not assignable to type 'number'.", 0)]));
    const waiting: number[] = [];
    const report = await settleDiagnostics(world, ['/w/cold.ts'], { timeoutMs: 5000, load: 'show', onWaiting: (_files, waited) => waiting.push(waited) });
    expect(report.unsettled).toEqual([]);
    expect(report.waitedMs).toBeGreaterThanOrEqual(1700 + 250);
    expect(world.forFile('/w/cold.ts')).toHaveLength(1);
    expect(waiting.length).toBeGreaterThanOrEqual(1);
  });

  test('a clean file: silence counts only from when its checker answered; one that answers at once had it already', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/clean.ts', 'export const n = 1;\n');
    world.checker = () => new Promise<boolean>((resolve) => later(600, () => resolve(true)));
    const slow = await settleDiagnostics(world, ['/w/clean.ts'], { timeoutMs: 5000, load: 'show' });
    expect(slow.unsettled).toEqual([]);
    expect(slow.waitedMs).toBeGreaterThanOrEqual(600 + ASSUME_CHECKED_AFTER_MS);

    world.docs.set('/w/warm.ts', { text: 'w\n', changedAt: Date.now() - ASSUME_CHECKED_AFTER_MS - 100 });
    world.disk.set('/w/warm.ts', 'w\n');
    world.checker = async () => true;
    const quick = await settleDiagnostics(world, ['/w/warm.ts'], { timeoutMs: 5000 });
    expect(quick.waitedMs).toBeLessThan(300);
  });

  test('a file nothing checks (plain text) is settled as soon as it is loaded', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/notes.txt', 'hello\n');
    world.checker = async () => false;
    const report = await settleDiagnostics(world, ['/w/notes.txt'], { timeoutMs: 5000, load: 'show' });
    expect(report.unsettled).toEqual([]);
    expect(report.waitedMs).toBeLessThan(300);
  });

  test('when time runs out before the checker answered, the file is reported as still being checked', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/stuck.ts', 'x\n');
    world.checker = () => new Promise<boolean>(() => undefined);
    const report = await settleDiagnostics(world, ['/w/stuck.ts'], { timeoutMs: 1500, load: 'show' });
    expect(report.unsettled).toEqual(['/w/stuck.ts']);
  });

  test('a look at the files slower than the time left (reads queued behind a busy extension host) does not push the answer past the budget: what it had not seen is still being checked', async () => {
    const world = new FakeWorld();
    const files = ['/w/a.ts', '/w/b.ts', '/w/c.ts', '/w/d.ts', '/w/e.ts'];
    for (const f of files) {
      world.disk.set(f, 'x\n');
      world.reload(f); // just changed: no report yet
    }
    world.checker = () => new Promise<boolean>(() => undefined); // a first check still running
    world.diskReadMs = 400;
    const report = await settleDiagnostics(world, files, { timeoutMs: 300, load: 'show' });
    expect(report.waitedMs).toBeLessThan(380);
    expect(report.unsettled).toEqual(files);
    expect(report.unanswered).toEqual(files); // nothing said the server had them

    // A file already reported on stays "still being checked" without the "not answered" mark.
    world.docs.set('/w/r.ts', { text: 'r\n', changedAt: Date.now() - 50 });
    world.disk.set('/w/r.ts', 'r\n');
    world.reportedAt.set('/w/r.ts', Date.now());
    const reported = await settleDiagnostics(world, ['/w/r.ts'], { timeoutMs: 200 });
    expect(reported.waitedMs).toBeLessThan(280);
    expect(reported).toMatchObject({ unsettled: ['/w/r.ts'], unanswered: [] });
  });

  test('the files of one wait are looked at together, not one after the other', async () => {
    const world = new FakeWorld();
    const files = ['/w/a.ts', '/w/b.ts', '/w/c.ts', '/w/d.ts'];
    for (const f of files) {
      world.disk.set(f, 'x\n');
      world.docs.set(f, { text: 'x\n', changedAt: Date.now() - 5000 });
      world.reportedAt.set(f, Date.now() - 4000);
    }
    world.diskReadMs = 200;
    const report = await settleDiagnostics(world, files, { timeoutMs: 2000 });
    expect(report.unsettled).toEqual([]);
    expect(report.waitedMs).toBeLessThan(500); // one after the other: 800 ms
  });

  test('dirty and unloadable files are not waited for; missing files are skipped', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/d.ts', 'disk\n');
    world.docs.set('/w/d.ts', { text: 'typed\n', changedAt: Date.now(), dirty: true });
    const report = await settleDiagnostics(world, ['/w/d.ts', '/w/missing.ts'], { timeoutMs: 1000, load: 'load' });
    expect(report).toMatchObject({ unsettled: [] });
    expect(report.waitedMs).toBeLessThan(500);
  });

  test('othersQuietMs: after the file settles, waits for other files re-checked after it, and names them', async () => {
    const world = new FakeWorld();
    world.disk.set('/w/lib.ts', 'export const b = 1;\n');
    world.reload('/w/lib.ts');
    later(50, () => world.report('/w/lib.ts', []));
    later(260, () => world.report('/w/main.ts', [item("Module './lib' has no exported member 'a'.", 0)]));
    const report = await settleDiagnostics(world, ['/w/lib.ts'], { timeoutMs: 2000, quietMs: 100, othersQuietMs: 200 });
    expect(report.othersChanged).toEqual(['/w/main.ts']);
    expect(report.waitedMs).toBeGreaterThanOrEqual(450);
    expect(report.waitedMs).toBeLessThan(1000);
  });

  test('without document tracking (plain-Node hosts): no wait, unless a change is known (since), then until a report', async () => {
    const world = new FakeWorld();
    const bare: DiagnosticsSource = { all: () => world.all(), forFile: (p) => world.forFile(p), onDidChange: (l) => world.onDidChange(l) };
    expect((await settleDiagnostics(bare, ['/w/a.ts'], { timeoutMs: 1000 })).waitedMs).toBeLessThan(500);
    later(100, () => world.report('/w/a.ts', [item('x', 0)]));
    const report = await settleDiagnostics(bare, ['/w/a.ts'], { timeoutMs: 1000, since: Date.now(), quietMs: 50 });
    expect(report.waitedMs).toBeGreaterThanOrEqual(140);
    expect(report.waitedMs).toBeLessThan(600);
  });
});

describe('new problems of a change', () => {
  test('lineMap follows kept lines through insertions and deletions', () => {
    const map = lineMap('a\nb\nc\nd\n', 'x\ny\na\nb\nd\n');
    expect([...map]).toEqual([
      [0, 2],
      [1, 3],
      [3, 4],
    ]);
  });

  test('a problem that only moved because lines were inserted above it is not new; a real new one is', () => {
    const oldText = 'const a: number = "s";\nexport {};\n';
    const newText = '// header\n// more\nconst a: number = "s";\nconst b: string = 1;\nexport {};\n';
    const before = [item("Type 'string' is not assignable to type 'number'.", 0, 'Error', 6)];
    const after = [
      item("Type 'string' is not assignable to type 'number'.", 2, 'Error', 6),
      item("Type 'number' is not assignable to type 'string'.", 3, 'Error', 6),
    ];
    expect(newProblemsInEditedFile(before, after, oldText, newText).map((d) => d.range.start.line)).toEqual([3]);
  });

  test('a moved line keeps its problem (same message and line text); a second copy of a problem is new', () => {
    const oldText = 'one\nbad();\ntwo\n';
    const newText = 'two\none\nbad();\nbad();\n';
    const before = [item("Cannot find name 'bad'.", 1)];
    const after = [item("Cannot find name 'bad'.", 2), item("Cannot find name 'bad'.", 3)];
    expect(newProblemsInEditedFile(before, after, oldText, newText)).toHaveLength(1);
  });

  test('a problem on a kept line that moved 5 lines down is not new; once its line was rewritten (other text) it is', () => {
    const before = [item('m', 0)];
    const after = [item('m', 5)];
    expect(newProblemsInEditedFile(before, after, 'x\n', '1\n2\n3\n4\n5\nx\n')).toEqual([]);
    expect(newProblemsInEditedFile(before, after, 'x\n', '1\n2\n3\n4\n5\ny\n')).toHaveLength(1);
  });

  test('other files: new problems only, most severe first, the edited file excluded', () => {
    const before: FileDiagnostics[] = [{ uri: 'file:///w/keep.ts', diagnostics: [item('old', 1)] }];
    const after: FileDiagnostics[] = [
      { uri: 'file:///w/keep.ts', diagnostics: [item('old', 1), item('warn', 2, 'Warning')] },
      { uri: 'file:///w/main.ts', diagnostics: [item('hint', 0, 'Hint'), item('broken import', 0)] },
      { uri: 'file:///w/lib.ts', diagnostics: [item('own', 0)] },
    ];
    expect(newProblemsInOtherFiles(before, after, new Set(['/w/lib.ts'])).map((p) => `${p.path}:${p.item.message}`)).toEqual([
      '/w/main.ts:broken import',
      '/w/keep.ts:warn',
      '/w/main.ts:hint',
    ]);
  });
});
