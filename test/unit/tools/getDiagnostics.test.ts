import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type * as vscode from 'vscode';
import type { FileDiagnostics } from '../../../src/host/diagnostics';
import { collectProblems, formatProblem, formatProblems, severityKey } from '../../../src/tools/getDiagnostics';
import { displayPathOf, inScope } from '../../../src/workspace/displayPaths';
import {
  codeString,
  severityName,
  STILL_LOADING_ANSWER,
  toDiagnosticItem,
  VsCodeDiagnosticsSource,
  type DiagnosticsApi,
} from '../../../src/vscode/diagnostics/diagnosticsSource';
import { pathOfFileUri } from '../../../src/workspace/fileUri';

const item = (line: number, message: string, severity: 'Error' | 'Warning' | 'Information' | 'Hint', extra: { source?: string; code?: string } = {}) => ({
  message,
  severity,
  range: { start: { line, character: 0 }, end: { line, character: 3 } },
  ...extra,
});

describe('tools: get_diagnostics formatting', () => {
  const files: FileDiagnostics[] = [
    { uri: 'file:///w/src/b.ts', diagnostics: [item(9, 'Unused x', 'Warning', { source: 'eslint', code: 'no-unused-vars' })] },
    {
      uri: 'file:///w/src/a b.ts',
      diagnostics: [item(0, "Cannot find name 'y'.\n  Did you mean 'x'?", 'Error', { source: 'ts', code: '2304' }), item(4, 'Hint here', 'Hint')],
    },
    { uri: 'file:///elsewhere/lib.d.ts', diagnostics: [item(2, 'Outside', 'Information')] },
    { uri: 'untitled:Untitled-1', diagnostics: [item(0, 'Not a file', 'Error')] },
  ];
  const display = (f: string) => displayPathOf(f, [{ paths: ['/w'], name: 'w' }], 'linux');

  test('one line per problem, 1-based lines, workspace-relative paths, sorted by file and line', () => {
    const problems = collectProblems(files, { display, platform: 'linux' });
    expect(problems.map(formatProblem)).toEqual([
      '[information] /elsewhere/lib.d.ts:3 — Outside',
      "[error] src/a b.ts:1 — Cannot find name 'y'.\n      Did you mean 'x'? (ts 2304)",
      '[hint] src/a b.ts:5 — Hint here',
      '[warning] src/b.ts:10 — Unused x (eslint no-unused-vars)',
    ]);
  });

  test('filters by severity and by a file or folder scope', () => {
    expect(collectProblems(files, { display, severity: 'error', platform: 'linux' }).map((p) => p.file)).toEqual(['src/a b.ts']);
    expect(collectProblems(files, { display, scope: { roots: ['/w/src/b.ts'] }, platform: 'linux' }).map((p) => p.line)).toEqual([10]);
    expect(collectProblems(files, { display, scope: { roots: ['/w/src/'] }, platform: 'linux' })).toHaveLength(3);
    expect(collectProblems(files, { display, scope: { roots: ['/w/sr'] }, platform: 'linux' })).toHaveLength(0);
  });

  test('says "No problems" with the filter, and counts by severity', () => {
    expect(formatProblems([], ' in src with severity error')).toBe('No problems in src with severity error.');
    expect(formatProblems([])).toBe('No problems.');
    const text = formatProblems(collectProblems(files, { display, platform: 'linux' }));
    expect(text.split('\n')[0]).toBe('4 problems (1 error, 1 warning, 1 information, 1 hint) in 3 files');
  });

  test('caps the list and says so', () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ severity: 'error' as const, file: 'a.ts', line: i + 1, message: 'm' }));
    expect(formatProblems(many, '', 5).split('\n').pop()).toBe('truncated: true — 5 of 7 shown. Filter by path or severity to see the rest.');
  });

  test('uri and path helpers: raw file:// paths, Windows drive letters, case-insensitive scope on Windows, multi-root names', () => {
    expect(pathOfFileUri('file:///w/a b.ts')).toBe('/w/a b.ts');
    expect(pathOfFileUri('file://C:\\w\\a.ts')).toBe('C:\\w\\a.ts');
    expect(pathOfFileUri('file:///c:/w/a.ts')).toBe('c:/w/a.ts');
    expect(pathOfFileUri('_claude_fs_right:/w/a.ts')).toBeUndefined();
    expect(inScope('C:\\W\\Src\\a.ts', { roots: ['c:\\w\\src'] }, 'win32')).toBe(true);
    expect(inScope('/W/src/a.ts', { roots: ['/w/src'] }, 'linux')).toBe(false);
    const folders = [
      { paths: ['/w/app'], name: 'app' },
      { paths: ['/w/lib', '/real/lib'], name: 'lib' },
    ];
    expect(displayPathOf('/real/lib/x.ts', folders, 'linux')).toBe('lib/x.ts');
    expect(displayPathOf('C:\\w\\app\\x.ts', [{ paths: ['C:\\w\\app'], name: 'app' }], 'win32')).toBe('x.ts');
    expect(severityKey('Info')).toBe('information');
    expect(severityKey('Error')).toBe('error');
  });
});

