/**
 * The coexistence choice survives a window reload, in real VS Code (code-server 4.139.1) with the packaged
 * extension next to Anthropic's own extension 1.0.109 (vendor/claude-code.vsix of
 * @anthropic-ai/claude-code@1.0.109), driven only through the workbench as a user would (Playwright keys
 * and clicks, no extension test runner: a reload would restart it).
 *
 * For each answer, in one browser profile and one page:
 * - Native Claude chosen: it is installed (into the running code-server) after Anthropic's extension has
 *   served the workspace, as a user who had that one first would do; Anthropic's extension then holds the
 *   first place among the terminal environment collections, which VS Code keeps across reloads;
 * - the question comes up; the user clicks the answer in the notification;
 * - Developer: Reload Window;
 * - after the reload the question is not asked again (nor any start-up warning about the other extension), and a new terminal (Terminal: Create New Terminal)
 *   carries the port of the extension chosen: Native Claude's (its status bar says `Claude :<port>`, and the
 *   real `claude` typed into that terminal connects to it), or Anthropic's (the port of its lock file, while
 *   Native Claude stays off and writes no lock file).
 *
 * Run (under the machine's real-test lock):
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-coexistence-reload.test.ts
 * NC_COEXIST_DEBUG=1 prints what each step saw; NATIVE_CLAUDE_VSIX=<file> skips packaging.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import {
  codeServerAvailable,
  codeServerEnv,
  findFiles,
  installVsix,
  openWorkbench,
  saveScreenshot,
  startCodeServer,
  type CodeServer,
  type Workbench,
} from './harness/codeServer';
import { startFakeModel, type FakeModel } from './harness/fakeModel';
import { lockFiles, prepareIntegratedClaude, type IntegratedClaude } from './harness/integratedClaude';
import { anthropicVsix } from './harness/anthropicExtension';
import { ensureVsix } from './harness/vsix';
import { notificationTexts, ourStatus, reloadWindow, runCommand, until } from './harness/workbenchUi';

const QUESTION = /Anthropic's Claude Code extension is also installed/;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Clicks `answer` on the coexistence question: on its toast, or (a toast hides after a while, sooner on a
 * slow page) in the notification centre. Returns whether the question was there.
 */
async function answerQuestion(page: Page, answer: string): Promise<boolean> {
  const button = (where: string) =>
    page
      .locator(`${where} .notification-list-item`, { hasText: QUESTION })
      .locator('.monaco-button', { hasText: new RegExp(`^${answer}$`) })
      .first();
  const inToast = await until('the question', async () => (await notificationTexts(page)).some((t) => QUESTION.test(t)), 90_000).then(
    () => true,
    () => false,
  );
  if (
    inToast &&
    (await button('.notification-toast')
      .click({ timeout: 5_000 })
      .then(
        () => true,
        () => false,
      ))
  )
    return true;
  await runCommand(page, 'Notifications: Show Notifications');
  await button('.notifications-center').click({ timeout: 10_000 });
  await runCommand(page, 'Notifications: Hide Notifications');
  return true;
}

interface LockInfo {
  port: number;
  pid: number;
  ideName: string;
  workspaceFolders: string[];
}
function locksFor(dir: string, folder: string): LockInfo[] {
  return lockFiles(dir).flatMap((file) => {
    try {
      const content = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<LockInfo, 'port'>;
      return content.workspaceFolders?.includes(folder) ? [{ ...content, port: Number(path.basename(file, '.lock')) }] : [];
    } catch {
      return []; // being written
    }
  });
}

