/**
 * Driving the workbench as a user would, with Playwright keys and clicks, for real tests that cannot use
 * VS Code's extension test runner (a window reload or an extension-host restart would end it).
 */
import type { Locator, Page } from 'playwright-core';
import { pollUntil } from '../../support/poll';
import { statusBarEntries } from './integratedClaude';

/** Polls `fn` until it returns something truthy; throws with `what` (and the last value seen) after `timeoutMs`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false | null>, timeoutMs: number, intervalMs = 250): Promise<T> {
  return (await pollUntil(what, fn, timeoutMs, intervalMs)) as T;
}

/**
 * Opens the palette (F1) once a previous one has closed (a palette still closing, inert and fading out,
 * takes no input), and returns it and its input, ready for typing.
 */
async function openPalette(page: Page, what: string): Promise<{ widget: Locator; input: Locator }> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input').first();
  await until('the previous palette to close', async () => !(await widget.isVisible()), 15_000);
  await until(
    what,
    async () => {
      if (!(await widget.isVisible())) await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 3_000 });
      return input.isEditable();
    },
    30_000,
    500,
  );
  return { widget, input };
}

/** Runs a command from the palette (F1), by its title, as a user would. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const { widget, input } = await openPalette(page, `the command palette for "${title}"`);
  await input.fill(`>${title}`);
  // The row whose label is exactly the title (not e.g. "Developer: Reload Window With Extensions Disabled").
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  const row = await until(
    `"${title}" in the palette`,
    async () => {
      for (let i = 0, n = await rows.count(); i < n; i++) {
        if ((await rows.nth(i).locator('.label-name').first().textContent({ timeout: 1_000 }))?.trim() === title) return rows.nth(i);
      }
      return undefined;
    },
    20_000,
  );
  await row.click();
  await until(`the palette to close after "${title}"`, async () => !(await widget.isVisible()), 15_000);
}

/** Opens a workspace file by its name from Quick Open (the palette without `>`), as a user would. */
export async function openFileByName(page: Page, name: string): Promise<void> {
  const { widget, input } = await openPalette(page, 'Quick Open');
  await input.fill(name);
  const row = widget.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: name }) }).first();
  await row.waitFor({ timeout: 20_000 });
  await row.click();
  await until(`the palette to close after opening ${name}`, async () => !(await widget.isVisible()), 15_000);
}

/** Developer: Reload Window, and waits for the reloaded workbench in the same page. */
export async function reloadWindow(page: Page): Promise<void> {
  await page.evaluate('window.__ncBeforeReload = true');
  await runCommand(page, 'Developer: Reload Window');
  await until(
    'the reloaded workbench',
    async () => page.evaluate('!window.__ncBeforeReload && !!document.querySelector(".monaco-workbench .part.statusbar")').catch(() => false),
    90_000,
    500,
  );
}

/** Every notification's message (the centre holds the toasts' too). */
export async function notificationTexts(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`Array.from(document.querySelectorAll('.notification-list-item-message')).map((e) => (e.textContent || '').trim())`);
}

/** The editor tabs' labels, in every group. */
export async function editorTabLabels(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    `Array.from(document.querySelectorAll('.editor .tabs-container .tab')).map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim())`,
  );
}

/** Texts of the editor area's error placeholders ("The editor could not be opened …"). */
export async function editorErrors(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    `Array.from(document.querySelectorAll('.editor .editor-placeholder, .editor .monaco-editor-pane-placeholder')).map((e) => (e.textContent || '').trim()).filter(Boolean)`,
  );
}

/** Native Claude's status bar item: `Claude :<port>`, `Claude: 1 session`, `Claude: off`. */
export async function ourStatus(page: Page): Promise<string | undefined> {
  return (await statusBarEntries(page)).find((e) => e.id.includes('nativeClaude.status'))?.text.replace(/^\s+/, '');
}

/**
 * The notification containing `contains`: its toast, else its item in the notification centre (in a window
 * running extension tests toasts may stay hidden, the bell shows a dot; the centre is opened then).
 */