// A Uri stand-in: fsPath as given, toString() percent-encoded like vscode.Uri's.
function fakeUri(fsPath: string, scheme = 'file'): vscode.Uri {
  return { scheme, fsPath, path: fsPath, toString: () => `${scheme}://${encodeURI(fsPath)}` } as unknown as vscode.Uri;
}

function fakeLanguages(entries: [vscode.Uri, vscode.Diagnostic[]][]) {
  const listeners = new Set<(e: vscode.DiagnosticChangeEvent) => void>();
  const api = {
    getDiagnostics: ((resource?: vscode.Uri) =>
      resource ? (entries.find(([u]) => u.toString() === resource.toString())?.[1] ?? []) : entries) as DiagnosticsApi['getDiagnostics'],
    onDidChangeDiagnostics: ((listener: (e: vscode.DiagnosticChangeEvent) => void) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    }) as unknown as vscode.Event<vscode.DiagnosticChangeEvent>,
  };
  return { api, fire: (uris: vscode.Uri[]) => listeners.forEach((l) => l({ uris })), listeners };
}

const diag = (severity: number, code?: vscode.Diagnostic['code'], source?: string): vscode.Diagnostic =>
  ({
    message: 'msg',
    severity,
    range: { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } },
    source,
    code,
  }) as unknown as vscode.Diagnostic;

describe('tools: diagnostics source adapter', () => {
  test('maps severities, 0-based ranges, and codes (objects to their value) as strings', () => {
    expect([0, 1, 2, 3].map((s) => severityName(s as vscode.DiagnosticSeverity))).toEqual(['Error', 'Warning', 'Information', 'Hint']);
    expect(codeString(2304)).toBe('2304');
    expect(codeString({ value: 'no-undef', target: fakeUri('/x') })).toBe('no-undef');
    expect(codeString({ value: 7, target: fakeUri('/x') })).toBe('7');
    expect(codeString(undefined)).toBeUndefined();
    expect(toDiagnosticItem(diag(1, { value: 'rule', target: fakeUri('/x') }, 'eslint'))).toEqual({
      message: 'msg',
      severity: 'Warning',
      range: { start: { line: 3, character: 4 }, end: { line: 3, character: 9 } },
      source: 'eslint',
      code: 'rule',
    });
    expect(toDiagnosticItem(diag(0))).not.toHaveProperty('code');
  });

  test('all(): file URIs only, raw (not percent-encoded) file:// + fsPath, empty lists dropped', () => {
    const w = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-diag-source-')));
    for (const f of ['a b#1.ts', 'clean.ts']) fs.writeFileSync(path.join(w, f), 'x\n');
    const { api } = fakeLanguages([
      [fakeUri(`${w}/a b#1.ts`), [diag(0, 'E1')]],
      [fakeUri(`${w}/clean.ts`), []],
      [fakeUri('Untitled-1', 'untitled'), [diag(0)]],
    ]);
    const source = new VsCodeDiagnosticsSource(api, (p) => fakeUri(p));
    expect(source.all()).toEqual([{ uri: `file://${w}/a b#1.ts`, diagnostics: [expect.objectContaining({ code: 'E1', severity: 'Error' })] }]);
    expect(source.forFile(`${w}/a b#1.ts`)).toHaveLength(1);
    expect(source.forFile(`${w}/none.ts`)).toEqual([]);
    fs.rmSync(w, { recursive: true, force: true });
  });

  test("a deleted file's problems (its document still loaded, its server still reporting the old text) are in no answer: a file written again at that path starts clean", () => {
    const w = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-diag-source-')));
    const file = path.join(w, 'data.json');
    fs.writeFileSync(file, '{\n  "name": "demo",\n}\n');
    const { api } = fakeLanguages([[fakeUri(file), [diag(0, '519')]]]);
    const source = new VsCodeDiagnosticsSource(api, (p) => fakeUri(p));
    expect(source.forFile(file)).toHaveLength(1);
    fs.rmSync(file);
    // claude's baseline before it writes the file again: nothing of the old file.
    expect(source.forFile(file)).toEqual([]);
    expect(source.all()).toEqual([]);
    fs.writeFileSync(file, '{\n  "name": "demo",\n}\n');
    expect(source.forFile(file)).toHaveLength(1);
    fs.rmSync(w, { recursive: true, force: true });
  });

  test('onDidChange reports file paths (fsPath, other schemes dropped) and unsubscribes', () => {
    const { api, fire, listeners } = fakeLanguages([]);
    const source = new VsCodeDiagnosticsSource(api, (p) => fakeUri(p));
    const seen: (readonly string[])[] = [];
    const subscription = source.onDidChange((paths) => seen.push(paths));
    fire([fakeUri('/w/a b.ts'), fakeUri('Untitled-1', 'untitled')]);
    fire([fakeUri('git-thing', 'git')]);
    expect(seen).toEqual([['/w/a b.ts']]);
    subscription.dispose();
    expect(listeners.size).toBe(0);
  });
});

