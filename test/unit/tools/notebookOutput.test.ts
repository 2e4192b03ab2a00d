import { ERROR_MIME, OUTPUT_BOUNDS, outputsToContent, STDERR_MIME, STDOUT_MIME, stripAnsi } from '../../../src/tools/notebookOutput';
import type { CellOutput } from '../../../src/host/notebookKernel';

const bytes = (text: string) => new TextEncoder().encode(text);
const out = (...items: Array<[string, string | Uint8Array]>): CellOutput => ({
  items: items.map(([mime, data]) => ({ mime, data: typeof data === 'string' ? bytes(data) : data })),
});
// What IPython puts in a ZeroDivisionError's traceback (VS Code's error output: name, message, stack).
const IPYTHON_STACK =
  '\u001b[0;31m---------------------------------------------------------------------------\u001b[0m\n' +
  '\u001b[0;31mZeroDivisionError\u001b[0m                         Traceback (most recent call last)\n' +
  'Cell \u001b[0;32mIn[3], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m \u001b[38;5;241m1\u001b[39m\u001b[38;5;241m/\u001b[39m\u001b[38;5;241m0\u001b[39m\n\n' +
  '\u001b[0;31mZeroDivisionError\u001b[0m: division by zero';

describe('tools: notebook cell outputs as MCP content (executeCode)', () => {
  test('stdout and stderr as one text item in their order; text/plain results as text', () => {
    expect(outputsToContent([out([STDOUT_MIME, '42\n']), out([STDERR_MIME, 'a warning\n']), out(['text/plain', '43'])])).toEqual([
      { type: 'text', text: '42\na warning\n43' },
    ]);
  });

  test('a stream split into several items is joined without extra breaks', () => {
    expect(outputsToContent([out([STDOUT_MIME, 'a'], [STDOUT_MIME, 'b\n'], [STDOUT_MIME, 'c\n'])])).toEqual([{ type: 'text', text: 'ab\nc\n' }]);
  });

  test('an error as its name, message and traceback, ANSI escapes removed', () => {
    const [item] = outputsToContent([out([ERROR_MIME, JSON.stringify({ name: 'ZeroDivisionError', message: 'division by zero', stack: IPYTHON_STACK })])]);
    expect(item.type).toBe('text');
    const text = (item as { text: string }).text;
    expect(text.split('\n')[0]).toBe('ZeroDivisionError: division by zero');
    expect(text).toContain('Traceback (most recent call last)');
    expect(text).toContain('----> 1 1/0');
    expect(text).not.toMatch(/\u001b/);
  });

  test('an error without a stack, and one that is not JSON, still say what they are', () => {
    expect(outputsToContent([out([ERROR_MIME, JSON.stringify({ name: 'KernelDied', message: '' })])])).toEqual([{ type: 'text', text: 'KernelDied' }]);
    expect(outputsToContent([out([ERROR_MIME, '\u001b[31mboom\u001b[0m'])])).toEqual([{ type: 'text', text: 'boom' }]);
  });

  test('an image as image content (base64, its MIME type), chosen over its text/plain; SVG as text', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const content = outputsToContent([
      out([STDOUT_MIME, 'plotting\n']),
      out(['text/plain', '<Figure size 640x480 with 1 Axes>'], ['image/png', png]),
      out(['image/svg+xml', '<svg/>']),
    ]);
    expect(content).toEqual([
      { type: 'text', text: 'plotting\n' },
      { type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' },
      { type: 'text', text: '(image/svg+xml)\n<svg/>' },
    ]);
  });

  test('a rich result: text/plain before HTML; an unknown type is named', () => {
    expect(outputsToContent([out(['text/html', '<table/>'], ['text/plain', '   a\n0  1'])])).toEqual([{ type: 'text', text: '   a\n0  1' }]);
    expect(outputsToContent([out(['application/vnd.jupyter.widget-view+json', '{}'])])).toEqual([
      { type: 'text', text: '[an output of type application/vnd.jupyter.widget-view+json that cannot be shown as text or an image]' },
    ]);
  });

  test('no outputs, empty outputs: no content', () => {
    expect(outputsToContent([])).toEqual([]);
    expect(outputsToContent([{ items: [] }, out([STDOUT_MIME, ''])])).toEqual([]);
  });

  test('text over the bound keeps its start and end with a marker saying how much was cut', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const [item] = outputsToContent([out([STDOUT_MIME, lines])]);
    const text = (item as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(OUTPUT_BOUNDS.maxTextChars);
    expect(text.startsWith('line 0\n')).toBe(true);
    expect(text.endsWith('line 4999')).toBe(true);
    expect(text).toMatch(/\[\.\.\. output truncated: \d+ characters \(\d+ lines\) omitted \.\.\.\]/);
  });

  test('the text bound holds over several runs of text between images', () => {
    const png = new Uint8Array([1, 2, 3]);
    const big = 'x'.repeat(30_000);
    const content = outputsToContent([out([STDOUT_MIME, big]), out(['image/png', png]), out([STDOUT_MIME, big])]);
    const total = content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
    expect(content.map((c) => c.type)).toEqual(['text', 'image', 'text']);
    expect(total).toBeLessThanOrEqual(OUTPUT_BOUNDS.maxTextChars);
  });

  test('an image over the byte bound, and images past the count bound, become notes', () => {
    const bounds = { maxTextChars: 1000, maxImages: 2, maxImageBytes: 10 };
    const small = new Uint8Array(5);
    const content = outputsToContent(
      [out(['image/png', new Uint8Array(11)]), out(['image/png', small]), out(['image/jpeg', small]), out(['image/gif', small])],
      bounds,
    );
    expect(content.map((c) => c.type)).toEqual(['text', 'image', 'image', 'text']);
    expect((content[0] as { text: string }).text).toMatch(/an image\/png image of 1 KiB left out: over the 1 KiB bound for one image/);
    expect((content[3] as { text: string }).text).toBe('[an image/gif image left out: only 2 images are sent per call]');
  });

  test('stripAnsi removes colours, OSC links and cursor codes, and leaves text alone', () => {
    expect(stripAnsi('\u001b[1;31mred\u001b[0m \u001b]8;;http://x\u0007link\u001b]8;;\u0007 \u001b[2K\u001b[1Gdone')).toBe('red link done');
    expect(stripAnsi('plain [1;31m text')).toBe('plain [1;31m text');
  });
});
