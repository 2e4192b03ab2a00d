/**
 * End to end, several sessions in one window: two real `claude` CLIs (2.1.328) typed into two integrated
 * terminals of real VS Code (code-server 4.139.1) with the packaged extension, a scripted fake model.
 *
 * The inner suite (test/vscode/suites/sessions-claude.test.ts) drives VS Code; this outer test scripts the
 * model, answers the inner suite's questions about the workbench (status bar, keyboard focus,
 * notifications, a key press as the user's keyboard) and checks what reached the model:
 * - both claude stay connected, each session matched to its terminal, the status bar says 2 sessions;
 * - a selection reaches the claude whose terminal is in front, and the other once its terminal comes forward;
 * - the at-mention key (Ctrl+Alt+K, pressed in the editor) fills the prompt of the claude in front only, and
 *   the other's once its terminal is in front;
 * - a review opens without taking focus: Enter typed next goes to claude's permission prompt in the terminal;
 * - each review belongs to the claude that asked; closing one claude closes only its review; closing a
 *   review tab rejects with a notification naming the file; reviews wait in the status bar;
 * - `background` placement opens no tab, and the reviews command reopens it;
 * - Launch reuses the terminal running claude; a new launch with the tools enabled gets `--mcp-config`;
 * - `beside` keeps clear of the active group and of a terminal in the editor area (a write_file review).
 *
 * Needs test/setup/install-real-clients.sh. Run:
 *   npx jest --selectProjects real --runInBand -- test/real/vscode-sessions.test.ts
 * NC_SESSIONS_DEBUG=1 prints the inner results and the extension's log.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, saveScreenshot, type SuiteResult } from './harness/codeServer';
import { startFakeModel, type FakeModel, type MessagesRequest, type Reply, freshMessages, textOf } from './harness/fakeModel';
import { prepareIntegratedClaude, statusBarEntries } from './harness/integratedClaude';
import { ensureVsix } from './harness/vsix';
import { notificationTexts } from './harness/workbenchUi';
import { expectInnerPassed as expectInner, type InnerResult } from './harness/innerResults';

const FILES = ['focus', 'routea', 'routeb', 'bg'];

describe('vscode-sessions', () => {
  let model: FakeModel;
  let workspace = '';
  let suite: SuiteResult | undefined;
  let suiteError: Error | undefined;
  let results: Record<string, InnerResult> = {};
  const prompts: Array<{ prompt: string; fresh: string }> = [];
  const screenshots: string[] = [];
  const proposed = new Set<string>();

  const router = (request: MessagesRequest): Reply => {
    const fresh = freshMessages(request);
    const typed = fresh
      .filter((m) => m.role === 'user')
      .map(textOf)
      .join('\n');
    const afterTool = fresh.some((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result'));
    const sel = /prompt ((?:sel|mention)-\w+)/.exec(typed);
    if (sel) {
      prompts.push({ prompt: sel[1], fresh: JSON.stringify(fresh) });
      return { text: `answered ${sel[1]}` };
    }
    // The first request naming edit:<name> proposes the Edit; any later one (the tool's result, which
    // after a rejection comes in the same message as the next prompt) ends that turn.
    const edit = /edit:(\w+)/.exec(typed) ?? (afterTool ? [...JSON.stringify(request.messages).matchAll(/edit:(\w+)/g)].pop() : null);
    if (!edit) return { text: 'ok' };
    if (proposed.has(edit[1])) return { text: `done ${edit[1]}` };
    proposed.add(edit[1]);
    return { toolUse: { name: 'Edit', input: { file_path: path.join(workspace, `${edit[1]}.txt`), old_string: 'one', new_string: 'two' } } };
  };

  const expectInnerPassed = (key: string) =>
    expectInner(key, results[key], () => ({ suiteError: suiteError?.message.slice(0, 3000), innerLogTail: suite?.log.slice(-60), final: results._final }));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    model = await startFakeModel();
    model.respond(...Array.from({ length: 80 }, () => router));
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-sessions-ws-')));
    fs.writeFileSync(path.join(workspace, 'sel.ts'), 'const line1 = 1;\nconst line2 = 2;\nconst line3 = 3;\nconst line4 = 4;\n');
    for (const f of FILES) fs.writeFileSync(path.join(workspace, `${f}.txt`), 'one\n');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-sessions-'));
    const logDir = path.join(root, 'logs');
    fs.mkdirSync(logDir);
    const specPath = path.join(root, 'spec.json');
    const resultsPath = path.join(root, 'results.json');
    const ic = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_SESSIONS_SPEC: specPath } });
    fs.writeFileSync(specPath, JSON.stringify({ workspace, results: resultsPath, logDir }));
    let extensionLog: string;
    ({
      suite,
      suiteError,
      results: results = {},
      extensionLog,
    } = await runClaudeInnerSuite<Record<string, InnerResult>>({
      ic,
      model,
      server: {
        workspace,
        vsixPaths: [vsix],
        userSettings: { 'git.enabled': false, 'files.autoSave': 'off', 'workbench.startupEditor': 'none' },
      },
      run: {
        files: ['sessions-claude'],
        timeout: 120_000,
        timeoutMs: 480_000,
        probeDir: ic.probeDir,
        probes: {
          statusbar: (page) => statusBarEntries(page),
          // Where the keyboard is: inside a terminal, or an editor.
          focus: async (page) => {
            const shot = await saveScreenshot(page, 'vscode-sessions-review-focus');
            if (shot) screenshots.push(shot);
            return page.evaluate(`(() => {
              const el = document.activeElement;
              return { tag: el && el.tagName, inTerminal: !!(el && el.closest('.terminal-wrapper, .xterm')), inEditor: !!(el && el.closest('.monaco-editor')) };
            })()`);
          },
          press: async (page, key) => {
            await page.keyboard.press(String(key));
            return true;
          },
          // A key pressed in the text editor, as the user's keyboard would: first waits until the editor has
          // the keyboard (showTextDocument moves it there; the page may lag behind the extension host).
          pressInEditor: async (page, key) => {
            const where = () =>
              page.evaluate<{ inEditor: boolean }>(`(() => {
              const el = document.activeElement;
              return { tag: el && el.tagName, inEditor: !!(el && el.closest('.monaco-editor')), inTerminal: !!(el && el.closest('.terminal-wrapper, .xterm')) };
            })()`);
            const deadline = Date.now() + 15_000;
            let before = await where();
            while (!before.inEditor && Date.now() < deadline) {
              await new Promise((r) => setTimeout(r, 200));
              before = await where();
            }
            if (!before.inEditor) throw new Error(`the editor never had the keyboard: ${JSON.stringify(before)}`);
            await page.keyboard.press(String(key));
            return { before };
          },
          notifications: async (page) => {
            const shot = await saveScreenshot(page, 'vscode-sessions-notifications');
            if (shot) screenshots.push(shot);
            // Toasts and the notification center (the inner test opens it: toasts may be hidden).
            return notificationTexts(page);
          },
        },
        name: 'vscode-sessions',
      },
      resultsPath,
    }));
    if (process.env.NC_SESSIONS_DEBUG) {
      console.log(
        JSON.stringify({ exitCode: suite?.exitCode, results, prompts: prompts.map((p) => ({ ...p, fresh: p.fresh.slice(0, 2000) })), screenshots }, null, 2),
      );
      console.log(`--- Native Claude.log\n${extensionLog.slice(-15000)}`);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }, 600_000);

  afterAll(() => {
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  it('two claude in two terminals both stay connected; each session is matched to its terminal; the status bar says 2 sessions', () => {
    const d = expectInnerPassed('connect');
    expect((d.sessions as Array<{ terminalName: string }>).map((s) => s.terminalName)).toEqual(['claude-a', 'claude-b']);
  });

  it('a selection goes to the claude in front only; the other gets it when its terminal comes forward', () => {
    expectInnerPassed('selection');
    const carried = (name: string) => {
      const p = prompts.find((x) => x.prompt === name);
      expect(p).toBeDefined();
      return /selected the lines 2 to 3 from [^"]*\/sel\.ts/.test(p!.fresh);
    };
    expect({ b: carried('sel-b'), a: carried('sel-a'), aAfterFront: carried('sel-a2') }).toEqual({ b: true, a: false, aAfterFront: true });
  });

  it('Ctrl+Alt+K in the editor puts @sel.ts#L2-3 into the prompt of the claude in front only; with the other in front, the next mention goes there', () => {
    const d = expectInnerPassed('mention');
    expect(d.first).toMatchObject({ focusBefore: { inEditor: true }, otherShows: false });
    expect(d.second).toMatchObject({ focusBefore: { inEditor: true }, otherShows: false });
    // What each claude sent the model when its prompt was submitted: the text typed in its prompt, with the
    // mention where the key put it (the CLI also attached those lines, read from the file).
    const typed = (name: string) => {
      const p = prompts.find((x) => x.prompt === name);
      expect(p).toBeDefined();
      return new RegExp(`"text":"([^"]*prompt ${name})"`).exec(p!.fresh)?.[1];
    };
    expect({ b: typed('mention-b'), a: typed('mention-a'), a2: typed('mention-a2'), b2: typed('mention-b2') }).toEqual({
      b: '@sel.ts#L2-3 prompt mention-b',
      a: 'prompt mention-a',
      a2: '@sel.ts#L3-4 prompt mention-a2',
      b2: 'prompt mention-b2',
    });
    expect(prompts.find((x) => x.prompt === 'mention-b')!.fresh).toContain('2\\tconst line2 = 2;\\n3\\tconst line3 = 3;');
    expect(prompts.find((x) => x.prompt === 'mention-a2')!.fresh).toContain('3\\tconst line3 = 3;\\n4\\tconst line4 = 4;');
  });

  it('a review opens without taking the keyboard: Enter typed next answers claude in its terminal, which writes the file', () => {
    const d = expectInnerPassed('review-focus');
    expect(d.focus).toMatchObject({ inTerminal: true, inEditor: false });
  });

  it('each review belongs to its claude; closing one claude withdraws only its review; closing a tab rejects and names the file', () => {
    const d = expectInnerPassed('review-routing');
    expect(d.notifications).toEqual(expect.arrayContaining([expect.stringMatching(/Rejected Claude's change to routea\.txt/)]));
    expect(fs.readFileSync(path.join(workspace, 'routeb.txt'), 'utf8')).toBe('one\n');
  });

  it('background placement: no tab; a notification and the reviews command open it', () => {
    expectInnerPassed('background');
    expect(fs.readFileSync(path.join(workspace, 'bg.txt'), 'utf8')).toBe('two\n');
  });

  it('Launch claude reuses the terminal running claude; a new launch with the tools enabled gets them through --mcp-config', () => {
    expectInnerPassed('launch');
  });

  it('beside: a review opens in a group that is neither the active one nor the one showing a terminal', () => {
    expectInnerPassed('beside-terminal');
  });
});
