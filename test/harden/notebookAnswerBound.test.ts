// Hardening — executeCode states that its answer carries at most 20,000 characters of text. Each text
// run between images was given at least 200 characters whatever its share, and the closing sentence came
// on top: four short outputs between images next to one long output passed the bound by ~800. Kernel
// output is whatever the code prints (a peer's code, or data it reads), so the bound must hold for any
// shape of output. The real tool and output formatting; a scripted kernel.

import type { CellOutput } from '../../src/host/notebookKernel';
import { executeCodeTool } from '../../src/tools/executeCode';
import { OUTPUT_BOUNDS, STDOUT_MIME } from '../../src/tools/notebookOutput';
import { ScriptedNotebook } from '../support/fakeHosts';
import { figures } from './support/hardenServer';

const text = (s: string): CellOutput => ({ items: [{ mime: STDOUT_MIME, data: Buffer.from(s) }] });
const png = (): CellOutput => ({ items: [{ mime: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }] });

describe("hardening: executeCode's answer stays within its stated 20,000 characters of text", () => {
  test.each([
    [
      'four 1,000-character outputs between images, then 200,000 characters',
      () => [
        text('a'.repeat(1000)),
        png(),
        text('b'.repeat(1000)),
        png(),
        text('c'.repeat(1000)),
        png(),
        text('d'.repeat(1000)),
        png(),
        text('e\n'.repeat(100_000)),
      ],
    ],
    ['one output of exactly 20,000 characters', () => [text('x'.repeat(20_000))]],
    ['many short outputs and images left out', () => Array.from({ length: 40 }, (_, i) => (i % 2 ? png() : text(`${i}`.repeat(900))))],
  ])('%s', async (what, outputs) => {
    const kernel = new ScriptedNotebook(() => ({ outputs: outputs() }));
    const result = await executeCodeTool(kernel).handle({ code: 'show()' }, { connectionId: 1, signal: new AbortController().signal });
    const chars = result.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
    figures(`executeCode answer: ${what}`, { textChars: chars });
    expect(chars).toBeLessThanOrEqual(OUTPUT_BOUNDS.maxTextChars);
    // The end of the long output (where results usually are) and the closing sentence are still there.
    const all = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    expect(all).toMatch(/Ran in /);
  });
});
