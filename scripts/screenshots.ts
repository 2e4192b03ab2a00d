/**
 * `npm run screenshots`: the README's pictures, taken from real VS Code. Same tooling as the real-client
 * tests: code-server 4.139.1 with the packaged .vsix, headless Chromium via playwright-core, the pinned
 * `claude` CLI typed into the integrated terminal, and the scripted fake model (test/real/harness/fakeModel.ts)
 * in place of the API. The inner suite test/vscode/screenshots/readme.test.ts sets each scene up through the
 * `vscode` API and asks (probe `shot`) for a picture; this side crops it from the page and optimises it
 * (pngquant/optipng when installed: `apt-get install pngquant optipng`) into docs/images/<name>.png.
 * Rerunning replaces them. Run it under the real-client lock:
 *   flock /tmp/native-claude-real.lock npm run screenshots
 * NATIVE_CLAUDE_VSIX=<file> skips packaging; SCREENSHOTS_ONLY=<regexp> takes only the scenes whose titles
 * match (the others' pictures stay as they are).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { codeServerAvailable, compileInnerSuites, REPO_ROOT, runSuiteInVsCode, startCodeServer, type CodeServer } from '../test/real/harness/codeServer';
import { claudeBinaryPath } from '../test/real/harness/claudeCli';
import { lastUserText, startFakeModel, type FakeModel, type MessagesRequest, type Reply } from '../test/real/harness/fakeModel';
import { prepareIntegratedClaude, statusBarEntries, type IntegratedClaude } from '../test/real/harness/integratedClaude';
import { ensureVsix } from '../test/real/harness/vsix';
import { walkthroughPage } from '../test/real/harness/walkthrough';

const IMAGES = path.join(REPO_ROOT, 'docs', 'images');
const INNER_SUITE = path.join(REPO_ROOT, 'out', 'test', 'vscode', 'screenshots', 'index.js');
const SAMPLE = path.join(REPO_ROOT, 'test', 'fixtures', 'sample-workspace');

/** What the fake model answers: the prompts the inner suite types, and the edit the review shows. */
function router(workspace: string) {
  const greet = path.join(workspace, 'src', 'greet.ts');
  return (request: MessagesRequest): Reply => {
    const last = request.messages[request.messages.length - 1];
    const afterTool = last && typeof last.content !== 'string' && last.content.some((b) => b.type === 'tool_result');
    if (afterTool) return { text: 'Done: greet() now says Hi.' };
    const prompt = lastUserText(request);
    if (/What does this function do/.test(prompt)) {
      return { text: '`greet()` returns a greeting for one person: it prefixes the title when there is one, and ends with `!` when `excited` is set.' };
    }
    if (/say Hi instead of Hello/.test(prompt)) {
      return {
        text: "I'll change both greetings.",
        toolUse: {
          name: 'Edit',
          input: {
            file_path: greet,
            old_string: 'return excited ? `Hello, ${who}!` : `Hello, ${who}.`;',
            new_string: 'return excited ? `Hi, ${who}!` : `Hi, ${who}.`;',
          },
        },
      };
    }
    return { text: 'ok' };
  };
}

type Box = { x: number; y: number; width: number; height: number };

/** The part of the page a picture shows. */
async function clipFor(page: Page, area: string): Promise<Box | undefined> {
  const box = (selector: string) => page.locator(selector).first().boundingBox();
  const view = page.viewportSize()!;
  const pad = (b: Box, p: number): Box => {
    const x = Math.max(0, b.x - p);
    const y = Math.max(0, b.y - p);
    return { x, y, width: Math.min(view.width - x, b.width + 2 * p), height: Math.min(view.height - y, b.height + 2 * p) };
  };
  switch (area) {
    case 'window': {
      // Without the title bar: it names the test host ("[Extension Development Host]"), not the product.
      const title = await box('.part.titlebar');
      const top = title ? Math.round(title.y + title.height) : 0;
      return { x: 0, y: top, width: view.width, height: view.height - top };
    }
    case 'notification': {
      const b = await box('.notifications-toasts .notification-toast');
      if (!b) throw new Error('no notification toast on screen');
      return pad(b, 12);
    }
    case 'notification-center': {
      const b = await box('.notifications-center');
      if (!b) throw new Error('no notification centre on screen');
      return pad(b, 12);
    }
    case 'panel': {
      // The terminal running claude and the status bar under it.
      const b = await box('.part.panel');
      if (!b) throw new Error('no panel on screen');
      return { x: 0, y: b.y, width: view.width, height: view.height - b.y };
    }
    case 'editor': {
      const b = await box('.part.editor');
      if (!b) throw new Error('no editor part on screen');
      return b;
    }
    default:
      throw new Error(`unknown area ${area}`);
  }
}

