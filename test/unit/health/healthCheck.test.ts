import { checkSetup, HEALTH_COMMANDS, type SetupFacts } from '../../../src/health/checkSetup';
import { allFindings, problems } from '../../../src/health/findings';
import { renderHealthHtml } from '../../../src/health/renderHealth';
import { cliVersionSupport, matchesToolLevelRules } from '../../../src/util/cliVersion';
import { toolsRouteEntry } from '../../../src/cliSetup/toolsRouteEntry';
import { foldersOverlap } from '../../../src/health/lockFiles';

const WS = '/home/u/project';
const PORT = 41234;
const PID = 777;

/** A setup where everything is right; each test breaks one thing. */
function healthy(): SetupFacts {
  return {
    workspaceFolders: [WS],
    server: { running: true, port: PORT, lockFilePath: `/home/u/.claude/ide/${PORT}.lock`, listening: true },
    lockFiles: [
      { path: `/home/u/.claude/ide/${PORT}.lock`, port: PORT, mode: 0o600, pid: PID, pidAlive: true, workspaceFolders: [WS], ideName: 'Visual Studio Code' },
    ],
    lockPid: PID,
    terminals: [{ name: 'bash', ssePort: String(PORT) }],
    providesTerminalPort: true,
    cli: { command: 'claude', path: '/usr/bin/claude', version: '2.1.328 (Claude Code)' },
    userConfig: { file: '/home/u/.claude.json', exists: true, content: { mcpServers: { vscode: toolsRouteEntry() } } },
    settings: [{ scope: 'user', file: '/home/u/.claude/settings.json', exists: false }],
    toolsRoute: { serverName: 'vscode', expectedEntry: toolsRouteEntry(), entry: toolsRouteEntry(), reachable: true },
    suggestedRules: [],
    approvalMode: { effective: 'write-only', user: 'write-only' },
  };
}
const ids = (facts: SetupFacts) => allFindings(checkSetup(facts)).map((f) => f.id);
const find = (facts: SetupFacts, id: string) => allFindings(checkSetup(facts)).find((f) => f.id === id);

