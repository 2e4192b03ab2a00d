import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClaudeUserConfig } from '../../src/cliSetup/claudeUserConfig';
import { replaceChoice, ToolsConsent, USE_ALTERNATE_CHOICE, type ConsentStore } from '../../src/cliSetup/toolsConsent';
import { toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { memoryLogger } from '../../src/util/logger';

function setup(answer: string | undefined) {
  const values = new Map<string, unknown>();
  const state: ConsentStore = { get: <T>(k: string) => values.get(k) as T | undefined, update: async (k, v) => void values.set(k, v) };
  const ui = { asked: 0, questions: [] as Array<{ question: string; choices: string[] }>, informed: [] as string[], failed: [] as string[] };
  const uiImpl = {
    ask: async (question: string, ...choices: string[]) => (ui.asked++, ui.questions.push({ question, choices }), answer),
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

  describe('a server of the user\'s own named "vscode"', () => {
    const theirs = { type: 'stdio', command: 'my-vscode-mcp', args: ['--stdio'], env: { API_TOKEN: 'secret-token' } };
    const seed = () => fs.writeFile(file, JSON.stringify({ numStartups: 2, mcpServers: { vscode: theirs } }, null, 2));
    const servers = async () => JSON.parse(await fs.readFile(file, 'utf8')).mcpServers;

    test('is not taken for consent: the user is asked, told what is there (never its env), and nothing is written unasked', async () => {
      await seed();
      const { state, ui, uiImpl, values } = setup('Not Now');
      await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce();
      expect(values.get('nativeClaude.toolsConsent')).toBeUndefined();
      expect(ui.questions).toHaveLength(1);
      expect(ui.questions[0].question).toMatch(/already has an MCP server of yours named "vscode" \(stdio: my-vscode-mcp\)/);
      expect(ui.questions[0].question).not.toContain('secret-token');
      expect(ui.questions[0].choices).toEqual([USE_ALTERNATE_CHOICE, replaceChoice('vscode'), 'Not Now', "Don't Ask Again"]);
      expect(await servers()).toEqual({ vscode: theirs });
    });

    test('Enable (the command) does not overwrite it: it asks; "Use vscode-native" adds the tools beside it, and everything follows that name', async () => {
      await seed();
      const { state, ui, uiImpl, values } = setup(USE_ALTERNATE_CHOICE);
      const consent = new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file));
      await consent.enable();
      expect(ui.asked).toBe(1);
      expect(await servers()).toEqual({ vscode: theirs, 'vscode-native': toolsRouteEntry() });
      expect(values.get('nativeClaude.toolsConsent')).toBe('enabled');
      expect(consent.serverName()).toBe('vscode-native');
      expect(await consent.isEnabled()).toBe(true);
      expect(ui.informed).toEqual([expect.stringContaining('mcp__vscode-native__*')]);
      // Remove takes out only ours.
      await consent.remove();
      expect(await servers()).toEqual({ vscode: theirs });
      // A new window (same global state) finds nothing to ask: the decision was remembered.
      await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).offerOnce();
      expect(ui.asked).toBe(1);
    });

    test('"Replace My vscode Server" is the only way it is replaced; Cancel leaves it', async () => {
      await seed();
      const cancel = setup('Cancel');
      await new ToolsConsent(cancel.state, cancel.uiImpl, memoryLogger(), new ClaudeUserConfig(file)).enable();
      expect(await servers()).toEqual({ vscode: theirs });
      const replace = setup(replaceChoice('vscode'));
      await new ToolsConsent(replace.state, replace.uiImpl, memoryLogger(), new ClaudeUserConfig(file)).enable();
      expect(await servers()).toEqual({ vscode: toolsRouteEntry() });
    });

    test('Remove leaves it in place and says so', async () => {
      await seed();
      const { state, ui, uiImpl } = setup(undefined);
      await new ToolsConsent(state, uiImpl, memoryLogger(), new ClaudeUserConfig(file)).remove();
      expect(await servers()).toEqual({ vscode: theirs });
      expect(ui.informed).toEqual([expect.stringMatching(/is your own, not VS Code's tools, so it was left in place/)]);
    });

    test('the store itself refuses to replace or remove it when asked to keep foreign entries', async () => {
      await seed();
      const config = new ClaudeUserConfig(file);
      const isOurs = (e: unknown) => JSON.stringify(e) === JSON.stringify(toolsRouteEntry());
      await expect(config.setServer('vscode', toolsRouteEntry(), { replaceOnly: isOurs })).rejects.toThrow(
        /already has an MCP server named "vscode" that is not VS Code's tools; it was left unchanged/,
      );
      await expect(config.removeServer('vscode', { onlyIf: isOurs })).rejects.toThrow(/left unchanged/);
      expect(await servers()).toEqual({ vscode: theirs });
    });
  });
});
