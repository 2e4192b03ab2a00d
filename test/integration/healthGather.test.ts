import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkSetup } from '../../src/health/checkSetup';
import { allFindings } from '../../src/health/findings';
import { gatherSetupFacts, type EditorFacts } from '../../src/health/gatherFacts';
import { ADD_RULES_CHOICE, ClaudeUserSettings, offerPermissionRules, rulesToAdd } from '../../src/cliSetup/permissionRules';
import { UnusableFileError } from '../../src/otherPrograms/foreignFile';
import { toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { startTestServer, TEST_TOKEN } from '../support/serverFixture';

describe('health check on real files, a real PATH and a real server', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  let home: string;
  let ws: string;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-health-')));
    home = path.join(root, 'home');
    ws = path.join(root, 'ws');
    const bin = path.join(root, 'bin');
    for (const d of [home, ws, bin, path.join(home, '.claude', 'ide')]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\necho "2.1.328 (Claude Code)"\n', { mode: 0o755 });
    env = { PATH: bin, HOME: home };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const editor = (port: number, over: Partial<EditorFacts> = {}): EditorFacts => ({
    workspaceFolders: [ws],
    server: { running: true, port, token: TEST_TOKEN, lockFilePath: path.join(home, '.claude', 'ide', `${port}.lock`) },
    lockPid: process.pid,
    terminals: [],
    providesTerminalPort: true,
    claudeCommand: 'claude',
    approvalMode: { effective: 'write-only', user: 'write-only' },
    ...over,
  });
  const writeLock = (port: number, content: object, mode = 0o600) => {
    const file = path.join(home, '.claude', 'ide', `${port}.lock`);
    fs.writeFileSync(file, JSON.stringify(content), { mode });
    fs.chmodSync(file, mode);
  };

  test('finds our lock file, a competing one, claude on PATH with its version, the tools entry and the route accepting the token', async () => {
    const { server, port } = await startTestServer();
    try {
      writeLock(port, { pid: process.pid, workspaceFolders: [ws], ideName: 'Code', transport: 'ws', authToken: TEST_TOKEN });
      writeLock(port + 1, { pid: process.pid, workspaceFolders: [ws], ideName: 'Visual Studio Code', transport: 'ws', authToken: 'x' }, 0o644);
      fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ diffTool: 'terminal', mcpServers: { vscode: toolsRouteEntry() } }));
      const facts = await gatherSetupFacts(editor(port), { env, home });
      expect(facts.cli).toEqual({ command: 'claude', path: path.join(root, 'bin', 'claude'), version: '2.1.328 (Claude Code)' });
      expect(facts.lockFiles.map((l) => [l.port, l.mode, l.pidAlive])).toEqual([
        [port, 0o600, true],
        [port + 1, 0o644, true],
      ]);
      expect(facts.server.listening).toBe(true);
      expect(facts.toolsRoute.reachable).toBe(true);
      expect(facts.suggestedRules).toEqual(rulesToAdd('write-only', true));
      const found = allFindings(checkSetup(facts)).map((f) => f.id);
      expect(found).toEqual(
        expect.arrayContaining([
          'server.ok',
          'lockFile.ok',
          'lockFiles.competing',
          'cli.ok',
          'config.diffTool',
          'tools.entry',
          'tools.reachable',
          'tools.permissionRules',
        ]),
      );
    } finally {
      await server.stop();
    }
  });

  test("claude given as ~/bin/claude (the setting's own example form) is found and asked its version", async () => {
    fs.mkdirSync(path.join(home, 'bin'));
    fs.copyFileSync(path.join(root, 'bin', 'claude'), path.join(home, 'bin', 'claude'));
    const facts = await gatherSetupFacts(editor(1, { server: { running: false }, claudeCommand: '~/bin/claude --model opus' }), {
      env: { PATH: path.join(root, 'nothing'), HOME: home },
      home,
    });
    expect(facts.cli).toEqual({ command: path.join(home, 'bin', 'claude'), path: path.join(home, 'bin', 'claude'), version: '2.1.328 (Claude Code)' });
    expect(allFindings(checkSetup(facts)).map((f) => f.id)).toContain('cli.ok');
  });

  test('a wrong token is not "reachable"; claude missing from PATH is reported', async () => {
    const { server, port } = await startTestServer();
    try {
      const facts = await gatherSetupFacts(editor(port, { server: { running: true, port, token: 'wrong' } }), {
        env: { PATH: path.join(root, 'nothing') },
        home,
      });
      expect(facts.toolsRoute).toMatchObject({ reachable: false, reachError: 'HTTP 401' });
      expect(facts.cli).toEqual({ command: 'claude' });
    } finally {
      await server.stop();
    }
  });

  test('CLAUDE_CONFIG_DIR: lock files, ~/.claude.json and settings.json are read from there', async () => {
    const config = path.join(root, 'cfg');
    fs.mkdirSync(path.join(config, 'ide'), { recursive: true });
    fs.writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'auto' } }));
    fs.writeFileSync(path.join(config, 'ide', '7.lock'), JSON.stringify({ pid: 999_999_9, workspaceFolders: [ws], authToken: 'x' }));
    const facts = await gatherSetupFacts(editor(1, { server: { running: false } }), { env: { ...env, CLAUDE_CONFIG_DIR: config }, home });
    expect(facts.userConfig.file).toBe(path.join(config, '.claude.json'));
    const ids = allFindings(checkSetup(facts)).map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining(['settings.defaultMode', 'lockFiles.stale', 'server.stopped']));
  });
});

