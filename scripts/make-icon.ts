/**
 * Renders media/icon.svg to media/icon.png (128×128, transparent corners) with the headless Chromium the
 * real-client tests use (playwright-core + /usr/bin/chromium), so no image library is needed.
 * Run: node -r ts-node/register/transpile-only scripts/make-icon.ts
 */
import * as fs from 'fs';
import * as path from 'path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/real/harness/codeServer';

const MEDIA = path.resolve(__dirname, '..', 'media');

async function main(): Promise<void> {
  const svg = fs.readFileSync(path.join(MEDIA, 'icon.svg'), 'utf8');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    const out = path.join(MEDIA, 'icon.png');
    await page.locator('svg').screenshot({ path: out, omitBackground: true });
    console.log(`${path.relative(process.cwd(), out)}: ${fs.statSync(out).size} bytes`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
