/**
 * The tools entry in the CLI's ~/.claude.json, with the real claude CLI: registered through its own
 * `claude mcp add-json` (stdin on 2.1.x, argument on 2.0.x) with the `${VAR}` placeholders kept
 * verbatim, and the fallback editor racing the real CLI's own writes without ever losing a key.
 * Each test has its own HOME; nothing of the user's is touched.
 */
import { promises as fs } from 'node:fs';
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClaudeMcpCommand } from '../../src/cliSetup/claudeMcpCommand';
import { ClaudeUserConfig } from '../../src/cliSetup/claudeUserConfig';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { replaceChoice, ToolsConsent, USE_ALTERNATE_CHOICE } from '../../src/cliSetup/toolsConsent';
import { memoryLogger } from '../../src/util/logger';
import { LEAKY_ENV, claudeBinaryPath, nativeClaudeCacheDir } from './harness/claudeCli';

jest.setTimeout(240_000);

const BASE = { projects: { '/work/p': { hasTrustDialogAccepted: true } }, oauthAccount: { emailAddress: 'user@example.com' }, numStartups: 3 };

function cliEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!LEAKY_ENV.test(k)) env[k] = v;
  return { ...env, HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
}

/** A `claude` for 2.0.77, which is a Node script in the cache. */
async function claude2077(dir: string): Promise<string> {
  const cli = path.join(nativeClaudeCacheDir(), 'claude-2.0.77', 'node_modules', '@anthropic-ai', 'claude-code', 'cli.js');
  const wrapper = path.join(dir, 'claude-2.0.77');
  await fs.writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
  return wrapper;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env, timeout: 60_000 }, (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }));
    child.stdin?.end(stdin ?? '');
  });
}