describe('vscode-coexistence-reload', () => {
  let model: FakeModel | undefined;
  let vsixes: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const screenshots: string[] = [];

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [ours, theirs] = await Promise.all([ensureVsix(), Promise.resolve().then(anthropicVsix)]);
    vsixes = [ours, theirs];
    model = await startFakeModel();
  }, 600_000);

  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await model?.close();
  }, 60_000);

  interface Outcome {
    /** Native Claude installed later did not start by itself: the window was reloaded once before the question. */
    reloadedToStart?: boolean;
    /** The question was shown when the window first opened (and answered by a click). */
    askedFirst: boolean;
    /** What the extension said after the click. */
    afterChoice: string[];
    ourStatusBefore?: string;
    /** After the reload. */
    ourStatusAfter?: string;
    notificationsAfter: string[];
    terminalPort: string;
    ourLockPorts: number[];
    theirLockPorts: number[];
    /** With Native Claude chosen: the status bar once claude was typed into the new terminal. */
    statusWithClaude?: string;
  }

  /**
   * One window, one browser profile: answer, reload, look again.
   * `installedLater`: Native Claude is installed into the running code-server after Anthropic's extension has
   * served this workspace (the usual way a user comes to have both): Anthropic's extension then holds the
   * first place in VS Code's terminal environment. Otherwise both are there from the start, and which one
   * registers first is a race.
   */
  async function answerAndReload(name: string, answer: string, opts: { withClaude: boolean; installedLater: boolean }): Promise<Outcome> {
    const { withClaude, installedLater } = opts;
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `nc-coexist-reload-${name}-`)));
    const folder = path.join(root, 'ws');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'hello.ts'), 'export const hello = 1;\n');
    const ic: IntegratedClaude = prepareIntegratedClaude({ workspace: folder, modelUrl: model!.url });
    const theirLockDir = path.join(ic.home, '.claude', 'ide');
    let server: CodeServer | undefined;
    let wb: Workbench | undefined;
    cleanups.push(async () => {
      await wb?.close();
      await server?.stop();
      await ic.cleanup();
      fs.rmSync(root, { recursive: true, force: true });
    });
    const portFile = path.join(root, 'terminal-port.txt');
    const debug = (what: string, value: unknown) => process.env.NC_COEXIST_DEBUG && console.log(`[${name}] ${what}: ${JSON.stringify(value)}`);
    server = await startCodeServer({
      workspace: folder,
      vsixPaths: installedLater ? [vsixes[1]] : vsixes,
      env: ic.env,
      smokeTestDriver: false,
      userSettings: { 'git.enabled': false, 'files.autoSave': 'off' },
    });
    wb = await openWorkbench(server, folder);
    const page = wb.page;
    const out: Partial<Outcome> = {};
    try {
      if (installedLater) {
        await until("Anthropic's extension alone to serve the workspace (its lock file)", async () => locksFor(theirLockDir, folder)[0], 90_000);
        // Its terminal variable registered: a terminal opened now gets its port (VS Code stores that per workspace).
        await sleep(2000);
        await installVsix(vsixes[0], server.userDataDir, server.extensionsDir, path.join(server.tempDir, 'config.yaml'), codeServerEnv(ic.env));
        // VS Code starts a newly installed extension by itself; if it has not within a minute, the user reloads.
        const asked = await until('the question', async () => (await notificationTexts(page)).some((t) => QUESTION.test(t)), 60_000).then(
          () => true,
          () => false,
        );
        out.reloadedToStart = !asked;
        if (!asked) await reloadWindow(page);
      }
      const theirsBefore = await until("Anthropic's lock file", async () => locksFor(theirLockDir, folder)[0], 90_000);
      // The question, as a notification with the two answers as buttons.
      out.askedFirst = await answerQuestion(page, answer);
      out.afterChoice = await until(
        'what the extension says about the choice',
        async () => {
          const texts = (await notificationTexts(page)).filter((t) => !QUESTION.test(t));
          return texts.some((t) => /serves claude in this workspace/.test(t)) ? texts : undefined;
        },
        30_000,
      );
      out.ourStatusBefore = await ourStatus(page);
      debug('before reload', { ...out, theirsBefore });
      const shot = await saveScreenshot(page, `coexist-reload-${name}-before`);
      if (shot) screenshots.push(shot);

      await reloadWindow(page);

      // Both extensions have started again: ours shows its status, theirs has written a new lock file.
      out.ourStatusAfter = await until(
        'Native Claude active again',
        async () => {
          const s = await ourStatus(page);
          return s && (answer === 'Native Claude' ? /^Claude :\d+$/.test(s) : s === 'Claude: off') ? s : undefined;
        },
        90_000,
      );
      await until(
        "Anthropic's extension to start again (a new lock file)",
        async () => locksFor(theirLockDir, folder).some((l) => l.port !== theirsBefore.port),
        60_000,
      );
      // The question would come right after activation; give it ample time on a loaded machine.
      await sleep(8000);
      await runCommand(page, 'Notifications: Show Notifications');
      await sleep(1000);
      out.notificationsAfter = await notificationTexts(page);
      await runCommand(page, 'Notifications: Hide Notifications');

      // A new terminal: what CLAUDE_CODE_SSE_PORT does its shell get?
      await runCommand(page, 'Terminal: Create New Terminal');
      await page.locator('.terminal-wrapper.active .xterm-helper-textarea, .terminal .xterm-helper-textarea').first().waitFor({ timeout: 30_000 });
      await until(
        'the new shell to write its CLAUDE_CODE_SSE_PORT',
        async () => {
          if (fs.existsSync(portFile)) return true;
          await page.keyboard.type(`printf '%s' "\${CLAUDE_CODE_SSE_PORT-unset}" > ${portFile}.tmp && mv ${portFile}.tmp ${portFile}`);
          await page.keyboard.press('Enter');
          await sleep(3000);
          return fs.existsSync(portFile);
        },
        60_000,
        0,
      );
      out.terminalPort = fs.readFileSync(portFile, 'utf8');
      out.ourLockPorts = lockFiles(ic.lockDir).map((f) => Number(path.basename(f, '.lock')));
      out.theirLockPorts = locksFor(theirLockDir, folder).map((l) => l.port);

      // claude connecting is looked for only where the port is ours (else the expectations below say why).
      if (withClaude && out.terminalPort === /^Claude :(\d+)$/.exec(out.ourStatusAfter ?? '')?.[1]) {
        // The real claude in that terminal connects to the server its CLAUDE_CODE_SSE_PORT names.
        await page.keyboard.type('export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; claude');
        await page.keyboard.press('Enter');
        out.statusWithClaude = await until(
          'claude in the new terminal to connect to Native Claude',
          async () => {
            const s = await ourStatus(page);
            return s && /^Claude: 1 session$/.test(s) ? s : undefined;
          },
          90_000,
          500,
        );
      }
      debug('after reload', out);
      const after = await saveScreenshot(page, `coexist-reload-${name}-after`);
      if (after) screenshots.push(after);
      return out as Outcome;
    } catch (error) {
      const shot = await saveScreenshot(page, `coexist-reload-${name}-failed`);
      const logs = server ? findFiles(path.join(server.userDataDir, 'logs'), /Native Claude\.log$/).map((f) => fs.readFileSync(f, 'utf8').slice(-4000)) : [];
      debug('failed', out);
      (error as Error).message += `\nseen so far: ${JSON.stringify(out)}\nscreenshot: ${shot}\nNative Claude's logs:\n${logs.join('\n---\n')}`;
      throw error;
    } finally {
      await wb.close();
      wb = undefined;
      await ic.killTmux();
      // claude typed into the terminal dies with code-server's process tree.
      await server.stop();
      server = undefined;
    }
  }

  it("installed next to Anthropic's extension, chosen Native Claude, then Reload Window: not asked again; a new terminal carries its port and claude there connects to it", async () => {
    const o = await answerAndReload('this', 'Native Claude', { withClaude: true, installedLater: true });
    const ourPort = /^Claude :(\d+)$/.exec(o.ourStatusAfter ?? '')?.[1];
    // Before the reload already, the choice took the terminal variable (no warning that it did not).
    expect(o.afterChoice).toEqual([expect.stringMatching(/^Native Claude serves claude in this workspace\. Terminals opened from now on get its port/)]);
    expect({ askedFirst: o.askedFirst, askedAgain: o.notificationsAfter.filter((t) => QUESTION.test(t)) }).toEqual({ askedFirst: true, askedAgain: [] });
    // Nor does a start-up warning bring Anthropic's lock file up again: the user was told when choosing.
    expect(o.notificationsAfter).toEqual([]);
    expect(ourPort).toMatch(/^\d+$/);
    expect({ terminalPort: o.terminalPort, ourLock: o.ourLockPorts }).toEqual({ terminalPort: ourPort, ourLock: [Number(ourPort)] });
    expect(o.theirLockPorts).toHaveLength(1);
    expect(o.theirLockPorts).not.toContain(Number(ourPort));
    expect(o.statusWithClaude).toBe('Claude: 1 session');
  }, 420_000);

  it("chosen Anthropic's, then Reload Window: not asked again; Native Claude stays off and a new terminal carries Anthropic's port", async () => {
    const o = await answerAndReload('theirs', "Anthropic's Claude Code", { withClaude: false, installedLater: false });
    expect({ askedFirst: o.askedFirst, askedAgain: o.notificationsAfter.filter((t) => QUESTION.test(t)) }).toEqual({ askedFirst: true, askedAgain: [] });
    // Nothing from Native Claude at start-up either (it once warned that Anthropic's lock file lists the folder).
    expect(o.notificationsAfter).toEqual([]);
    expect(o.ourStatusBefore).toBe('Claude: off');
    expect(o.ourStatusAfter).toBe('Claude: off');
    expect(o.ourLockPorts).toEqual([]);
    expect(o.theirLockPorts).toHaveLength(1);
    expect(o.terminalPort).toBe(String(o.theirLockPorts[0]));
  }, 420_000);
});
