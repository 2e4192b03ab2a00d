/**
 * The window's own life during a review, in real VS Code (code-server 4.139.1) with the packaged extension
 * and the real `claude` CLI (2.1.328) typed into the integrated terminal, driven only through the workbench
 * as a user would (Playwright keys and clicks; no extension test runner: a reload or an extension-host
 * restart would end it).
 *
 * Each test, in a fresh code-server and window: claude proposes an Edit of hello.js, its review diff opens;
 * then the window reloads (Developer: Reload Window) or the extension host restarts (its process ends and
 * VS Code starts another, see restartExtensionHost below) while claude waits. Afterwards:
 * - no review tab is left (VS Code restores a diff tab whose right side lived in the extension's memory;
 *   it showed "The editor could not be opened due to an unexpected error", with accept/reject buttons);
 * - a notification names the file and says to answer in claude's terminal;
 * - claude has reconnected and still shows its own prompt, and answering there works: Yes writes the file,
 *   Esc leaves it byte-identical;
 * - with the user's unsaved typing in hello.js (the review is of the merge), the reload gives the typing
 *   back (VS Code's hot exit: the tab dirty, the line in the editor) and the disk stays as it was.
 *
 * Run (under the machine's real-test lock):
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-review-window-life.test.ts
 * Ten in a row: bash test/setup/repeat-real-test.sh 10 test/real/vscode-review-window-life.test.ts
 * NC_LIFE_DEBUG=1 prints what each step saw; NATIVE_CLAUDE_VSIX=<file> skips packaging.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import {
  codeServerAvailable,
  findFiles,
  openWorkbench,
  processTree,
  saveScreenshot,
  startCodeServer,
  type CodeServer,
  type Workbench,
} from './harness/codeServer';
import { startFakeModel, type FakeModel, type MessagesRequest, type Reply, freshMessages, textOf } from './harness/fakeModel';
import { prepareIntegratedClaude, type IntegratedClaude } from './harness/integratedClaude';
import { ensureVsix } from './harness/vsix';
import { editorErrors, editorTabLabels, notificationTexts, openFileByName, ourStatus, reloadWindow, runCommand, until } from './harness/workbenchUi';
import { screenOf, tmux, waitForScreenOf } from '../support/tmuxScreen';

const ORIGINAL = 'console.log("hello");\n';
const PROPOSED = 'console.log("hello, world");\n';
/** With the user's typing: lines between claude's change (line 1) and the typing (the end) keep them apart. */
const LONGER = 'console.log("hello");\nconst a = 1;\nconst b = 2;\n';
const REVIEW_TAB = /\[Claude Code\] hello\.js/;
const CLI_PROMPT = /Do you want to make this edit to hello\.js\?/;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const screen = (socket: string) => screenOf(socket);
const waitForScreen = (socket: string, pattern: RegExp | string, timeoutMs: number) => waitForScreenOf(socket, pattern, timeoutMs, { intervalMs: 200 });

/** Everything of a test window that a failure message needs. */
interface Seen {
  tabsBefore?: string[];
  cliBefore?: string;
  statusAfter?: string;
  tabsAfter?: string[];
  errorsAfter?: string[];
  notificationsAfter?: string[];
  cliAfter?: string;
  cliAnswered?: string;
  file?: string;
  /** With unsaved typing: the dirty tabs and the editor's text before and after the interruption. */
  dirtyBefore?: string[];
  dirtyAfter?: string[];
  editorAfter?: string;
}

const TYPED_LINE = '// typed, not saved';
const dirtyTabs = (page: Page) =>
  page.evaluate<string[]>(
    `Array.from(document.querySelectorAll('.editor .tabs-container .tab.dirty')).map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim())`,
  );