describe('permission rules in the CLI user settings', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-rules-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('which rules: read-only always; writes unless approvalMode never; commands only when VS Code asks; 1.0.x gets the server rule only with "always"', () => {
    expect(rulesToAdd('write-only', true)).toEqual([
      'mcp__vscode__read_file',
      'mcp__vscode__list_files',
      'mcp__vscode__search_files',
      'mcp__vscode__get_diagnostics',
      'mcp__vscode__find_definitions',
      'mcp__vscode__find_references',
      'mcp__vscode__describe_symbol',
      'mcp__vscode__file_outline',
      'mcp__vscode__find_symbols',
      'mcp__vscode__call_hierarchy',
      'mcp__vscode__write_file',
      'mcp__vscode__apply_diff',
      'mcp__vscode__rename_symbol',
    ]);
    expect(rulesToAdd('never', true)).toEqual([
      'mcp__vscode__read_file',
      'mcp__vscode__list_files',
      'mcp__vscode__search_files',
      'mcp__vscode__get_diagnostics',
      'mcp__vscode__find_definitions',
      'mcp__vscode__find_references',
      'mcp__vscode__describe_symbol',
      'mcp__vscode__file_outline',
      'mcp__vscode__find_symbols',
      'mcp__vscode__call_hierarchy',
    ]);
    expect(rulesToAdd('always', true)).toContain('mcp__vscode__execute_command');
    expect(rulesToAdd('always', false)).toEqual(['mcp__vscode']);
    expect(rulesToAdd('write-only', false)).toEqual([]);
  });

  test('adds only missing rules, keeps everything else and the file mode, leaves a broken file untouched', async () => {
    const file = path.join(dir, 'settings.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ model: 'x', permissions: { allow: ['Bash(ls)', 'mcp__vscode__read_file'], deny: ['Read(.env)'] }, hooks: { a: 1 } }),
      { mode: 0o640 },
    );
    fs.chmodSync(file, 0o640);
    const settings = new ClaudeUserSettings(file);
    expect(await settings.addAllowRules(['mcp__vscode__read_file', 'mcp__vscode__write_file'])).toEqual(['mcp__vscode__write_file']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      model: 'x',
      permissions: { allow: ['Bash(ls)', 'mcp__vscode__read_file', 'mcp__vscode__write_file'], deny: ['Read(.env)'] },
      hooks: { a: 1 },
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(await settings.addAllowRules(['mcp__vscode__write_file'])).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['settings.json']);

    fs.writeFileSync(file, '{ "permissions": ');
    await expect(settings.addAllowRules(['x'])).rejects.toBeInstanceOf(UnusableFileError);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "permissions": ');
  });

  test('creates the file (0600) in a missing config folder, and writes through a symlinked settings.json', async () => {
    const created = new ClaudeUserSettings(path.join(dir, 'new', 'settings.json'));
    expect(await created.addAllowRules(['mcp__vscode__read_file'])).toEqual(['mcp__vscode__read_file']);
    expect(fs.statSync(created.file).mode & 0o777).toBe(0o600);
    const real = path.join(dir, 'dotfiles.json');
    fs.writeFileSync(real, '{}');
    const link = path.join(dir, 'link.json');
    fs.symlinkSync(real, link);
    await new ClaudeUserSettings(link).addAllowRules(['a']);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(fs.readFileSync(real, 'utf8'))).toEqual({ permissions: { allow: ['a'] } });
  });
});

describe('the permission-rules offer', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-offer-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const log = { info: () => undefined, error: () => undefined };

  test('shows exactly the missing rules and the file, writes them only on "Add Rules"', async () => {
    const file = path.join(dir, 'settings.json');
    fs.writeFileSync(file, JSON.stringify({ permissions: { allow: ['mcp__vscode__read_file'] } }));
    const asked: string[] = [];
    const informed: string[] = [];
    const ui = (answer: string | undefined) => ({
      ask: async (_question: string, detail: string) => (asked.push(detail), answer),
      inform: (m: string) => informed.push(m),
      fail: (m: string) => informed.push(`FAIL ${m}`),
    });
    const rules = ['mcp__vscode__read_file', 'mcp__vscode__list_files'];
    expect(await offerPermissionRules({ settings: new ClaudeUserSettings(file), rules, ui: ui(undefined), log })).toEqual([]);
    expect(asked[0]).toContain(file);
    expect(asked[0]).toContain('"mcp__vscode__list_files"');
    expect(asked[0]).not.toContain('"mcp__vscode__read_file"');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).permissions.allow).toEqual(['mcp__vscode__read_file']);
    expect(await offerPermissionRules({ settings: new ClaudeUserSettings(file), rules, ui: ui(ADD_RULES_CHOICE), log })).toEqual(['mcp__vscode__list_files']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).permissions.allow).toEqual(rules);
    // Nothing left to add: no question.
    const before = asked.length;
    await offerPermissionRules({ settings: new ClaudeUserSettings(file), rules, ui: ui(ADD_RULES_CHOICE), log });
    expect(asked.length).toBe(before);
  });
});
