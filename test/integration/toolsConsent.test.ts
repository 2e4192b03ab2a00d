import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClaudeUserConfig } from '../../src/route/claudeUserConfig';
import { ToolsConsent, type ConsentStore } from '../../src/route/toolsConsent';
import { toolsRouteEntry } from '../../src/route/toolsRouteEntry';
import { memoryLogger } from '../../src/util/logger';

function setup(answer: string | undefined) {
  const values = new Map<string, unknown>();
  const state: ConsentStore = { get: <T>(k: string) => values.get(k) as T | undefined, update: async (k, v) => void values.set(k, v) };
  const ui = { asked: 0, informed: [] as string[], failed: [] as string[] };
  const uiImpl = {
    ask: async () => (ui.asked++, answer),
    inform: (m: string) => void ui.informed.push(m),
    fail: (m: string) => void ui.failed.push(m),
  };
  return { values, state, ui, uiImpl };
}

describe('tools consent', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-consent-'));
    file = path.join(dir, '.claude.json');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  test('Enable writes the entry and is remembered; no second question', async () => {
    const { state, ui, uiImpl } = setup('Enable');
    const consent = new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file));
    await consent.offerOnce();
    await consent.offerOnce();
    expect(ui.asked).toBe(1);
    expect(JSON.parse(await fs.readFile(file, 'utf8')).mcpServers.vscode).toEqual(toolsRouteEntry());
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce(); // another window
    expect(ui.asked).toBe(1);
  });

  test('Not Now asks once per window and writes nothing', async () => {
    const { state, ui, uiImpl } = setup('Not Now');
    const consent = new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file));
    await consent.offerOnce();
    await consent.offerOnce(); // the next connection change in the same window
    expect(ui.asked).toBe(1);
    await expect(fs.access(file)).rejects.toThrow();
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce(); // a new window asks again
    expect(ui.asked).toBe(2);
  });

  test("Don't Ask Again is remembered across windows", async () => {
    const { state, ui, uiImpl } = setup("Don't Ask Again");
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce();
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce();
    expect(ui.asked).toBe(1);
  });

  test('an entry already there counts as consent, without asking', async () => {
    await new ClaudeUserConfig(file).setServer('vscode', toolsRouteEntry());
    const { state, ui, uiImpl, values } = setup(undefined);
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce();
    expect(ui.asked).toBe(0);
    expect(values.get('nativeClaude.toolsConsent')).toBe('enabled');
  });

  test('an unparsable config: a clear failure, the file untouched', async () => {
    await fs.writeFile(file, '{ nope');
    const { state, ui, uiImpl } = setup('Enable');
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).enable();
    expect(ui.failed).toEqual([expect.stringMatching(/not valid JSON.*left unchanged/)]);
    expect(await fs.readFile(file, 'utf8')).toBe('{ nope');
  });

  test('remove takes the entry out and remembers the decline', async () => {
    await new ClaudeUserConfig(file).setServer('vscode', toolsRouteEntry());
    const { state, uiImpl, values } = setup(undefined);
    await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).remove();
    expect(JSON.parse(await fs.readFile(file, 'utf8')).mcpServers).toEqual({});
    expect(values.get('nativeClaude.toolsConsent')).toBe('declined');
  });

  test('after Enable (and only after it succeeds) the permission-rules offer runs', async () => {
    const { state, uiImpl } = setup('Enable');
    const consent = new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file));
    const offered: string[] = [];
    consent.onEnabled = async () => void offered.push(JSON.parse(await fs.readFile(file, 'utf8')).mcpServers.vscode.type);
    await consent.offerOnce();
    expect(offered).toEqual(['ws']); // the entry is written first
    await fs.writeFile(file, '{ not json');
    const broken = new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file));
    broken.onEnabled = consent.onEnabled;
    await broken.enable();
    expect(offered).toEqual(['ws']);
  });
});