export async function findNotification(page: Page, contains: string, timeoutMs = 50_000): Promise<Locator> {
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: contains }).first();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await toast.isVisible().catch(() => false)) return toast;
    const listed = page.locator('.notifications-center .notification-list-item', { hasText: contains }).first();
    if (await listed.isVisible().catch(() => false)) return listed;
    if (
      !(await page
        .locator('.notifications-center')
        .isVisible()
        .catch(() => false))
    )
      await page
        .locator('.statusbar-item[id="status.notifications"] a, .statusbar-item[id="status.notifications"]')
        .first()
        .click({ timeout: 2_000 })
        .catch(() => undefined);
    if (Date.now() > deadline) throw new Error(`no notification containing ${JSON.stringify(contains)} within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(250);
  }
}

/** A notification's message and button labels (after a moment for it to render whole). */
export async function notificationContent(item: Locator): Promise<{ message: string; buttons: string[] }> {
  await item.page().waitForTimeout(300);
  const message = ((await item.locator('.notification-list-item-message').first().textContent()) ?? '').trim();
  const buttons = (await item.locator('.monaco-button').allTextContents()).map((b) => b.trim()).filter(Boolean);
  return { message, buttons };
}

/** Clicks the button labelled exactly `button` on a notification. */
export async function clickNotificationButton(item: Locator, button: string): Promise<void> {
  await item
    .locator('.monaco-button', { hasText: new RegExp(`^${button}$`) })
    .first()
    .click({ timeout: 5_000 });
}

/** Probe: clicks `button` on the notification containing `contains`; answers its message and buttons. */
export async function notificationProbe(page: Page, arg: unknown): Promise<{ message: string; buttons: string[] }> {
  const { button, contains } = arg as { button: string; contains: string };
  const item = await findNotification(page, contains);
  const content = await notificationContent(item);
  await clickNotificationButton(item, button);
  return content;
}

/** Picks a provider in the drop-down of the open quick diff peek (native select or custom box); answers the choices it had. */
export async function peekChooseProvider(page: Page, label: string): Promise<{ native: boolean; options: string[] }> {
  const select = page.locator('.dirty-diff select.monaco-select-box').first();
  if (await select.count()) {
    const options = await select.locator('option').allTextContents();
    await select.selectOption({ label });
    return { native: true, options };
  }
  const box = page.locator('.dirty-diff .monaco-select-box').first();
  await box.click({ timeout: 5_000 });
  const options = await page.locator('.monaco-select-box-dropdown-container .option-text').allTextContents();
  await page.locator('.monaco-select-box-dropdown-container .option-text', { hasText: label }).first().click({ timeout: 5_000 });
  return { native: false, options };
}

/** Clicks an action of the open quick diff peek's title bar by its title; answers the titles it had. */
export async function clickPeekAction(page: Page, title: string): Promise<{ titles: string[] }> {
  const titles = await page
    .locator('.dirty-diff .action-label')
    .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.getAttribute('title') ?? ''));
  await page.locator(`.dirty-diff .action-label[aria-label="${title}"]`).first().click({ timeout: 5_000 });
  return { titles };
}

/**
 * How long a context menu's items ignore the mouse after the menu renders: VS Code's menu items run their
 * action on mouseup only, and add that listener 100 ms after rendering (`runOnceToEnableMouseUp` in
 * base/browser/ui/menu/menu.ts, in code-server 4.139.1's workbench.js too; the item's click event is
 * ignored in menus). A click sooner is lost without a trace and the menu stays open: a person cannot
 * click that fast, a script can (docs/vscode-traps.md, trap 33).
 */
const MENU_ARMS_AFTER_MS = 100;

/**
 * Right-clicks a changed file in the Source Control view (open) and clicks an item of its context menu;
 * answers the items the menu had, how many rows show the file (one per provider listing it) and how many
 * clicks the item took: the menu closes when its action runs, so an item still open after a click (the
 * page busy past the menu's arming) is clicked again, at most three times.
 */
export async function clickScmFileMenu(page: Page, file: string, item: string): Promise<{ items: string[]; rows: number; clicks: number }> {
  const rows = page.locator('.scm-view .monaco-list-row', { has: page.locator('.label-name', { hasText: file }) });
  await rows.first().waitFor({ timeout: 10_000 });
  const count = await rows.count();
  await rows.first().click({ button: 'right', timeout: 10_000 });
  const menu = page.locator('.context-view .monaco-menu');
  await menu.first().waitFor({ timeout: 5_000 });
  const items = (await menu.locator('.action-label').allTextContents()).map((t) => t.trim()).filter(Boolean);
  const target = menu.locator('.action-label', { hasText: item }).first();
  await target.hover({ timeout: 5_000 });
  await page.waitForTimeout(2 * MENU_ARMS_AFTER_MS);
  for (let clicks = 1; ; clicks++) {
    await target.click({ timeout: 5_000 });
    const closed = await menu
      .first()
      .waitFor({ state: 'hidden', timeout: 2_000 })
      .then(() => true)
      .catch(() => false);
    if (closed) return { items, rows: count, clicks };
    if (clicks === 3) throw new Error(`the context menu of ${file} stayed open after 3 clicks on "${item}"`);
  }
}
