/**
 * DiffReviewHost against a small stand-in of the `vscode` API: what it hands VS Code (the diff's URIs,
 * docs/vscode-traps.md, trap 8), which tabs it closes (11), which tabs it counts as its own (9), and that
 * dispose() settles every pending review once (10), and that review tabs no pending review owns (left
 * by an earlier extension host) are closed with a word on where to answer (29). The same flows run in
 * real VS Code in test/vscode/suites/tools-review*.test.ts and test/real/vscode-review-window-life.test.ts.
 */
import { openDiffTool } from '../../../src/tools/openDiff';
import type { ReviewDecision } from '../../../src/host/review';

type Listener<T> = (value: T) => void;
class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = '',
    readonly fragment = '',
  ) {}
  static from(c: { scheme: string; path: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.path, c.query, c.fragment);
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}:${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
  }
}
class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}
class TabInputNotebookDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
    readonly notebookType: string,
  ) {}
}
class TabInputText {
  constructor(readonly uri: Uri) {}
}
class TabInputTerminal {}
interface Tab {
  label: string;
  input: unknown;
}

/** The fake window: one editor group, the commands run, the file systems registered. */
const fake = {
  tabs: [] as Tab[],
  executed: [] as unknown[][],
  closedByUs: [] as Tab[],
  providers: new Map<string, { readFile(uri: Uri): Uint8Array }>(),
  /** What `vscode.diff` opens: a text diff, or (as VS Code does for an .ipynb without `override`) a notebook diff. */
  openAs: 'text' as 'text' | 'notebook',
  tabsChanged: new EventEmitter<{ opened: Tab[]; closed: Tab[]; changed: Tab[] }>(),
  warnings: [] as string[],
};
const disposable = { dispose: () => undefined };

jest.mock(
  'vscode',
  () => ({
    EventEmitter,
    Disposable: { from: (...items: Array<{ dispose(): unknown }>) => ({ dispose: () => items.forEach((d) => d.dispose()) }) },
    languages: { registerCodeLensProvider: () => disposable },
    Uri,
    TabInputTextDiff,
    TabInputNotebookDiff,
    TabInputText,
    TabInputTerminal,
    ViewColumn: { Active: -1, Beside: -2 },
    TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
    FileType: { File: 1, Directory: 2 },
    FileChangeType: { Changed: 1 },
    FileSystemError: { FileNotFound: () => new Error('not found'), NoPermissions: (m: string) => new Error(m) },
    workspace: {
      registerFileSystemProvider: (scheme: string, provider: { readFile(uri: Uri): Uint8Array }) => {
        fake.providers.set(scheme, provider);
        return disposable;
      },
      onWillSaveTextDocument: () => disposable,
      onDidSaveTextDocument: () => disposable,
      onDidChangeTextDocument: () => disposable,
      textDocuments: [],
      openTextDocument: async (uri: Uri) => ({
        uri,
        isDirty: false,
        getText: () => Buffer.from(fake.providers.get(uri.scheme)!.readFile(uri)).toString('utf8'),
      }),
    },
    commands: {
      registerCommand: () => disposable,
      executeCommand: async (id: string, ...args: unknown[]) => {
        fake.executed.push([id, ...args]);
        if (id !== 'vscode.diff') return;
        const [original, modified, label] = args as [Uri, Uri, string];
        const input = fake.openAs === 'text' ? new TabInputTextDiff(original, modified) : new TabInputNotebookDiff(original, modified, 'jupyter-notebook');
        const tab = { label, input };
        fake.tabs.push(tab);
        fake.tabsChanged.fire({ opened: [tab], closed: [], changed: [] });
      },
    },
    window: {
      tabGroups: {
        get all() {
          return [{ tabs: fake.tabs, viewColumn: 1, activeTab: fake.tabs[fake.tabs.length - 1] }];
        },
        get activeTabGroup() {
          return this.all[0];
        },
        onDidChangeTabs: fake.tabsChanged.event,
        close: async (tabs: Tab | Tab[]) => {
          const list = Array.isArray(tabs) ? tabs : [tabs];
          fake.closedByUs.push(...list);
          fake.tabs = fake.tabs.filter((t) => !list.includes(t));
          fake.tabsChanged.fire({ opened: [], closed: list, changed: [] });
          return true;
        },
      },
      onDidChangeActiveTextEditor: () => disposable,
      activeTextEditor: undefined,
      showWarningMessage: async (message: string) => {
        fake.warnings.push(message);
        return undefined;
      },
      showInformationMessage: async () => undefined,
      showTextDocument: async () => undefined,
    },
  }),
  { virtual: true },
);