describe('health check', () => {
  test('a healthy setup has no problems, and says what it checked', () => {
    const report = checkSetup(healthy());
    expect(problems(report)).toEqual([]);
    expect(ids(healthy())).toEqual(['server.ok', 'lockFile.ok', 'terminals.ok', 'cli.ok', 'tools.entry', 'tools.reachable']);
  });

  test('terminals without CLAUDE_CODE_SSE_PORT: named, with a relaunch fix for exactly those', () => {
    const facts = healthy();
    facts.terminals = [
      { name: 'old zsh', ssePort: null },
      { name: 'bash', ssePort: String(PORT) },
      { name: 'task', ssePort: undefined },
    ];
    const finding = find(facts, 'terminals.missingPort')!;
    expect(finding.severity).toBe('warning');
    expect(finding.title).toMatch(/1 terminal opened before the IDE server started lacks CLAUDE_CODE_SSE_PORT/);
    expect(finding.fixes).toEqual([{ label: 'Relaunch these terminals', command: HEALTH_COMMANDS.relaunchTerminals, args: [['old zsh']] }]);
  });

  test('a terminal pointing at another port is reported separately', () => {
    const facts = healthy();
    facts.terminals = [{ name: 'x', ssePort: '5555' }];
    expect(find(facts, 'terminals.otherPort')?.detail?.[0]).toMatch(/"x" → 5555/);
  });

  test('another live lock file listing the folder: who wrote it and what the CLI does', () => {
    const facts = healthy();
    facts.lockFiles.push({
      path: '/home/u/.claude/ide/5000.lock',
      port: 5000,
      mode: 0o644,
      pid: PID,
      pidAlive: true,
      workspaceFolders: [WS],
      ideName: 'Visual Studio Code',
    });
    facts.anthropicExtension = { version: '1.0.109', active: true };
    const finding = find(facts, 'lockFiles.competing')!;
    expect(finding.title).toBe("Another IDE lists this folder: Anthropic's Claude Code extension in this VS Code (port 5000)");
    expect(finding.detail!.join(' ')).toMatch(/connects to neither by itself; \/ide lets you pick/);
    expect(find(facts, 'coexistence.both')?.fixes?.[0].command).toBe(HEALTH_COMMANDS.chooseIdeExtension);
  });

  test("once the user chose, Anthropic's lock file is no longer a warning (nothing to offer at start-up); chosen Anthropic's, it is the one serving", () => {
    const theirs = {
      path: '/home/u/.claude/ide/5000.lock',
      port: 5000,
      mode: 0o644,
      pid: PID,
      pidAlive: true,
      workspaceFolders: [WS],
      ideName: 'Visual Studio Code',
    };
    const chosenThis = healthy();
    chosenThis.lockFiles.push(theirs);
    chosenThis.anthropicExtension = { version: '1.0.109', active: true, choice: 'this' };
    const competing = find(chosenThis, 'lockFiles.competing')!;
    expect(competing.severity).toBe('info');
    expect(competing.detail!.join(' ')).toMatch(/You chose Native Claude for this workspace/);
    expect(problems(checkSetup(chosenThis)).map((f) => f.id)).toEqual([]);

    const chosenTheirs = healthy();
    chosenTheirs.server = { running: false };
    chosenTheirs.providesTerminalPort = false;
    chosenTheirs.lockFiles = [theirs];
    chosenTheirs.anthropicExtension = { version: '1.0.109', active: true, choice: 'anthropic' };
    expect(find(chosenTheirs, 'lockFiles.competing')).toBeUndefined();
    expect(find(chosenTheirs, 'lockFiles.anthropic')).toMatchObject({
      severity: 'info',
      title: "Anthropic's Claude Code extension serves this folder (port 5000)",
    });
    expect(problems(checkSetup(chosenTheirs)).map((f) => f.id)).toEqual([]);

    // Undecided, it stays a warning.
    const undecided = healthy();
    undecided.lockFiles.push(theirs);
    undecided.anthropicExtension = { version: '1.0.109', active: true };
    expect(find(undecided, 'lockFiles.competing')?.severity).toBe('warning');
  });

  test('a parent folder counts as competing; an unrelated folder does not; another window (0600, same pid) is named', () => {
    const facts = healthy();
    facts.lockFiles.push({ path: '/l/1.lock', port: 1, mode: 0o600, pid: PID, pidAlive: true, workspaceFolders: ['/home/u'] });
    facts.lockFiles.push({ path: '/l/2.lock', port: 2, mode: 0o600, pid: PID, pidAlive: true, workspaceFolders: ['/home/u/other'] });
    const competing = allFindings(checkSetup(facts)).filter((f) => f.id === 'lockFiles.competing');
    expect(competing.map((f) => f.title)).toEqual(['Another IDE lists this folder: another window of this VS Code (port 1)']);
  });

  test('a stale lock file (dead pid) gets a delete fix with its path', () => {
    const facts = healthy();
    facts.lockFiles.push({ path: '/l/9.lock', port: 9, mode: 0o644, pid: 999999, pidAlive: false, workspaceFolders: [WS] });
    expect(find(facts, 'lockFiles.stale')?.fixes).toEqual([{ label: 'Delete it', command: HEALTH_COMMANDS.deleteStaleLockFile, args: ['/l/9.lock'] }]);
  });

  test('our lock file missing, with a dead pid, or without a folder of the window', () => {
    const missing = healthy();
    missing.lockFiles = [];
    expect(find(missing, 'lockFile.missing')?.severity).toBe('error');
    const dead = healthy();
    dead.lockFiles[0].pidAlive = false;
    expect(find(dead, 'lockFile.bad')?.detail?.join(' ')).toMatch(/pid is not a live process/);
    const folder = healthy();
    folder.workspaceFolders = [WS, '/srv/two'];
    expect(find(folder, 'lockFile.bad')?.detail?.join(' ')).toMatch(/Not listed: \/srv\/two/);
  });

  test('server stopped: error with Start fix, and no terminal or lock-file findings', () => {
    const facts = healthy();
    facts.server = { running: false, startError: 'EACCES' };
    expect(ids(facts)).toContain('server.stopped');
    expect(find(facts, 'server.stopped')?.detail).toEqual(['It failed to start: EACCES']);
    expect(ids(facts)).not.toContain('terminals.ok');
  });

  test('claude missing from PATH, too old, too new', () => {
    const none = healthy();
    none.cli = { command: 'claude' };
    expect(find(none, 'cli.notFound')?.severity).toBe('error');
    const old = healthy();
    old.cli.version = '1.0.100';
    expect(find(old, 'cli.too-old')?.title).toMatch(/outside the supported range \(1\.0\.128 or newer, below 3\.0\.0\)/);
    const young = healthy();
    young.cli.version = '3.0.1 (Claude Code)';
    expect(ids(young)).toContain('cli.too-new');
  });

  test('CLI settings that hide the review: diffTool terminal, defaultMode acceptEdits/bypass/auto; autoConnectIde explained', () => {
    const facts = healthy();
    facts.userConfig.content = { ...facts.userConfig.content, diffTool: 'terminal', autoConnectIde: true };
    facts.settings = [
      { scope: 'user', file: '/u/settings.json', exists: true, content: { permissions: { defaultMode: 'acceptEdits' } } },
      { scope: 'project', file: `${WS}/.claude/settings.json`, exists: true, content: { permissions: { defaultMode: 'bypassPermissions' } } },
      { scope: 'local', file: `${WS}/.claude/settings.local.json`, exists: true, content: { permissions: { defaultMode: 'default' } } },
    ];
    const report = checkSetup(facts);
    expect(problems(report).map((f) => f.title)).toEqual([
      'diffTool is "terminal": edits are shown in the terminal, never in VS Code\'s review diff',
      'permissions.defaultMode is "acceptEdits" (user settings): claude edits without asking, so no review diff opens',
      'permissions.defaultMode is "bypassPermissions" (project settings): claude edits without asking, so no review diff opens',
    ]);
    expect(find(facts, 'config.diffTool')?.fixes).toEqual([{ label: 'Open .claude.json', command: HEALTH_COMMANDS.openFile, args: ['/home/u/.claude.json'] }]);
    expect(ids(facts)).toContain('config.autoConnectIde');
  });

  test('tools route: missing, outdated, unreachable; permission rules offered when missing', () => {
    const missing = healthy();
    missing.toolsRoute.entry = undefined;
    expect(find(missing, 'tools.missing')?.fixes?.[0].command).toBe(HEALTH_COMMANDS.enableTools);
    const old = healthy();
    old.toolsRoute.entry = {
      type: 'ws',
      url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools/',
      headers: { 'x-claude-code-ide-authorization': '${NATIVE_CLAUDE_TOKEN}' },
    };
    expect(ids(old)).toContain('tools.outdated');
    const theirs = healthy(); // the user's own server under the name: never offered for "Rewrite it"
    theirs.toolsRoute.entry = { type: 'stdio', command: 'my-vscode-mcp', env: { API_TOKEN: 'secret' } };
    expect(ids(theirs)).not.toContain('tools.outdated');
    expect(find(theirs, 'tools.foreign')?.title).toMatch(/is an MCP server of your own \(stdio: my-vscode-mcp\), not VS Code's tools/);
    expect(JSON.stringify(find(theirs, 'tools.foreign'))).not.toContain('secret');
    const down = healthy();
    down.toolsRoute.reachable = false;
    down.toolsRoute.reachError = 'HTTP 401';
    expect(find(down, 'tools.unreachable')?.detail).toEqual(['HTTP 401']);
    const rules = healthy();
    rules.suggestedRules = ['mcp__vscode__read_file'];
    expect(find(rules, 'tools.permissionRules')?.fixes?.[0].command).toBe(HEALTH_COMMANDS.addPermissionRules);
    rules.settings = [{ scope: 'user', file: '/u/settings.json', exists: true, content: { permissions: { allow: ['mcp__vscode__read_file'] } } }];
    expect(ids(rules)).not.toContain('tools.permissionRules');
  });

  test("chose Anthropic's extension: says so, offers to switch back, and flags no missing server", () => {
    const facts = healthy();
    facts.server = { running: false };
    facts.providesTerminalPort = false;
    facts.anthropicExtension = { version: '1.0.109', active: true, choice: 'anthropic' };
    expect(ids(facts)).toContain('coexistence.anthropic');
    expect(ids(facts)).not.toContain('server.stopped');
  });

  test('the page: every finding and its fix as a command link; text is escaped', () => {
    const facts = healthy();
    facts.terminals = [{ name: '<b>x</b>', ssePort: null }];
    const html = renderHealthHtml(checkSetup(facts), { refreshCommand: HEALTH_COMMANDS.checkSetup, generatedAt: new Date(0) });
    expect(html).toContain('data-id="terminals.missingPort"');
    expect(html).toContain(`href="command:${HEALTH_COMMANDS.relaunchTerminals}?${encodeURIComponent(JSON.stringify([['<b>x</b>']])).replace(/'/g, '&#39;')}"`);
    expect(html).toContain('&quot;&lt;b&gt;x&lt;/b&gt;&quot;');
    expect(html).not.toContain('<b>x</b>');
    expect(html).not.toMatch(/<script/);
  });

  describe('allow rules the approval mode does not back (issue 22, finding 6)', () => {
    const USER = '/home/u/.claude/settings.json';
    const withRules = (allow: unknown[], effective: SetupFacts['approvalMode']['effective'], user = effective) => {
      const facts = healthy();
      facts.settings = [{ scope: 'user', file: USER, exists: true, content: { permissions: { allow } } }];
      facts.approvalMode = { effective, user };
      return facts;
    };
    const unconfirmed = (facts: SetupFacts) => allFindings(checkSetup(facts)).filter((f) => f.id === 'tools.rulesUnconfirmed');

    test('rules added under "always" keep execute_command unprompted after a switch back to write-only: said, with both fixes', () => {
      const facts = withRules(['mcp__vscode__read_file', 'mcp__vscode__write_file', 'mcp__vscode__execute_command'], 'write-only');
      const [finding, ...rest] = unconfirmed(facts);
      expect(rest).toEqual([]);
      expect(finding).toMatchObject({
        severity: 'warning',
        title: expect.stringMatching(/^execute_command runs shell commands without anyone asking in this window/),
      });
      expect(finding.detail!.join(' ')).toMatch(/mcp__vscode__execute_command in permissions\.allow of \/home\/u\/\.claude\/settings\.json/);
      expect(finding.detail!.join(' ')).toMatch(/set nativeClaude\.approvalMode to "always" in your user settings/);
      expect(finding.fixes).toEqual([
        { label: 'Open user settings', command: HEALTH_COMMANDS.openFile, args: [USER] },
        { label: 'Change nativeClaude.approvalMode', command: HEALTH_COMMANDS.openSettings, args: ['nativeClaude.approvalMode'] },
      ]);
      expect(problems(checkSetup(facts)).map((f) => f.id)).toContain('tools.rulesUnconfirmed');
    });

    test('write rules under "never": writes confirmed nowhere; the whole-server rule counts for both', () => {
      expect(unconfirmed(withRules(['mcp__vscode__apply_diff'], 'never')).map((f) => f.title)).toEqual([
        expect.stringMatching(/^write_file, apply_diff and rename_symbol change files/),
      ]);
      expect(unconfirmed(withRules(['mcp__vscode'], 'never'))).toHaveLength(2);
      expect(unconfirmed(withRules(['mcp__vscode__*'], 'write-only'))).toHaveLength(1);
    });

    test('rules the mode backs say nothing', () => {
      expect(unconfirmed(withRules(['mcp__vscode__write_file', 'mcp__vscode__apply_diff', 'mcp__vscode__read_file'], 'write-only'))).toEqual([]);
      expect(unconfirmed(withRules(['mcp__vscode', 'mcp__vscode__execute_command'], 'always'))).toEqual([]);
      expect(unconfirmed(withRules(['mcp__vscode__execute_command'], 'always'))).toEqual([]);
      expect(unconfirmed(withRules(['mcp__other__execute_command', 'Bash(ls:*)', 42], 'never'))).toEqual([]);
    });

    test('a workspace that asks for more covers this window, not the other projects the user-wide rule holds for', () => {
      const [finding] = unconfirmed(withRules(['mcp__vscode__execute_command'], 'always', 'write-only'));
      expect(finding.title).toMatch(/in workspaces that do not set it \(your user setting\)/);
    });
  });

  test('supported range and rule forms', () => {
    expect(cliVersionSupport('2.1.328 (Claude Code)')).toBe('supported');
    expect(cliVersionSupport('1.0.128')).toBe('supported');
    expect(cliVersionSupport('1.0.127')).toBe('too-old');
    expect(cliVersionSupport('nonsense')).toBe('unknown');
    expect(matchesToolLevelRules('1.0.109')).toBe(false);
    expect(matchesToolLevelRules('2.0.0')).toBe(true);
    expect(foldersOverlap('/a/b', '/a/b/c')).toBe(true);
    expect(foldersOverlap('/a/b', '/a/bc')).toBe(false);
  });
});
