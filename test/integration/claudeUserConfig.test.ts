import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClaudeUserConfig, UnreadableConfigError, claudeUserConfigPath } from '../../src/route/claudeUserConfig';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/route/toolsRouteEntry';

describe('ClaudeUserConfig (the CLI\'s ~/.claude.json)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-userconfig-'));
    file = path.join(dir, '.claude.json');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  test('location: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json', () => {
    expect(claudeUserConfigPath({ CLAUDE_CONFIG_DIR: '/c' }, '/h')).toBe('/c/.claude.json');
    expect(claudeUserConfigPath({}, '/h')).toBe('/h/.claude.json');
  });

  test('adds the entry and keeps everything else, including other servers and the file mode', async () => {
    const original = { numStartups: 7, projects: { '/p': { hasTrustDialogAccepted: true } }, mcpServers: { other: { type: 'stdio', command: 'x' } } };
    await fs.writeFile(file, JSON.stringify(original), { mode: 0o600 });
    const config = new ClaudeUserConfig(file);
    await expect(config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry())).resolves.toBe(true);
    const written = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(written).toEqual({ ...original, mcpServers: { ...original.mcpServers, vscode: toolsRouteEntry() } });
    expect(written.mcpServers.vscode).toEqual({
      type: 'ws',
      url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools',
      headers: { 'X-Claude-Code-Ide-Authorization': '${NATIVE_CLAUDE_TOKEN}' },
    });
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await expect(config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry())).resolves.toBe(false); // idempotent
  });

  test('creates the file when the CLI has never run', async () => {
    await new ClaudeUserConfig(file).setServer('vscode', toolsRouteEntry());
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ mcpServers: { vscode: toolsRouteEntry() } });
  });

  test('never touches a file it cannot parse', async () => {
    await fs.writeFile(file, '{ "broken": ');
    const config = new ClaudeUserConfig(file);
    await expect(config.setServer('vscode', toolsRouteEntry())).rejects.toThrow(UnreadableConfigError);
    await expect(config.removeServer('vscode')).rejects.toThrow(/not valid JSON.*left unchanged/);
    expect(await fs.readFile(file, 'utf8')).toBe('{ "broken": ');
    await fs.writeFile(file, '[1,2]');
    await expect(config.setServer('vscode', toolsRouteEntry())).rejects.toThrow(/does not hold a JSON object/);
    expect(await fs.readFile(file, 'utf8')).toBe('[1,2]');
  });

  test('removes only its own entry', async () => {
    await fs.writeFile(file, JSON.stringify({ keep: 1, mcpServers: { vscode: toolsRouteEntry(), other: { type: 'http', url: 'u' } } }));
    const config = new ClaudeUserConfig(file);
    await expect(config.removeServer('vscode')).resolves.toBe(true);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ keep: 1, mcpServers: { other: { type: 'http', url: 'u' } } });
    await expect(config.removeServer('vscode')).resolves.toBe(false);
    await expect(config.getServer('vscode')).resolves.toBeUndefined();
  });
});