// After the mock: the module under test imports 'vscode'.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DiffReviewHost } = require('../../../src/vscode/review/diffReviewHost') as typeof import('../../../src/vscode/review/diffReviewHost');

const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined } as never;
const request = (name: string, connectionId = 1, proposedText = 'new\n') => ({
  filePath: `/ws/${name}`,
  originalText: 'old\n',
  proposedText,
  title: `✻ ${name}`,
  connectionId,
});
const diffCalls = () => fake.executed.filter((c) => c[0] === 'vscode.diff');
/** Waits until `condition` holds (the fake's events and the host's awaits take a few turns; under load, more). */
const until = async (condition: () => unknown, what = 'the condition', ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
const ourTabs = () => fake.tabs.filter((t) => t.label.startsWith('✻'));
/** Lets every reaction that needs no timer run (the fake fires its events at once; settling a review is promise work). */
const drained = () => new Promise((r) => setImmediate(r));

describe('DiffReviewHost', () => {
  let host: InstanceType<typeof DiffReviewHost>;
  beforeEach(() => {
    fake.tabs = [];
    fake.executed = [];
    fake.closedByUs = [];
    fake.warnings = [];
    fake.openAs = 'text';
    host = new DiffReviewHost(log);
  });
  afterEach(() => host.dispose());

  test("trap 8: a 2 MB proposal is served from the in-memory store; the diff's URIs carry no content, no query, no fragment", async () => {
    const big = 'CONTENT-MARKER '.repeat(140_000);
    void host.review(request('big.txt', 1, big));
    await until(() => diffCalls().length === 1, 'the diff');
    const [[, original, proposal, title, options]] = diffCalls() as [[string, Uri, Uri, string, Record<string, unknown>]];
    for (const uri of [original, proposal]) {
      expect(uri.query).toBe('');
      expect(uri.fragment).toBe('');
      expect(uri.path).toMatch(/^\/[0-9a-f]{12}\/big\.txt$/);
      expect(uri.toString().length).toBeLessThan(80);
      expect(uri.toString()).not.toContain('CONTENT-MARKER');
    }
    expect(title).toBe('✻ big.txt');
    expect(JSON.stringify(options)).not.toContain('CONTENT-MARKER');
    // Stored as UTF-8 with a BOM: VS Code decodes them as UTF-8 whatever `files.encoding` says.
    expect(Buffer.from(fake.providers.get(proposal.scheme)!.readFile(proposal)).toString('utf8')).toBe(`\ufeff${big}`);
    expect(Buffer.from(fake.providers.get(original.scheme)!.readFile(original)).toString('utf8')).toBe('\ufeffold\n');
  });

  test("trap 9: the diff is asked for as a text diff whatever the file name (override: VS Code's default text editor)", async () => {
    void host.review(request('nb.ipynb'));
    await until(() => diffCalls().length === 1, 'the diff');
    expect(diffCalls()[0][4]).toMatchObject({ override: true, preserveFocus: true });
  });

  test('trap 9: should a notebook diff open anyway, it is still our tab: the review waits, and closing it rejects', async () => {
    fake.openAs = 'notebook';
    const decision = host.review(request('nb.ipynb'));
    await until(() => host.pendingReviews()[0]?.shown, 'the review shown');
    // Its tab was recognised (`shown` is set once the tab is seen; unseen, the review fails after 5 s), the
    // review still waits, and closing the tab rejects it.
    expect(host.pendingReviews()).toMatchObject([{ shown: true }]);
    await (await import('vscode')).window.tabGroups.close(fake.tabs[0] as never);
    await expect(decision).resolves.toEqual({ kind: 'rejected', reason: 'tab-closed' });
  });

  test("trap 11: closeAll closes this extension's review tabs only, never the user's own diffs or editors", async () => {
    const userDiff = { label: 'my diff', input: new TabInputTextDiff(Uri.file('/ws/a'), Uri.file('/ws/b')) };
    const gitDiff = { label: 'x (Working Tree)', input: new TabInputTextDiff(Uri.from({ scheme: 'git', path: '/ws/x' }), Uri.file('/ws/x')) };
    const userNotebookDiff = { label: 'nb diff', input: new TabInputNotebookDiff(Uri.file('/ws/a.ipynb'), Uri.file('/ws/b.ipynb'), 'jupyter-notebook') };
    const terminal = { label: 'bash', input: new TabInputTerminal() };
    fake.tabs.push(userDiff, gitDiff, userNotebookDiff, terminal);
    const first = host.review(request('one.txt', 1));
    const second = host.review(request('two.txt', 2));
    await until(() => ourTabs().length === 2, 'both review tabs');
    expect(await host.closeAll(1)).toBe(1);
    await expect(first).resolves.toEqual({ kind: 'withdrawn', reason: 'close-tab' });
    expect(fake.closedByUs.map((t) => t.label)).toEqual(['✻ one.txt']);
    expect(fake.tabs.map((t) => t.label)).toEqual(['my diff', 'x (Working Tree)', 'nb diff', 'bash', '✻ two.txt']);
    expect(await host.closeAll()).toBe(1);
    await expect(second).resolves.toEqual({ kind: 'withdrawn', reason: 'close-tab' });
    expect(fake.tabs.map((t) => t.label)).toEqual(['my diff', 'x (Working Tree)', 'nb diff', 'bash']);
  });

  test('trap 10: dispose() settles every pending review once, as a rejection; later closes change nothing, and openDiff answers once', async () => {
    const tool = openDiffTool(host);
    const context = { connectionId: 1, signal: new AbortController().signal };
    const answers: unknown[] = [];
    const cli = tool
      .handle({ old_file_path: '/nonexistent/a.txt', new_file_path: '/nonexistent/a.txt', new_file_contents: 'a\n', tab_name: '✻ a.txt' }, context)
      .then((r) => answers.push(r));
    const decisions: ReviewDecision[] = [];
    const other = host.review(request('b.txt', 2)).then((d) => decisions.push(d));
    // Both diffs open before the window goes (a diff opening after the test would leak into the next one).
    await until(() => host.pendingCount === 2 && ourTabs().length === 2, 'both reviews and their tabs');
    host.dispose();
    await Promise.all([cli, other]);
    expect(decisions).toEqual([{ kind: 'rejected', reason: 'window-closed' }]);
    expect(answers).toEqual([{ content: [{ type: 'text', text: 'DIFF_REJECTED' }] }]);
    expect(host.pendingCount).toBe(0);
    // Every other way a review ends is now a no-op.
    expect(await host.closeByTitle('✻ a.txt')).toBe(false);
    host.withdrawForConnection(1);
    await (await import('vscode')).window.tabGroups.close([...fake.tabs] as never);
    await drained();
    expect(decisions).toHaveLength(1);
    expect(answers).toHaveLength(1);
  });

  test("trap 29: review tabs of an earlier extension host (restored after a reload) are closed at start, with a word naming the file and claude's terminal; other tabs stay", async () => {
    const ours = (scheme: string, p: string) => Uri.from({ scheme, path: p });
    const restored = {
      label: '✻ [Claude Code] hello.js (d56bcd) ⧉',
      input: new TabInputTextDiff(ours('native-claude-original', '/0123456789ab/hello.js'), ours('native-claude-proposal', '/0123456789ab/hello.js')),
    };
    const rightSideAlone = { label: 'b.ts', input: new TabInputText(ours('native-claude-proposal', '/ba9876543210/b.ts')) };
    const userDiff = { label: 'my diff', input: new TabInputTextDiff(Uri.file('/ws/a'), Uri.file('/ws/b')) };
    const userFile = { label: 'hello.js', input: new TabInputText(Uri.file('/ws/hello.js')) };
    fake.tabs.push(userDiff, restored, userFile, rightSideAlone);
    const started = new DiffReviewHost(log);
    try {
      expect(fake.closedByUs.map((t) => t.label)).toEqual([restored.label, 'b.ts']);
      expect(fake.tabs.map((t) => t.label)).toEqual(['my diff', 'hello.js']);
      expect(fake.warnings).toEqual([
        "Claude's reviews of hello.js, b.ts were interrupted by a window reload or an extension restart, so their tabs were closed (nothing was written). If claude still asks about this change, answer it in claude's terminal.",
      ]);
    } finally {
      started.dispose();
    }
  });

  test("trap 29: a tab of an ended review opened again (Reopen Closed Editor) is closed; a pending review's own tab is not", async () => {
    const pending = host.review(request('live.txt'));
    await until(() => ourTabs().length === 1, "the live review's tab");
    expect(fake.closedByUs).toEqual([]);
    const ended = {
      label: '✻ gone.txt',
      input: new TabInputTextDiff(
        Uri.from({ scheme: 'native-claude-original', path: '/00000000aaaa/gone.txt' }),
        Uri.from({ scheme: 'native-claude-proposal', path: '/00000000aaaa/gone.txt' }),
      ),
    };
    fake.tabs.push(ended);
    fake.tabsChanged.fire({ opened: [ended], closed: [], changed: [] });
    await until(() => fake.closedByUs.length === 1 && fake.warnings.length === 1, 'the ended tab closed, with its word');
    expect(fake.closedByUs.map((t) => t.label)).toEqual(['✻ gone.txt']);
    expect(fake.tabs.map((t) => t.label)).toEqual(['✻ live.txt']);
    expect(fake.warnings).toEqual([expect.stringMatching(/gone\.txt[\s\S]*answer it in claude's terminal\.$/)]);
    await drained();
    expect(host.pendingReviews().map((r) => r.title)).toEqual(['✻ live.txt']); // the live review still waits
    void pending;
  });

  test('the extension stopping (deactivate): after stop(), dispose() answers no review while the server still has its connections; each settles when its connection closes', async () => {
    const tool = openDiffTool(host);
    const answers: unknown[] = [];
    const cli = tool
      .handle(
        { old_file_path: '/nonexistent/a.txt', new_file_path: '/nonexistent/a.txt', new_file_contents: 'a\n', tab_name: '✻ a.txt' },
        { connectionId: 1, signal: new AbortController().signal },
      )
      .then((r) => answers.push(r));
    const decisions: ReviewDecision[] = [];
    const other = host.review(request('b.txt', 2)).then((d) => decisions.push(d));
    await until(() => host.pendingCount === 2 && ourTabs().length === 2, 'both reviews and their tabs');
    host.stop();
    host.dispose();
    await drained();
    // No DIFF_REJECTED for claude to read: it keeps its own prompt.
    expect({ answers, decisions, pending: host.pendingCount }).toEqual({ answers: [], decisions: [], pending: 2 });
    // The server closing the connections settles them (an answer then has no socket to go to).
    host.withdrawForConnection(1);
    host.withdrawForConnection(2);
    await Promise.all([cli, other]);
    expect(decisions).toEqual([{ kind: 'withdrawn', reason: 'disconnected' }]);
    expect(host.pendingCount).toBe(0);
    // Nothing asked of the window meanwhile: it no longer takes requests.
    expect(fake.closedByUs).toEqual([]);
  });
});