describe('vscode-review-window-life', () => {
  let model: FakeModel;
  let vsix = '';
  const toolUseIds: string[] = [];

  // Any prompt gets the Edit of hello.js in the folder the prompt names; its tool result gets "done".
  const router = (request: MessagesRequest): Reply => {
    const fresh = freshMessages(request);
    const prompt = fresh
      .filter((m) => m.role === 'user')
      .map(textOf)
      .join('\n');
    const folder = /edit (\S+)\/hello\.js/.exec(prompt)?.[1];
    if (!folder) return { text: 'done' };
    const id = `toolu_nc_life_${toolUseIds.length}`;
    toolUseIds.push(id);
    return { toolUse: { id, name: 'Edit', input: { file_path: path.join(folder, 'hello.js'), old_string: '"hello"', new_string: '"hello, world"' } } };
  };

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    vsix = await ensureVsix();
    model = await startFakeModel();
    model.respond(...Array.from({ length: 40 }, () => router));
  }, 600_000);

  afterAll(async () => {
    await model?.close();
  });

  let server: CodeServer | undefined;
  /**
   * The window's extension host ends and VS Code starts a new one. code-server has no "Developer: Restart
   * Extension Host" (in a remote window VS Code reloads the window instead); what restarts the extension
   * host there is its process ending: VS Code then says "The remote extension host terminated unexpectedly.
   * Restarting..." and starts a new one, the window and its tabs staying as they were.
   */
  async function restartExtensionHost(): Promise<void> {
    const hosts = processTree(server!.pid).filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--type=extensionHost');
      } catch {
        return false;
      }
    });
    if (hosts.length !== 1) throw new Error(`expected one extension host process under code-server, found ${hosts.length}`);
    process.kill(hosts[0], 'SIGKILL');
  }

  /**
   * A fresh window with claude in its terminal and claude's review of hello.js open; `interrupt` happens to
   * the window; then claude is answered in its terminal with `answer`.
   */
  async function reviewInterrupted(
    name: string,
    interrupt: (page: Page) => Promise<void>,
    answer: 'Enter' | 'Escape',
    opts: { typed?: boolean } = {},
  ): Promise<Seen> {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `nc-review-life-${name}-`)));
    const folder = path.join(root, 'ws');
    fs.mkdirSync(folder);
    const file = path.join(folder, 'hello.js');
    fs.writeFileSync(file, opts.typed ? LONGER : ORIGINAL);
    const ic: IntegratedClaude = prepareIntegratedClaude({ workspace: folder, modelUrl: model.url });
    let wb: Workbench | undefined;
    const seen: Seen = {};
    const debug = (what: string) => process.env.NC_LIFE_DEBUG && console.log(`[${name}] ${what}: ${JSON.stringify(seen, null, 1)}`);
    try {
      server = await startCodeServer({
        workspace: folder,
        vsixPaths: [vsix],
        env: ic.env,
        smokeTestDriver: false,
        userSettings: { 'git.enabled': false, 'files.autoSave': 'off' },
      });
      wb = await openWorkbench(server, folder);
      const page = wb.page;
      try {
        await until('Native Claude to listen', async () => /^Claude :\d+$/.test((await ourStatus(page)) ?? ''), 90_000);
        // claude in a private tmux server started from the integrated terminal: it gets the terminal's
        // environment (the port from the extension), and the terminal survives the reload as VS Code's do.
        await runCommand(page, 'Terminal: Create New Terminal');
        await page.locator('.terminal-wrapper.active .xterm-helper-textarea, .terminal .xterm-helper-textarea').first().waitFor({ timeout: 30_000 });
        await until(
          'claude to connect from the terminal',
          async () => {
            if ((await ourStatus(page)) === 'Claude: 1 session') return true;
            if (
              !(await screen(ic.tmuxSocket).then(
                () => true,
                () => false,
              ))
            ) {
              await page.keyboard.type(
                `export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L "$NC_TMUX_SOCKET" -f /dev/null new-session -d -s main -x 200 -y 50 claude`,
              );
              await page.keyboard.press('Enter');
            }
            return false;
          },
          90_000,
          1000,
        );
        await waitForScreen(ic.tmuxSocket, /❯/, 30_000);
        // The CLI registers its handlers shortly after connecting.
        await sleep(1500);
        if (opts.typed) {
          // The user opens hello.js and types a line at its end, not saved: claude's review is of the merge.
          await openFileByName(page, 'hello.js');
          await until('hello.js in the editor', async () => ((await editorTabLabels(page)).some((t) => /^hello\.js/.test(t)) ? true : undefined), 15_000);
          await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
          await page.keyboard.press('Control+End');
          await page.keyboard.type(TYPED_LINE);
          seen.dirtyBefore = await until(
            'hello.js dirty',
            async () => {
              const dirty = await dirtyTabs(page);
              return dirty.some((t) => /hello\.js/.test(t)) ? dirty : undefined;
            },
            10_000,
          );
        }
        const prompt = `edit ${folder}/hello.js`;
        await tmux(ic.tmuxSocket, 'send-keys', '-t', 'main', '-l', '--', prompt);
        await waitForScreen(ic.tmuxSocket, new RegExp(prompt.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), 5_000);
        await sleep(200);
        await tmux(ic.tmuxSocket, 'send-keys', '-t', 'main', 'Enter');
        seen.tabsBefore = await until(
          opts.typed ? 'the review tab (of the merge)' : 'the review tab',
          async () => {
            const tabs = await editorTabLabels(page);
            return tabs.some((t) => REVIEW_TAB.test(t)) ? tabs : undefined;
          },
          60_000,
        );
        seen.cliBefore = await waitForScreen(ic.tmuxSocket, CLI_PROMPT, 15_000);
        // The diff has settled (as a user would look at it before anything happens to the window).
        await sleep(1000);

        await interrupt(page);

        // The extension is back and claude has reconnected to it (same port and token).
        seen.statusAfter = await until(
          'claude to reconnect',
          async () => {
            const s = await ourStatus(page);
            return s === 'Claude: 1 session' ? s : undefined;
          },
          90_000,
        );
        seen.notificationsAfter = await until(
          'a notification about the interrupted review',
          async () => {
            const texts = await notificationTexts(page);
            return texts.some((t) => /hello\.js/.test(t)) ? texts : undefined;
          },
          30_000,
        ).catch(() => notificationTexts(page));
        // Time for a restored tab to be resolved (and show its error) by the workbench.
        await sleep(2000);
        seen.tabsAfter = await editorTabLabels(page);
        seen.errorsAfter = await editorErrors(page);
        seen.cliAfter = await screen(ic.tmuxSocket);
        if (opts.typed) {
          // VS Code's hot exit gives the typing back: the tab dirty, the line in the editor.
          seen.dirtyAfter = await until(
            'hello.js restored dirty',
            async () => {
              const dirty = await dirtyTabs(page);
              return dirty.some((t) => /hello\.js/.test(t)) ? dirty : undefined;
            },
            30_000,
          ).catch(() => dirtyTabs(page));
          seen.editorAfter = await page
            .locator('.editor-instance .monaco-editor .view-lines')
            .first()
            .innerText()
            .catch((e: Error) => e.message);
        }
        debug('after the interruption');

        // claude's own prompt still answers.
        await tmux(ic.tmuxSocket, 'send-keys', '-t', 'main', answer);
        seen.cliAnswered = await until(
          'claude to take the answer',
          async () => {
            const s = await screen(ic.tmuxSocket);
            if (CLI_PROMPT.test(s)) {
              await tmux(ic.tmuxSocket, 'send-keys', '-t', 'main', answer);
              return undefined;
            }
            return answer === 'Enter' ? (/done/.test(s) ? s : undefined) : s;
          },
          30_000,
          1500,
        );
        if (answer === 'Escape') await sleep(1000);
        seen.file = fs.readFileSync(file, 'utf8');
        debug('answered');
        return seen;
      } catch (error) {
        const shot = await saveScreenshot(page, `review-life-${name}-failed`);
        const logs = findFiles(path.join(server.userDataDir, 'logs'), /Native Claude\.log$/).map((f) => fs.readFileSync(f, 'utf8').slice(-4000));
        (error as Error).message += `\nseen so far: ${JSON.stringify(seen, null, 1)}\nscreenshot: ${shot}\nNative Claude's logs:\n${logs.join('\n---\n')}`;
        throw error;
      }
    } finally {
      await wb?.close();
      await ic.killTmux();
      await server?.stop();
      server = undefined;
      await ic.cleanup();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }

  const noBrokenReviewTab = (seen: Seen) => {
    expect({ tabs: seen.tabsBefore?.filter((t) => REVIEW_TAB.test(t)).length, cli: CLI_PROMPT.test(seen.cliBefore ?? '') }).toEqual({ tabs: 1, cli: true });
    expect(seen.statusAfter).toBe('Claude: 1 session');
    // No review tab is left, broken or not, and no editor shows an error. (Nor did a new review open:
    // the reconnected claude does not send its openDiff again.)
    expect({ tabs: seen.tabsAfter?.filter((t) => REVIEW_TAB.test(t)), errors: seen.errorsAfter }).toEqual({ tabs: [], errors: [] });
    // Where to answer, said once.
    expect(seen.notificationsAfter?.filter((t) => /hello\.js/.test(t))).toEqual([expect.stringMatching(/hello\.js[\s\S]*claude's terminal/)]);
    // claude still waits, with its own prompt.
    expect(seen.cliAfter).toMatch(CLI_PROMPT);
  };

  it("Reload Window while claude waits on a review: the restored review tab is closed with a word on where to answer; Yes in claude's terminal writes the file", async () => {
    const seen = await reviewInterrupted('reload', reloadWindow, 'Enter');
    noBrokenReviewTab(seen);
    expect(seen.file).toBe(PROPOSED);
  }, 300_000);

  it("Reload Window while claude waits on the review of a merge with unsaved typing: the typing comes back (hot exit), dirty; the file on disk untouched; Esc in claude's terminal leaves it so", async () => {
    const seen = await reviewInterrupted('reload-typed', reloadWindow, 'Escape', { typed: true });
    noBrokenReviewTab(seen);
    expect(seen.tabsBefore?.find((t) => REVIEW_TAB.test(t))).toMatch(/your unsaved edits \(merged\)/);
    expect(seen.dirtyAfter).toEqual([expect.stringMatching(/^hello\.js/)]);
    expect(seen.editorAfter?.replace(/\u00a0/g, ' ')).toContain(TYPED_LINE);
    expect(seen.file).toBe(LONGER);
  }, 300_000);

  it("the extension host restarts while claude waits on a review: its tab is closed with a word on where to answer; Esc in claude's terminal leaves the file as it was", async () => {
    const seen = await reviewInterrupted('restart', () => restartExtensionHost(), 'Escape');
    noBrokenReviewTab(seen);
    expect(seen.file).toBe(ORIGINAL);
  }, 300_000);
});