test('tools pathOfFileUri keeps raw paths raw: the CLI does not percent-encode them', () => {
  expect(pathOfFileUri('file:///w/a%20b.ts')).toBe('/w/a%20b.ts');
});

interface FakeTab {
  input: { uri: vscode.Uri };
  isActive: boolean;
  isDirty: boolean;
  group: { isActive: boolean; tabs: FakeTab[] };
}

describe('tools: checked documents adapter', () => {
  function fakeVsCode() {
    const emitters = {
      open: new Set<(d: unknown) => void>(),
      change: new Set<(e: unknown) => void>(),
      created: new Set<(u: vscode.Uri) => void>(),
      changed: new Set<(u: vscode.Uri) => void>(),
      tabs: new Set<(e: { opened: FakeTab[]; closed: FakeTab[]; changed: FakeTab[] }) => void>(),
      selection: new Set<(e: unknown) => void>(),
    };
    const on =
      <T>(set: Set<T>) =>
      (listener: T) => (set.add(listener), { dispose: () => set.delete(listener) });
    const documents: Array<{
      uri: vscode.Uri;
      languageId: string;
      isDirty: boolean;
      getText(): string;
      positionAt(offset: number): { line: number; character: number };
    }> = [];
    const shown: string[] = [];
    const tabs: vscode.Uri[] = [];
    const api = {
      workspace: {
        textDocuments: documents,
        openTextDocument: async (p: string) => {
          const text = fs.readFileSync(p, 'utf8');
          const positionAt = (offset: number) => {
            const lines = text.slice(0, offset).split('\n');
            return { line: lines.length - 1, character: lines[lines.length - 1].length };
          };
          const doc = {
            uri: fakeUri(p),
            languageId: p.endsWith('.ts') ? 'typescript' : p.endsWith('.txt') ? 'plaintext' : 'json',
            isDirty: false,
            getText: () => text,
            positionAt,
          };
          documents.push(doc);
          emitters.open.forEach((l) => l(doc));
          return doc;
        },
        onDidOpenTextDocument: on(emitters.open),
        onDidChangeTextDocument: on(emitters.change),
        createFileSystemWatcher: () => ({ onDidCreate: on(emitters.created), onDidChange: on(emitters.changed), dispose: () => undefined }),
      },
      window: {
        onDidChangeTextEditorSelection: on(emitters.selection),
        tabGroups: {
          get all() {
            return [group];
          },
          onDidChangeTabs: on(emitters.tabs),
          get tabs() {
            return group.tabs;
          },
          close: async (closing: FakeTab[]) => {
            for (const tab of closing) group.tabs.splice(group.tabs.indexOf(tab), 1);
            return true;
          },
        },
      },
      showInBackground: async (uri: vscode.Uri) => {
        shown.push(uri.fsPath);
        group.tabs.push({ input: { uri }, isActive: false, isDirty: false, group });
      },
      askLanguageServers: async () => 1,
      checkTabsIdleMs: 30,
    };
    const group: { isActive: boolean; tabs: FakeTab[] } = {
      isActive: true,
      tabs: tabs.map((uri) => ({ input: { uri }, isActive: false, isDirty: false, group })),
    };
    /** The user brings a tab to the front. */
    const activate = (tab: FakeTab) => {
      for (const t of group.tabs) t.isActive = t === tab;
      emitters.tabs.forEach((l) => l({ opened: [], closed: [], changed: [tab] }));
    };
    /** The user clicks into the editor of a tab (a selection made with the mouse). */
    const click = (tab: FakeTab) => emitters.selection.forEach((l) => l({ kind: 2, textEditor: { document: { uri: tab.input.uri } } }));
    return { api: api as unknown as ConstructorParameters<typeof VsCodeDiagnosticsSource>[2], emitters, documents, shown, tabs, group, activate, click };
  }

  test("load: every checked language gets a background tab (checkers look only at files in tabs: TypeScript, JSON's pulled diagnostics), plain text does not; missing files are skipped; matchesDisk compares with the disk", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-docs-'));
    try {
      for (const f of ['a.ts', 'b.json', 'c.txt']) fs.writeFileSync(path.join(dir, f), '1\n');
      const { api, shown } = fakeVsCode();
      const source = new VsCodeDiagnosticsSource(fakeLanguages([]).api, (p) => fakeUri(p), api);
      const docs = source.documents!;
      expect(await docs.load(path.join(dir, 'a.ts'), { show: true })).toBe('opened');
      expect(await docs.load(path.join(dir, 'a.ts'), { show: false })).toBe('loaded');
      expect(await docs.load(path.join(dir, 'b.json'), { show: true })).toBe('opened');
      expect(await docs.load(path.join(dir, 'c.txt'), { show: true })).toBe('opened');
      expect(await docs.load(path.join(dir, 'gone.ts'), { show: true })).toBe('skipped');
      expect(shown).toEqual([path.join(dir, 'a.ts'), path.join(dir, 'b.json')]);
      expect(docs.lastChange(path.join(dir, 'a.ts')).document).toEqual(expect.any(Number));
      expect(await docs.matchesDisk(path.join(dir, 'a.ts'))).toBe(true);
      fs.writeFileSync(path.join(dir, 'a.ts'), '2\n'); // changed on disk, not reloaded yet
      expect(await docs.matchesDisk(path.join(dir, 'a.ts'))).toBe(false);
      expect(await docs.matchesDisk(path.join(dir, 'never-loaded.ts'))).toBeUndefined();
      source.dispose();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a loaded file shown in a tab again (its check tab had closed, its problems cleared) is waited for: the clearing is no report on it', async () => {
    // The JSON flow of a window with history: data.json stays loaded after its tab closed (the pull client
    // cleared its problems then); it is written again with the same text (no reload, no change event).
    // Its checker looks at it again only once it is shown, so the answer must wait for that report.
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-docs-')));
    const file = path.join(dir, 'data.json');
    try {
      fs.writeFileSync(file, '{\n  "name": "demo",\n}\n');
      const { api, group, emitters } = fakeVsCode();
      const problems: [vscode.Uri, vscode.Diagnostic[]][] = [];
      const languages = fakeLanguages(problems);
      const source = new VsCodeDiagnosticsSource(languages.api, (p) => fakeUri(p), api);
      const docs = source.documents!;
      await docs.load(file, { show: true });
      problems.push([fakeUri(file), [diag(0)]]);
      languages.fire([fakeUri(file)]);
      // Its tab closes: the pull client clears its problems (a report), the document stays loaded.
      const tab = group.tabs.splice(0, 1);
      emitters.tabs.forEach((l) => l({ opened: [], closed: tab, changed: [] }));
      problems.splice(0);
      await new Promise((r) => setTimeout(r, 20));
      languages.fire([fakeUri(file)]);
      await new Promise((r) => setTimeout(r, 300)); // longer ago than a report needs to be quiet
      // Asked again: shown in a tab, its checker reports 200 ms later.
      const report = setTimeout(() => {
        problems.push([fakeUri(file), [diag(0)]]);
        languages.fire([fakeUri(file)]);
      }, 200);
      const { settleDiagnostics } = await import('../../../src/diagnostics/settleDiagnostics');
      const settled = await settleDiagnostics(source, [file], { timeoutMs: 1500, load: 'show' });
      clearTimeout(report);
      expect({ unsettled: settled.unsettled, problems: source.forFile(file).length }).toEqual({ unsettled: [], problems: 1 });
      expect(settled.waitedMs).toBeGreaterThanOrEqual(200);
      // A tab the user opens counts the same (the review's accepted file, revealed): the checker starts now.
      const before = docs.lastChange(file).document!;
      await new Promise((r) => setTimeout(r, 5));
      group.tabs.splice(0);
      const opened = { input: { uri: fakeUri(file) }, isActive: true, isDirty: false, group };
      group.tabs.push(opened);
      emitters.tabs.forEach((l) => l({ opened: [opened], closed: [], changed: [] }));
      const shownAt = docs.lastChange(file).document!;
      expect(shownAt).toBeGreaterThan(before);
      // A second tab of a file a tab already shows changes nothing: its checker has it already.
      await new Promise((r) => setTimeout(r, 5));
      const second = { input: { uri: fakeUri(file) }, isActive: false, isDirty: false, group };
      group.tabs.push(second);
      emitters.tabs.forEach((l) => l({ opened: [second], closed: [], changed: [] }));
      expect(docs.lastChange(file).document).toBe(shownAt);
      source.dispose();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("keepTab: a check tab of the file the review then reveals (the accepted file) is the user's, never closed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-docs-'));
    try {
      for (const f of ['accepted.json', 'other.json']) fs.writeFileSync(path.join(dir, f), '{}\n');
      const { api, group } = fakeVsCode();
      const source = new VsCodeDiagnosticsSource(fakeLanguages([]).api, (p) => fakeUri(p), api);
      const docs = source.documents!;
      // claude's {} came first: both files got a check tab; then the review showed the accepted one.
      for (const f of ['accepted.json', 'other.json']) await docs.load(path.join(dir, f), { show: true });
      docs.keepTab!(path.join(dir, 'accepted.json'));
      jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
      docs.releaseCheckTabs();
      await jest.advanceTimersByTimeAsync(10 * 30);
      expect(group.tabs.map((t) => path.basename(t.input.uri.fsPath))).toEqual(['accepted.json']);
      source.dispose();
    } finally {
      jest.useRealTimers();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('load: a kernel pseudo-file (size 0 with content: /proc/self/pagemap) is never opened; an empty file is', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-docs-'));
    try {
      fs.writeFileSync(path.join(dir, 'empty.ts'), '');
      const { api, documents } = fakeVsCode();
      const source = new VsCodeDiagnosticsSource(fakeLanguages([]).api, (p) => fakeUri(p), api);
      expect(await source.documents!.load('/proc/self/pagemap', { show: true })).toBe('skipped');
      expect(await source.documents!.load(path.join(dir, 'empty.ts'), { show: false })).toBe('opened');
      expect(documents.map((d) => d.uri.fsPath)).toEqual([path.join(dir, 'empty.ts')]);
      source.dispose();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('takeChangedOnDisk: each consumer gets each change once; .git and node_modules are ignored', () => {
    const { api, emitters } = fakeVsCode();
    const source = new VsCodeDiagnosticsSource(fakeLanguages([]).api, (p) => fakeUri(p), api);
    const docs = source.documents!;
    emitters.changed.forEach((l) => l(fakeUri('/w/a.ts')));
    emitters.created.forEach((l) => l(fakeUri('/w/node_modules/x/index.js')));
    emitters.changed.forEach((l) => l(fakeUri('/w/.git/index')));
    expect(docs.takeChangedOnDisk('ide')).toEqual(['/w/a.ts']);
    expect(docs.takeChangedOnDisk('ide')).toEqual([]);
    emitters.created.forEach((l) => l(fakeUri('/w/b.ts')));
    expect(docs.takeChangedOnDisk('tools')).toEqual(['/w/a.ts', '/w/b.ts']);
    expect(docs.takeChangedOnDisk('ide')).toEqual(['/w/b.ts']);
    source.dispose();
  });

  test("releaseCheckTabs closes only the tabs load opened for checking: not the user's own, not one the user brought to the front", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-docs-'));
    try {
      for (const f of ['mine.ts', 'checked.ts', 'adopted.ts', 'clicked.ts']) fs.writeFileSync(path.join(dir, f), 'export const x = 1;\n');
      const { api, group, activate, click } = fakeVsCode();
      group.tabs.push({ input: { uri: fakeUri(path.join(dir, 'mine.ts')) }, isActive: true, isDirty: false, group });
      const source = new VsCodeDiagnosticsSource(fakeLanguages([]).api, (p) => fakeUri(p), api);
      const docs = source.documents!;
      for (const f of ['mine.ts', 'checked.ts', 'adopted.ts', 'clicked.ts']) await docs.load(path.join(dir, f), { show: true });
      const names = () => group.tabs.map((t) => path.basename(t.input.uri.fsPath));
      expect(names()).toEqual(['mine.ts', 'checked.ts', 'adopted.ts', 'clicked.ts']);
      activate(group.tabs[2]);
      click(group.tabs[3]);
      // Fake timers: "after the idle time" is every timer due run, so "still open" is not a matter of how long a sleep was.
      jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
      const idle = () => jest.advanceTimersByTimeAsync(10 * 30);
      // A check that needs the tabs again before they close keeps them (claude's next edit of the file).
      docs.releaseCheckTabs();
      await docs.load(path.join(dir, 'checked.ts'), { show: true });
      await idle();
      expect(names()).toEqual(['mine.ts', 'checked.ts', 'adopted.ts', 'clicked.ts']);
      docs.releaseCheckTabs();
      await idle();
      expect(names()).toEqual(['mine.ts', 'adopted.ts', 'clicked.ts']);
      docs.releaseCheckTabs();
      await idle();
      expect(names()).toEqual(['mine.ts', 'adopted.ts', 'clicked.ts']);
      source.dispose();
    } finally {
      jest.useRealTimers();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('checkerAnswered: false at once for plain text and files not loaded; otherwise after a language server answered', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-docs-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), '// header\nexport const answer = 42;\n');
      const { api } = fakeVsCode();
      const asked: Array<{ line: number; character: number }> = [];
      let answers = 0;
      (api as unknown as { askLanguageServers: unknown }).askLanguageServers = async (_doc: unknown, position: { line: number; character: number }) => {
        asked.push(position);
        return ++answers >= 3 ? 1 : 0; // a server that registers its providers a moment late
      };
      const source = new VsCodeDiagnosticsSource(fakeLanguages([]).api, (p) => fakeUri(p), api);
      const docs = source.documents!;
      expect(await docs.checkerAnswered(path.join(dir, 'a.ts'))).toBe(false);
      await docs.load(path.join(dir, 'a.ts'), { show: false });
      expect(await docs.checkerAnswered(path.join(dir, 'a.ts'))).toBe(true);
      expect(asked).toEqual(Array(3).fill({ line: 1, character: 13 })); // at `answer`: TypeScript's hover on `export` or `const` answers nothing
      // An answer at the first word is not one from the loaded project (the syntax server may give it).
      expect(docs.answeredFromProject!(path.join(dir, 'a.ts'))).toBe(false);
      // Asked at a given position (the language tools' name), not the first word.
      expect(await docs.checkerAnswered(path.join(dir, 'a.ts'), { line: 1, character: 13 })).toBe(true);
      expect(asked[3]).toEqual({ line: 1, character: 13 });
      expect(docs.answeredFromProject!(path.join(dir, 'a.ts'))).toBe(true);
      asked.splice(3);
      // A server still loading its project (TypeScript's syntax server answers "(loading...)"): asked
      // again until the project is loaded, at a position or not (a file still loading was taken for one
      // its server had, and its silence for "clean", 1 s after its change).
      let loadingAnswers = 0;
      (api as unknown as { askLanguageServers: unknown }).askLanguageServers = async () => (++loadingAnswers <= 6 ? STILL_LOADING_ANSWER : 1);
      fs.writeFileSync(path.join(dir, 'b.ts'), 'export const b = 1;\n');
      await docs.load(path.join(dir, 'b.ts'), { show: false });
      const started = Date.now();
      expect(await docs.checkerAnswered(path.join(dir, 'b.ts'), { line: 0, character: 13 })).toBe(true);
      expect(loadingAnswers).toBe(7); // past the 1 s a server that answers nothing gets
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      // Once answered from the loaded project, a question at a position is not asked again.
      loadingAnswers = 0;
      expect(await docs.checkerAnswered(path.join(dir, 'a.ts'), { line: 0, character: 3 })).toBe(true);
      expect(loadingAnswers).toBe(0);
      loadingAnswers = 0;
      const unpositioned = Date.now();
      expect(await docs.checkerAnswered(path.join(dir, 'b.ts'))).toBe(true);
      expect(loadingAnswers).toBe(7);
      expect(Date.now() - unpositioned).toBeGreaterThanOrEqual(1400);
      (api as unknown as { askLanguageServers: unknown }).askLanguageServers = async (_doc: unknown, position: { line: number; character: number }) => {
        asked.push(position);
        return ++answers >= 3 ? 1 : 0;
      };
      // Nothing checks plain text: no question is asked, and the answer is immediate.
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello\n');
      await docs.load(path.join(dir, 'notes.txt'), { show: true });
      expect(await docs.checkerAnswered(path.join(dir, 'notes.txt'))).toBe(false);
      expect(asked).toHaveLength(3);
      source.dispose();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('get_diagnostics (tools route) for a folder: the files that use what changed are checked too', () => {
  test('changed lib.ts: its users in the folder are loaded (most relevant first, at most 10) and those beyond are named; users outside the folder are not', async () => {
    const { getDiagnosticsTool } = await import('../../../src/tools/getDiagnostics');
    const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-diag-users-')));
    fs.mkdirSync(path.join(ws, 'src'));
    fs.mkdirSync(path.join(ws, 'other'));
    const lib = path.join(ws, 'src', 'lib.ts');
    const users = Array.from({ length: 12 }, (_, i) => path.join(ws, 'src', `u${String(i).padStart(2, '0')}.ts`));
    const outside = path.join(ws, 'other', 'x.ts');
    for (const f of [lib, ...users, outside]) fs.writeFileSync(f, 'x\n');
    const loads: string[] = [];
    const source = {
      all: () => [{ uri: `file://${users[0]}`, diagnostics: [item(0, "Module './lib' has no exported member 'a'.", 'Error', { source: 'ts', code: '2305' })] }],
      forFile: () => [],
      onDidChange: () => ({ dispose: () => undefined }),
      documents: {
        load: async (p: string) => (loads.push(p), 'opened' as const),
        matchesDisk: async () => true,
        isDirty: () => false,
        lastChange: () => ({}),
        onDidChangeDocument: () => ({ dispose: () => undefined }),
        takeChangedOnDisk: () => [lib],
        checkerAnswered: async () => false,
        releaseCheckTabs: () => undefined,
        dependentsOf: async () => ({ files: [outside, ...users], more: [] }),
      },
    };
    try {
      const tool = getDiagnosticsTool(source, { folders: () => [ws], ripgrepPath: () => undefined });
      const result = (await tool.handle({ path: 'src' }, undefined as never)) as { content: Array<{ text: string }> };
      expect(result.content[0].text).toBe(
        "1 problem (1 error) in 1 file\n[error] src/u00.ts:1 — Module './lib' has no exported member 'a'. (ts 2305)\n" +
          'not checked: 2 more files that use the changed files (at most 10 are checked per answer; ask about a file by its path to check it): src/u10.ts, src/u11.ts',
      );
      expect(loads).toEqual([lib, ...users.slice(0, 10)]);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
