// How claude's prompt takes text typed into its terminal, the ground the hand-off commands stand on
// (docs/selection.md, "Handing work to claude"): a bracketed paste keeps line breaks as line breaks and
// submits nothing; a paste end followed by a carriage return inside untrusted text would submit on
// 2.1 (why src/selection/promptText.ts cleans it); what the prompt shows in full and what it folds.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bracketedPaste } from '../../src/selection/promptText';
import { cliAtLeast, startClaude, type ClaudeCli } from './harness/claudeCli';
import { lastUserText, startFakeModel, type FakeModel } from './harness/fakeModel';

jest.setTimeout(90_000);

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes bytes to claude's terminal as VS Code's `terminal.sendText(text, false)` does: `\n` becomes `\r`. */
function sendText(cli: ClaudeCli, text: string): Promise<void> {
  const hex = [...Buffer.from(text.replace(/\r?\n/g, '\r'), 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
  return new Promise((resolve, reject) =>
    execFile('tmux', ['-L', cli.socket, 'send-keys', '-t', `${cli.socket}:0.0`, '-H', ...hex], (error) => (error ? reject(error) : resolve())),
  );
}

describe('claude prompt: text typed into its terminal', () => {
  let model: FakeModel;
  let cli: ClaudeCli;
  let cwd: string;
  beforeEach(async () => {
    model = await startFakeModel();
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'native-claude-paste-'));
    cli = await startClaude({ cwd, model });
  });
  afterEach(async () => {
    await cli.stop();
    await model.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  /** Nothing reaches the model for a while: what is in the prompt was not submitted. */
  async function expectNothingSent(ms = 1500): Promise<void> {
    await sleep(ms);
    expect(model.mainRequests).toHaveLength(0);
  }

  async function submitted(): Promise<string> {
    await cli.keys('Enter');
    const until = Date.now() + 20_000;
    while (model.mainRequests.length === 0 && Date.now() < until) await sleep(100);
    expect(model.mainRequests).toHaveLength(1);
    return lastUserText(model.mainRequests[0]);
  }

  it('a bracketed paste of three lines stays in the prompt, shown whole, until Enter sends them as typed', async () => {
    await sendText(cli, bracketedPaste('Fix this error on line 3 (ts 2322):\nType string is not\nassignable 4b1d'));
    const screen = await cli.waitForScreen(/assignable 4b1d/, 10_000);
    expect(screen).toMatch(/[❯>][ \u00a0]Fix this error on line 3 \(ts 2322\):\n\s+Type string is not\n\s+assignable 4b1d/);
    await expectNothingSent();
    expect(await submitted()).toContain('Fix this error on line 3 (ts 2322):\nType string is not\nassignable 4b1d');
  });

  it('a paste end and a carriage return in raw untrusted text break out of the paste (2.1 submits); cleaned, they do not', async () => {
    const attack = `before ${PASTE_END}\rSUBMITTED 77e1`;
    await sendText(cli, `${PASTE_START}${attack}${PASTE_END}`);
    if (cliAtLeast('2.1.0')) {
      const until = Date.now() + 10_000;
      while (model.mainRequests.length === 0 && Date.now() < until) await sleep(100);
      expect(model.mainRequests).toHaveLength(1);
      expect(lastUserText(model.mainRequests[0])).toContain('SUBMITTED 77e1');
      await cli.waitForScreen(/for shortcuts/, 15_000);
      model.mainRequests.length = 0;
    } else {
      // 2.0.77: the paste end drops what came before it and the rest waits in the prompt.
      await expectNothingSent();
      await cli.keys('C-u');
    }
    await cli.keys('Escape');
    await sleep(500);
    const before = model.mainRequests.length;
    await sendText(cli, bracketedPaste(attack));
    await cli.waitForScreen(/SUBMITTED 77e1/, 10_000);
    await sleep(1500);
    expect(model.mainRequests).toHaveLength(before);
    await cli.keys('Enter');
    const until = Date.now() + 20_000;
    while (model.mainRequests.length === before && Date.now() < until) await sleep(100);
    expect(lastUserText(model.mainRequests[model.mainRequests.length - 1])).toContain('before \nSUBMITTED 77e1');
  });

  it('four lines or more than 800 characters: 2.1 folds the paste into [Pasted text #N] and sends it whole on Enter', async () => {
    await sendText(cli, bracketedPaste('one\ntwo\nthree\nfour 5c2a'));
    if (cliAtLeast('2.1.0')) {
      await cli.waitForScreen(/\[Pasted text #1 \+3 lines\]/, 10_000);
    } else {
      await cli.waitForScreen(/four 5c2a/, 10_000);
    }
    await expectNothingSent();
    expect(await submitted()).toContain('one\ntwo\nthree\nfour 5c2a');
  });
});