describe('the tools entry through the real claude CLI', () => {
  let home: string;
  let file: string;
  beforeEach(async () => {
    home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-cli-userconfig-')));
    file = path.join(home, '.claude.json');
    await fs.writeFile(file, JSON.stringify(BASE, null, 2), { mode: 0o600 });
  });
  afterEach(() => fs.rm(home, { recursive: true, force: true }));

  for (const line of ['2.1.328', '2.0.77'] as const) {
    test(`claude ${line}: add-json stores the placeholders verbatim, keeps the rest and a symlink; remove removes`, async () => {
      const executable = line === '2.0.77' ? await claude2077(home) : claudeBinaryPath();
      // A dotfile manager's link: the CLI must write through it.
      const dotfiles = path.join(home, 'dotfiles');
      await fs.mkdir(dotfiles);
      await fs.rename(file, path.join(dotfiles, 'claude.json'));
      await fs.symlink(path.join(dotfiles, 'claude.json'), file);
      const log: string[] = [];
      const servers = new ClaudeMcpCommand(new ClaudeUserConfig(file), { executable, env: cliEnv(home), log: (m) => log.push(m) });

      expect(await servers.version()).toEqual(line.split('.').map(Number));
      await expect(servers.setServer(TOOLS_SERVER_NAME, toolsRouteEntry())).resolves.toBe(true);
      expect(log.join('\n')).toContain(line === '2.0.77' ? `mcp add-json vscode {"type":"ws"` : 'mcp add-json vscode - -s user → exit 0');
      const stored = JSON.parse(await fs.readFile(file, 'utf8'));
      expect(stored.mcpServers.vscode).toEqual({
        type: 'ws',
        url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools',
        headers: { 'X-Claude-Code-Ide-Authorization': '${NATIVE_CLAUDE_TOKEN}' },
      });
      expect(stored).toMatchObject(BASE);
      expect((await fs.lstat(file)).isSymbolicLink()).toBe(true);

      await expect(servers.setServer(TOOLS_SERVER_NAME, toolsRouteEntry())).resolves.toBe(false); // already so: the CLI is not run
      const changed = { ...toolsRouteEntry(), url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools?v=2' };
      await expect(servers.setServer(TOOLS_SERVER_NAME, changed)).resolves.toBe(true); // replace = remove + add
      await expect(servers.getServer(TOOLS_SERVER_NAME)).resolves.toEqual(changed);

      await expect(servers.removeServer(TOOLS_SERVER_NAME)).resolves.toBe(true);
      await expect(servers.removeServer(TOOLS_SERVER_NAME)).resolves.toBe(false);
      const after = JSON.parse(await fs.readFile(file, 'utf8'));
      expect(after.mcpServers?.vscode).toBeUndefined();
      expect(after).toMatchObject(BASE);
      expect((await fs.lstat(file)).isSymbolicLink()).toBe(true);
    });
  }

  test('the CLI refuses an empty ~/.claude.json; its message reaches the user and the file is left empty', async () => {
    await fs.writeFile(file, '');
    const servers = new ClaudeMcpCommand(new ClaudeUserConfig(file, { unreadableGraceMs: 50 }), { executable: claudeBinaryPath(), env: cliEnv(home) });
    await expect(servers.setServer(TOOLS_SERVER_NAME, toolsRouteEntry())).rejects.toThrow(/is empty, so it was left unchanged/);
    expect(await fs.readFile(file, 'utf8')).toBe('');
  });

  test('no usable claude: the file is edited with the lock protocol instead', async () => {
    const log: string[] = [];
    const servers = new ClaudeMcpCommand(new ClaudeUserConfig(file), {
      executable: path.join(home, 'no-such-claude'),
      env: cliEnv(home),
      log: (m) => log.push(m),
    });
    await expect(servers.setServer(TOOLS_SERVER_NAME, toolsRouteEntry())).resolves.toBe(true);
    expect(log.join('\n')).toMatch(/No usable ".*no-such-claude" \(ENOENT\); editing .* with claude's lock protocol instead/);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ ...BASE, mcpServers: { vscode: toolsRouteEntry() } });
  });

  test('race: the real CLI adding servers in a loop while the lock-protocol editor toggles its entry — no key lost, link kept', async () => {
    const rounds = Number(process.env.NC_CLI_RACE_ROUNDS ?? 25);
    const dotfiles = path.join(home, 'dotfiles');
    await fs.mkdir(dotfiles);
    await fs.rename(file, path.join(dotfiles, 'claude.json'));
    await fs.symlink(path.join(dotfiles, 'claude.json'), file);
    // The CLI gives up on a busy lock after ~0.2 s unless told to wait (its own message says so).
    const env = { ...cliEnv(home), CLAUDE_CODE_CONFIG_LOCK_WAIT_MS: '60000' };
    const config = new ClaudeUserConfig(file, { lockWaitMs: 30_000 });
    let cliDone = false;
    let toggles = 0;
    const cli = (async () => {
      const failures: string[] = [];
      for (let i = 0; i < rounds; i++) {
        const result = await run(
          claudeBinaryPath(),
          ['mcp', 'add-json', `cli${i}`, '-', '-s', 'user'],
          env,
          JSON.stringify({ type: 'http', url: `http://127.0.0.1:1/${i}` }),
        );
        if (result.code !== 0) failures.push(`cli${i}: ${result.stderr.trim()}`);
      }
      cliDone = true;
      return failures;
    })();
    while (!cliDone) {
      if (toggles % 2 === 0) await config.setServer(TOOLS_SERVER_NAME, toolsRouteEntry());
      else await config.removeServer(TOOLS_SERVER_NAME);
      toggles++;
      await new Promise((r) => setTimeout(r, Math.random() * 4)); // a gap, so the CLI's lock attempts can land
    }
    expect(await cli).toEqual([]);
    const final = JSON.parse(await fs.readFile(file, 'utf8'));
    const cliKeys = Object.keys(final.mcpServers).filter((k) => k.startsWith('cli'));

    console.log(
      `real CLI race: ${rounds} claude mcp add-json runs × ${toggles} locked edits of the vscode entry; ${cliKeys.length}/${rounds} CLI entries kept`,
    );
    expect(cliKeys.length).toBe(rounds);
    expect(final).toMatchObject(BASE);
    expect(toggles).toBeGreaterThan(rounds);
    expect((await fs.lstat(file)).isSymbolicLink()).toBe(true);
  });

  test('claude 2.1.328: a user\'s own "vscode" server is never removed by `claude mcp remove` unasked; the tools go beside it as "vscode-native", or replace it on request', async () => {
    const theirs = { type: 'stdio', command: 'my-vscode-mcp', args: ['--stdio'], env: { API_TOKEN: 'secret-token' } };
    await fs.writeFile(file, JSON.stringify({ ...BASE, mcpServers: { vscode: theirs } }, null, 2));
    const log: string[] = [];
    const consentWith = (answer: string) => {
      const values = new Map<string, unknown>();
      const asked: string[] = [];
      const servers = new ClaudeMcpCommand(new ClaudeUserConfig(file), { executable: claudeBinaryPath(), env: cliEnv(home), log: (m) => log.push(m) });
      const consent = new ToolsConsent(
        { get: <T>(k: string) => values.get(k) as T | undefined, update: async (k, v) => void values.set(k, v) },
        { ask: async (q) => (asked.push(q), answer), inform: () => undefined, fail: (m) => asked.push(`FAIL ${m}`) },
        memoryLogger(),
        servers,
      );
      return { consent, asked };
    };
    const stored = async () => JSON.parse(await fs.readFile(file, 'utf8')).mcpServers;

    const cancelled = consentWith('Cancel');
    await cancelled.consent.enable();
    await cancelled.consent.remove();
    expect(await stored()).toEqual({ vscode: theirs });
    expect(log.filter((m) => /mcp (remove|add-json)/.test(m))).toEqual([]); // the CLI was never asked to change it

    const alternate = consentWith(USE_ALTERNATE_CHOICE);
    await alternate.consent.enable();
    expect(await stored()).toEqual({ vscode: theirs, 'vscode-native': toolsRouteEntry() });
    expect(log.some((m) => /mcp add-json vscode-native/.test(m))).toBe(true);

    const replace = consentWith(replaceChoice('vscode'));
    await replace.consent.enable();
    expect((await stored()).vscode).toEqual(toolsRouteEntry());
  });
});