function has(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Shrinks a PNG in place: pngquant (lossy palette) then optipng, each when installed. */
function optimise(file: string): string[] {
  const used: string[] = [];
  if (has('pngquant')) {
    execFileSync('pngquant', ['--quality=70-95', '--speed=1', '--strip', '--force', '--output', file, file]);
    used.push('pngquant');
  }
  if (has('optipng')) {
    execFileSync('optipng', ['-quiet', '-o2', file]);
    used.push('optipng');
  }
  return used;
}

const taken: Array<{ name: string; bytes: number; raw: number; width: number; height: number }> = [];

async function takeShot(page: Page, arg: unknown): Promise<{ file: string; bytes: number }> {
  const { name, area } = arg as { name: string; area: string };
  if (!/^[\w-]+$/.test(name)) throw new Error(`bad picture name ${name}`);
  const clip = await clipFor(page, area);
  fs.mkdirSync(IMAGES, { recursive: true });
  const file = path.join(IMAGES, `${name}.png`);
  await page.screenshot({ path: file, clip, animations: 'disabled', caret: 'hide' });
  const raw = fs.statSync(file).size;
  const tools = optimise(file);
  const bytes = fs.statSync(file).size;
  const header = fs.readFileSync(file).subarray(16, 24);
  taken.push({ name, bytes, raw, width: header.readUInt32BE(0), height: header.readUInt32BE(4) });
  console.log(
    `[screenshots] ${path.relative(REPO_ROOT, file)}: ${raw} → ${bytes} bytes${tools.length ? ` (${tools.join(', ')})` : ' (not optimised: install pngquant/optipng)'}`,
  );
  return { file, bytes };
}

const probes = {
  shot: takeShot,
  statusbar: (page: Page) => statusBarEntries(page),
  walkthrough: (page: Page) => walkthroughPage(page),
  hasNotification: async (page: Page, text: unknown) =>
    (await page.locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item').allTextContents()).some((t) =>
      t.includes(String(text)),
    ),
  clickNotificationButton: async (page: Page, label: unknown) => {
    const buttons = page.locator('.notifications-toasts .monaco-button, .notifications-center .monaco-button', { hasText: String(label) });
    await buttons.first().click({ timeout: 5_000 });
    return true;
  },
};

async function main(): Promise<void> {
  if (!codeServerAvailable() || !fs.existsSync(claudeBinaryPath())) {
    throw new Error('code-server, chromium or the claude CLI is missing: run test/setup/install-real-clients.sh');
  }
  const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
  let model: FakeModel | undefined;
  let ic: IntegratedClaude | undefined;
  let server: CodeServer | undefined;
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-screenshots-')));
  const workspace = path.join(root, 'sample-project');
  fs.cpSync(SAMPLE, workspace, { recursive: true });
  try {
    model = await startFakeModel();
    model.respond(...Array.from({ length: 40 }, () => router(workspace)));
    ic = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_SCREENSHOTS: '1' } });
    server = await startCodeServer({
      workspace,
      vsixPaths: [vsix],
      env: ic.env,
      userSettings: {
        'git.enabled': false,
        'editor.minimap.enabled': false,
        'workbench.colorTheme': 'Default Dark Modern',
        'terminal.integrated.fontSize': 13,
        'editor.fontSize': 14,
        // code-server's own PATH has no claude (the tests' CLI is on the terminal's PATH only), so the
        // health page is pointed at it the way a user would: nativeClaude.claudeCommand.
        'nativeClaude.claudeCommand': path.join(ic.binDir, 'claude'),
      },
    });
    const result = await runSuiteInVsCode({
      server,
      folder: workspace,
      suite: INNER_SUITE,
      grep: process.env.SCREENSHOTS_ONLY,
      timeout: 120_000,
      timeoutMs: 420_000,
      probeDir: ic.probeDir,
      probes,
      screenshotOnProbeError: true,
      name: 'screenshots',
    });
    for (const line of result.log) if (/\[screenshots\]|passing|failing|pending|Error|✓|✔|\d+\)/.test(line)) console.log(line);
    console.log('\npicture                      size        raw  width×height');
    for (const t of taken)
      console.log(`docs/images/${t.name}.png`.padEnd(28), String(t.bytes).padStart(7), String(t.raw).padStart(10), ` ${t.width}×${t.height}`);
    if (result.exitCode !== 0)
      throw new Error(`the screenshot suite failed (exit ${result.exitCode})${result.screenshot ? `; page at failure: ${result.screenshot}` : ''}`);
  } finally {
    await ic?.killTmux();
    await server?.stop();
    await model?.close();
    await ic?.cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(`screenshots: ${e.message}`);
  process.exit(1);
});
