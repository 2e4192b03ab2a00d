/**
 * The installed extension's details page in real VS Code (code-server 4.139.1) with the packaged .vsix
 * (issue 25): the README's text is there and no picture on it is broken. VS Code shows only pictures with
 * an http(s) address there (a relative or data: one becomes a broken-image box), and the project has no
 * public address for its pictures, so the packaged README leaves them out (scripts/packaged-readme.ts).
 * With the old package.json every picture pointed at https://github.com/REPLACE-WITH-OWNER/... and broke.
 *
 * Needs test/setup/install-real-clients.sh. Run:
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/vscode-details-page.test.ts
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Frame } from 'playwright-core';
import { codeServerAvailable, openWorkbench, saveScreenshot, startCodeServer, type CodeServer, type Workbench } from './harness/codeServer';
import { ensureVsix } from './harness/vsix';

interface DetailsPage {
  text: string;
  pictures: Array<{ alt: string; src: string | null; loaded: boolean }>;
}

/** The details page's README, read from the webview frame that renders it. */
async function readDetails(frames: Frame[]): Promise<DetailsPage | undefined> {
  for (const frame of frames) {
    // A string, as the page runs it (this project's TypeScript has no DOM types).
    const page = (await frame
      .evaluate(
        `(async () => {
          if (!document.body || !document.body.innerText.includes('Try it, test it')) return undefined;
          // Give every picture its chance to load (or fail) before judging it.
          await Promise.all([...document.images].map((i) => (i.complete ? undefined : new Promise((r) => { i.onload = r; i.onerror = r; }))));
          return {
            text: document.body.innerText,
            pictures: [...document.images].map((i) => ({ alt: i.alt, src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0 })),
          };
        })()`,
      )
      .catch(() => undefined)) as DetailsPage | undefined;
    if (page) return page;
  }
  return undefined;
}

describe('vscode-details-page', () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let root = '';
  let details: DetailsPage | undefined;

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const vsix = await ensureVsix();
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-details-')));
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    server = await startCodeServer({
      workspace,
      vsixPaths: [vsix],
      smokeTestDriver: false,
      userSettings: { 'workbench.startupEditor': 'none', 'git.enabled': false },
    });
    workbench = await openWorkbench(server, workspace);
    const { page } = workbench;
    await page.keyboard.press('Control+Shift+X');
    // The Extensions view opens with its search box focused.
    await page.locator('.extensions-viewlet').first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    await page.keyboard.type('@installed Native Claude');
    const item = page.locator('.extension-list-item', { hasText: 'Native Claude' }).first();
    await item.waitFor({ timeout: 30_000 });
    await item.click();
    const deadline = Date.now() + 60_000;
    while (!details && Date.now() < deadline) {
      details = await readDetails(page.frames());
      if (!details) await page.waitForTimeout(500);
    }
    if (!details) await saveScreenshot(page, 'vscode-details-page');
  }, 300_000);

  afterAll(async () => {
    await workbench?.close();
    await server?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('shows the README text of the packaged extension', () => {
    expect(details).toBeDefined();
    for (const heading of ['Native Claude', 'Install', 'How it works']) expect(details!.text).toContain(heading);
  });

  it('has no broken picture on it', () => {
    expect(details!.pictures.filter((p) => !p.loaded)).toEqual([]);
  });
});
