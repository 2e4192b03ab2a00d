import * as fs from 'fs';
import * as path from 'path';
import { collectTerminalOutput, renderTerminalOutput } from '../../../src/terminal/terminalOutput';

// Real programs' output, recorded in tmux by test/fixtures/terminal-recordings/record.sh, with tmux's
// own rendering of the pane as what the user saw. pv (two progress lines redrawn with absolute cursor
// rows) and apt (a progress line kept at the bottom with a scroll region) are what the earlier
// one-line cleaner garbled; git and npm are plain \r progress.
const DIR = path.join(__dirname, '../../fixtures/terminal-recordings');
const RECORDINGS = ['pv', 'apt', 'git', 'npm'];

/** Trailing blanks are not visible on a screen, so neither side is compared on them. */
function visible(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\s+$/, '');
}

describe('terminal output of real programs renders as the user saw it', () => {
  for (const name of RECORDINGS) {
    const raw = fs.readFileSync(path.join(DIR, `${name}.raw`), 'utf8');
    const screen = visible(fs.readFileSync(path.join(DIR, `${name}.screen`), 'utf8'));

    it(`${name}: whole stream`, async () => {
      expect(visible(await renderTerminalOutput(raw))).toBe(screen);
    });

    it(`${name}: streamed in 7-character chunks, as execution.read() may split it`, async () => {
      async function* chunks(): AsyncGenerator<string> {
        for (let i = 0; i < raw.length; i += 7) yield raw.slice(i, i + 7);
      }
      const result = await collectTerminalOutput(chunks(), { maxChars: 100_000 });
      expect(visible(result.text)).toBe(screen);
    });
  }

  it('pv: both progress lines end at their last frame, each once', async () => {
    const text = await renderTerminalOutput(fs.readFileSync(path.join(DIR, 'pv.raw'), 'utf8'));
    expect(text.match(/reading:/g)).toHaveLength(1);
    expect(text.match(/gzipped:/g)).toHaveLength(1);
  });
});
