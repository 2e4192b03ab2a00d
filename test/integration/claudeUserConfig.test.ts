import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { ClaudeUserConfig } from '../../src/cliSetup/claudeUserConfig';
import { claudeUserConfigPath } from '../../src/otherPrograms/claudeConfigDir';
import { UnusableFileError } from '../../src/otherPrograms/foreignFile';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';

describe("ClaudeUserConfig (the CLI's ~/.claude.json)", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-userconfig-'));
    file = path.join(dir, '.claude.json');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  test('location: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json', () => {
    expect(claudeUserConfigPath({ CLAUDE_CONFIG_DIR: '/c' }, '/h', () => undefined)).toBe('/c/.claude.json');
    expect(claudeUserConfigPath({}, '/h', () => undefined)).toBe('/h/.claude.json');
    expect(claudeUserConfigPath({ CLAUDE_CODE_CUSTOM_OAUTH_URL: 'https://x' }, '/h', () => undefined)).toBe('/h/.claude-custom-oauth.json');
  });

  test('location: the legacy <config dir>/.config.json while it holds data, as the CLI decides', async () => {
    const home = dir;
    await fs.mkdir(path.join(home, '.claude'));
    const legacy = path.join(home, '.claude', '.config.json');
    expect(claudeUserConfigPath({}, home)).toBe(path.join(home, '.claude.json'));
    await fs.writeFile(legacy, '{"numStartups":1}');
    expect(claudeUserConfigPath({}, home)).toBe(legacy);
    await fs.writeFile(path.join(home, '.claude.json'), '{}');
    expect(claudeUserConfigPath({}, home)).toBe(legacy); // data in the legacy file wins
    await fs.writeFile(legacy, '');
    expect(claudeUserConfigPath({}, home)).toBe(path.join(home, '.claude.json')); // empty legacy, current exists
    await fs.rm(path.join(home, '.claude.json'));
    expect(claudeUserConfigPath({}, home)).toBe(legacy); // empty writable legacy, no current file
    const configDir = path.join(home, 'cfg');
    await fs.mkdir(configDir);
    await fs.writeFile(path.join(configDir, '.config.json'), '{"a":1}');
    expect(claudeUserConfigPath({ CLAUDE_CONFIG_DIR: configDir }, home)).toBe(path.join(configDir, '.config.json'));
  });

  test('an empty file is never taken for {}: left as it is, with what to do', async () => {
    await fs.writeFile(file, '');
    const config = new ClaudeUserConfig(file, { unreadableGraceMs: 50 });
    await expect(config.setServer('vscode', toolsRouteEntry())).rejects.toThrow(/is empty, so it was left unchanged.*Run claude once.*backup/);
    await expect(config.removeServer('vscode')).rejects.toThrow(UnusableFileError);
    await expect(config.getServer('vscode')).rejects.toThrow(UnusableFileError);
    expect(await fs.readFile(file, 'utf8')).toBe('');
  });

  test('a symlinked file (dotfile managers) stays a link; the write goes to its target with its mode', async () => {
    const dotfiles = path.join(dir, 'dotfiles');
    await fs.mkdir(dotfiles);
    const target = path.join(dotfiles, 'claude.json');
    await fs.writeFile(target, JSON.stringify({ keep: true }), { mode: 0o640 });
    await fs.chmod(target, 0o640);
    await fs.symlink(target, file);
    await new ClaudeUserConfig(file).setServer('vscode', toolsRouteEntry());
    expect((await fs.lstat(file)).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await fs.readFile(target, 'utf8'))).toEqual({ keep: true, mcpServers: { vscode: toolsRouteEntry() } });
    expect((await fs.stat(target)).mode & 0o777).toBe(0o640);
    expect((await fs.readdir(dotfiles)).sort()).toEqual(['claude.json']); // no temp file left
    expect((await fs.readdir(dir)).sort()).toEqual(['.claude.json', 'dotfiles']); // the lock is gone too
  });

  test("waits for the CLI's lock (<file>.lock, proper-lockfile) and writes on what is there when it gets it", async () => {
    await fs.writeFile(file, JSON.stringify({ a: 1 }));
    const release = await lockfile.lock(file, { lockfilePath: `${file}.lock`, realpath: false });
    const config = new ClaudeUserConfig(file);
    // The module itself (not this file's import copy), so the writer's calls are seen too.
    const attempts = jest.spyOn(require('proper-lockfile') as typeof lockfile, 'lock'); // eslint-disable-line @typescript-eslint/no-require-imports -- the module object itself, see above;
    let done = false;
    const pending = config.setServer('vscode', toolsRouteEntry()).then((r) => ((done = true), r));
    // Tried the lock, found it held, and tried again: it waits for the lock.
    for (const deadline = Date.now() + 3000; attempts.mock.calls.length < 2 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 5));
    const tries = attempts.mock.calls.length;
    attempts.mockRestore();
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(done).toBe(false); // held back by the lock
    await fs.writeFile(file, JSON.stringify({ a: 1, b: 2 })); // what the lock holder wrote
    await release();
    await expect(pending).resolves.toBe(true);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ a: 1, b: 2, mcpServers: { vscode: toolsRouteEntry() } });
  });

  test('a lock held longer than the wait is reported, nothing written', async () => {
    await fs.writeFile(file, '{"a":1}');
    const release = await lockfile.lock(file, { lockfilePath: `${file}.lock`, realpath: false });
    try {
      await expect(new ClaudeUserConfig(file, { lockWaitMs: 200 }).setServer('vscode', toolsRouteEntry())).rejects.toThrow(
        /is locked by another program.*nothing was changed/,
      );
      expect(await fs.readFile(file, 'utf8')).toBe('{"a":1}');
    } finally {
      await release();
    }
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
    await expect(config.setServer('vscode', toolsRouteEntry())).rejects.toThrow(UnusableFileError);
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
