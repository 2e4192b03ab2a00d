// The model-facing workspace tools through the real server, the SDK's real Client and a real rg
// (the one VS Code ships, from the code-server build the real-client tests use).

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { IDE_INSTRUCTIONS, TOOLS_INSTRUCTIONS } from '../../src/tools/instructions';
import type { DiagnosticsSource, FileDiagnostics } from '../../src/host/diagnostics';
import type { CommandOutcome, TerminalHost } from '../../src/host/terminal';
import type { WorkspaceHost } from '../../src/host/workspace';
import { executeCommandTool } from '../../src/tools/executeCommand';
import { getDiagnosticsTool } from '../../src/tools/getDiagnostics';
import { listFilesTool } from '../../src/tools/listFiles';
import { readFileTool } from '../../src/tools/readFile';
import { searchFilesTool } from '../../src/tools/searchFiles';
import { connectClient, startTestServer } from '../support/serverFixture';
import { locateRipgrep } from '../support/ripgrep';

const text = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;
const isError = (result: unknown): boolean => (result as CallToolResult).isError === true;

describe('tools over the /tools route', () => {
  const rg = locateRipgrep();
  let root: string;
  let ws: string;
  let approvalMode: 'write-only' | 'always' | 'never' = 'write-only';
  let userSaysRun = false;
  const approvals: string[] = [];
  let folders: string[];
  const host: WorkspaceHost = { folders: () => folders, ripgrepPath: () => rg };
  let diagnostics: FileDiagnostics[] = [];
  const diagnosticsSource: DiagnosticsSource = {
    all: () => diagnostics,
    forFile: () => [],
    onDidChange: () => ({ dispose: () => undefined }),
  };
  const commands: { command: string; cwd: string; timeoutMs: number; signal?: AbortSignal }[] = [];
  let nextOutcome: (signal?: AbortSignal) => Promise<CommandOutcome>;
  const terminals: TerminalHost = {
    run: (command, options) => {
      commands.push({ command, ...options });
      return nextOutcome(options.signal);
    },
  };
  let fixture: Awaited<ReturnType<typeof startTestServer>>;
  let client: Client;

  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-tools-')));
    ws = path.join(root, 'ws');
    const files: Record<string, string | Buffer> = {
      '.gitignore': 'dist/\n*.log\n',
      'README.md': '# Demo\nfoo in the readme\n',
      'src/a.ts': 'const x = 1;\nfunction foo() {\n  return x;\n}\n\n\nexport { foo };\n',
      'src/b.ts': 'import { foo } from "./a";\nfoo();\n',
      'src/crlf.txt': 'alpha\r\nfoo crlf\r\nomega\r\n',
      'src/latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x66, 0x6f, 0x6f, 0x0a]),
      'src/deep/nested/c.ts': 'export const foobar = 2;\n',
      'dist/out.js': 'foo();\n',
      'debug.log': 'foo happened\n',
      'node_modules/pkg/index.js': 'module.exports = foo;\n',
      '.github/workflows/ci.yml': 'name: ci\n',
      'bin/data.bin': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x66, 0x6f, 0x6f]),
      'hits/many.txt': Array.from({ length: 400 }, (_, i) => `needle ${i}`).join('\n') + '\n',
    };
    for (let i = 0; i < 600; i++) files[`wide/f${String(i).padStart(3, '0')}.txt`] = 'x\n';
    for (const [rel, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
      await fs.writeFile(path.join(ws, rel), content);
    }
    await fs.mkdir(path.join(ws, 'empty'));
    await fs.mkdir(path.join(root, 'outside'));
    await fs.writeFile(path.join(root, 'outside', 'secret.txt'), 'secret\n');
    await fs.symlink(path.join(root, 'outside'), path.join(ws, 'escape'));
    folders = [ws];

    fixture = await startTestServer({
      tools: {
        tools: [
          readFileTool(host),
          listFilesTool(host),
          searchFilesTool(host),
          getDiagnosticsTool(diagnosticsSource, host),
          executeCommandTool(terminals, host, { mode: () => approvalMode, approver: { approve: async (command) => (approvals.push(command), userSaysRun) } }),
        ],
      },
    });
    ({ client } = await connectClient(`${fixture.url}/tools`));
  });

  afterAll(async () => {
    await client?.close();
    await fixture?.server.stop();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  beforeEach(() => {
    folders = [ws];
  });

  test("initialize carries the route's MCP instructions: short, naming each tool and the built-in it replaces", async () => {
    const instructions = client.getInstructions();
    expect(instructions).toBe(TOOLS_INSTRUCTIONS);
    for (const name of ['write_file', 'apply_diff', 'get_diagnostics', 'execute_command', 'read_file', 'list_files', 'search_files'])
      expect(instructions).toContain(name);
    for (const name of ['find_definitions', 'find_references', 'describe_symbol', 'file_outline', 'find_symbols', 'call_hierarchy'])
      expect(instructions).toContain(name);
    expect(instructions).toMatch(/instead of running a compiler/);
    expect(instructions).toMatch(/prefer them to grep/);
    // 1,200 before the six language tools, which add a line each (about 500 characters); rename_symbol's line about 110.
    expect(instructions!.length).toBeLessThan(1800);
    const ide = await connectClient(fixture.url, { announce: true });
    expect(ide.client.getInstructions()).toBe(IDE_INSTRUCTIONS);
    await ide.client.close();
  });

  test('lists the five tools with strict schemas and honest annotations', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['execute_command', 'get_diagnostics', 'list_files', 'read_file', 'search_files']);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.description!.length).toBeGreaterThan(80);
    }
    for (const name of ['read_file', 'list_files', 'search_files', 'get_diagnostics']) {
      expect(byName[name].annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    }
    expect(byName.execute_command.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  describe('read_file', () => {
    test('numbered lines and total_lines', async () => {
      const result = await call('read_file', { path: 'src/a.ts' });
      expect(isError(result)).toBe(false);
      expect(text(result)).toBe('1 | const x = 1;\n2 | function foo() {\n3 |   return x;\n4 | }\n5 | \n6 | \n7 | export { foo };\ntotal_lines: 7');
    });

    test('offset and limit, with the offset to read on', async () => {
      expect(text(await call('read_file', { path: 'src/a.ts', offset: 2, limit: 2 }))).toBe(
        '2 | function foo() {\n3 |   return x;\ntotal_lines: 7 (lines 2-3 shown; to read on, call read_file with offset: 4)',
      );
      expect(text(await call('read_file', { path: path.join(ws, 'src/crlf.txt') }))).toBe('1 | alpha\n2 | foo crlf\n3 | omega\ntotal_lines: 3');
    });

    test.each([
      [{ path: 'src/missing.ts' }, /"src\/missing.ts" was not found/],
      [{ path: '../outside/secret.txt' }, /outside the workspace/],
      [{ path: 'escape/secret.txt' }, /outside the workspace: .* through a symbolic link/],
      [{ path: 'bin/data.bin' }, /binary file/],
      [{ path: 'src' }, /is a folder, not a file. Use list_files/],
      [{ path: 'src/a.ts', offset: 50 }, /offset 50 is past the end of "src\/a.ts": it has 7 lines/],
      [{ path: 'src/a.ts', lines: 3 }, /Input validation error/],
      [{ path: 'src/a.ts', limit: 5000 }, /Input validation error/],
    ])('refuses %j with a message that says what to do', async (args, message) => {
      const result = await call('read_file', args);
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(message);
    });

    test('no workspace folder is a clear error', async () => {
      folders = [];
      const result = await call('read_file', { path: 'src/a.ts' });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/No workspace folder open/);
    });
  });

  describe('list_files', () => {
    test('direct entries honour .gitignore, skip node_modules, show dotfiles, mark folders', async () => {
      const lines = text(await call('list_files', { path: '.' })).split('\n');
      // escape/ is a link sitting in the folder (shown; reading through it is refused);
      // empty/ holds no file and dist/ is ignored, so neither is listed.
      expect(lines).toEqual(['.github/', '.gitignore', 'README.md', 'bin/', 'escape/', 'hits/', 'src/', 'wide/']);
    });

    test('a subfolder lists workspace-relative paths', async () => {
      expect(text(await call('list_files', { path: 'src' })).split('\n')).toEqual(['src/a.ts', 'src/b.ts', 'src/crlf.txt', 'src/deep/', 'src/latin1.txt']);
    });

    test('recursive lists the tree, folders derived, ignored files left out', async () => {
      expect(text(await call('list_files', { path: 'src', recursive: true })).split('\n')).toEqual([
        'src/a.ts',
        'src/b.ts',
        'src/crlf.txt',
        'src/deep/',
        'src/deep/nested/',
        'src/deep/nested/c.ts',
        'src/latin1.txt',
      ]);
      const all = text(await call('list_files', { path: '.', recursive: true }));
      expect(all).not.toMatch(/dist|node_modules|debug\.log|secret/);
      expect(all).toMatch(/^\.github\/workflows\/$/m);
      expect(text(await call('list_files', { path: '.github', recursive: true }))).toBe('.github/workflows/\n.github/workflows/ci.yml');
    });

    test('stops at 500 entries and says truncated: true, keeping the top of the tree', async () => {
      const lines = text(await call('list_files', { path: '.', recursive: true })).split('\n');
      expect(lines).toHaveLength(501);
      expect(lines[500]).toMatch(/^truncated: true — 500 of \d+ entries shown/);
      expect(lines).toEqual(expect.arrayContaining(['README.md', 'src/', 'src/a.ts', 'wide/', 'hits/many.txt']));
      const direct = text(await call('list_files', { path: 'wide' })).split('\n');
      expect(direct).toHaveLength(501);
      expect(direct[500]).toMatch(/^truncated: true — 500 of 600 entries shown/);
    });

    test('refuses the home folder and the file system root', async () => {
      folders = [os.homedir()];
      let result = await call('list_files', { path: '.' });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/refused: it is the file system root or the home folder/);
      folders = ['/'];
      result = await call('list_files', { path: '/', recursive: true });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/refused/);
    });

    test('a file is not a folder', async () => {
      const result = await call('list_files', { path: 'README.md' });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/is a file, not a folder. Use read_file/);
    });
  });

  describe('search_files', () => {
    test('matches grouped by file with line numbers and one line of context; ignored files skipped', async () => {
      const result = text(await call('search_files', { path: '.', regex: 'foo' }));
      expect(result.split('\n')[0]).toMatch(/^\d+ matching lines in 6 files$/);
      expect(result).toContain(
        ['src/a.ts', '  1- const x = 1;', '  2: function foo() {', '  3-   return x;', '  --', '  6- ', '  7: export { foo };'].join('\n'),
      );
      expect(result).toContain(['src/crlf.txt', '  1- alpha', '  2: foo crlf', '  3- omega'].join('\n'));
      expect(result).toContain('src/latin1.txt\n  1: caf\ufffd foo');
      expect(result).not.toMatch(/dist\/|node_modules|debug\.log|data\.bin/);
    });

    test('file_pattern limits the files and keeps .gitignore', async () => {
      const result = text(await call('search_files', { path: '.', regex: 'foo', file_pattern: '*.{txt,log}' }));
      expect(result).toMatch(/^2 matching lines in 2 files/);
      expect(result).not.toContain('debug.log');
      expect(text(await call('search_files', { path: '.', regex: 'foo', file_pattern: 'src/deep/**' }))).toMatch(
        /^1 matching line in 1 file\nsrc\/deep\/nested\/c.ts/,
      );
    });

    test('look-around works (PCRE2 when needed)', async () => {
      expect(text(await call('search_files', { path: 'src', regex: 'foo(?=bar)' }))).toMatch(/^1 matching line in 1 file/);
    });

    test('no match is not an error', async () => {
      const result = await call('search_files', { path: 'src', regex: 'zzz_nothing' });
      expect(isError(result)).toBe(false);
      expect(text(result)).toMatch(/^No matches for "zzz_nothing" in src/);
    });

    test('an invalid regex is a clear error', async () => {
      const result = await call('search_files', { path: '.', regex: 'foo(' });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/^The regex "foo\(" is not valid:[\s\S]*unclosed group[\s\S]*escape literal/);
    });

    test('stops at 300 matches and says truncated: true', async () => {
      const result = text(await call('search_files', { path: 'hits', regex: '^needle' }));
      const lines = result.split('\n');
      expect(lines[0]).toBe('300 matching lines in 1 file');
      expect(lines.filter((l) => /^ +\d+: needle/.test(l))).toHaveLength(300);
      expect(lines[lines.length - 1]).toMatch(/^truncated: true — stopped at 300 matching lines/);
    });

    test('a single file can be searched, and paths outside are refused', async () => {
      expect(text(await call('search_files', { path: 'src/b.ts', regex: 'foo' }))).toMatch(/^2 matching lines in 1 file\nsrc\/b.ts/);
      const result = await call('search_files', { path: 'escape', regex: 'secret' });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/outside the workspace/);
    });

    test('multi-root output names the folder first', async () => {
      folders = [ws, path.join(root, 'outside')];
      expect(text(await call('search_files', { path: 'ws/src', regex: 'foobar' }))).toMatch(/\nws\/src\/deep\/nested\/c.ts\n/);
    });
  });

  describe('get_diagnostics', () => {
    beforeEach(() => {
      diagnostics = [
        {
          uri: `file://${ws}/src/a.ts`,
          diagnostics: [
            {
              message: "Cannot find name 'y'.",
              severity: 'Error',
              range: { start: { line: 2, character: 9 }, end: { line: 2, character: 10 } },
              source: 'ts',
              code: '2304',
            },
            { message: 'Unused.', severity: 'Warning', range: { start: { line: 0, character: 6 }, end: { line: 0, character: 7 } } },
          ],
        },
        {
          uri: `file://${ws}/README.md`,
          diagnostics: [{ message: 'Spelling', severity: 'Hint', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }],
        },
      ];
    });

    test('all problems as lines with 1-based line numbers and workspace-relative paths', async () => {
      expect(text(await call('get_diagnostics', {}))).toBe(
        [
          '3 problems (1 error, 1 warning, 1 hint) in 2 files',
          '[hint] README.md:1 — Spelling',
          '[warning] src/a.ts:1 — Unused.',
          "[error] src/a.ts:3 — Cannot find name 'y'. (ts 2304)",
        ].join('\n'),
      );
    });

    test('filters by path and severity; "No problems" when empty', async () => {
      expect(text(await call('get_diagnostics', { path: 'src', severity: 'error' }))).toMatch(/^1 problem \(1 error\) in 1 file\n\[error\] src\/a.ts:3/);
      expect(text(await call('get_diagnostics', { path: 'src/b.ts' }))).toBe('No problems in src/b.ts.');
      diagnostics = [];
      expect(text(await call('get_diagnostics', {}))).toBe('No problems.');
      const bad = await call('get_diagnostics', { severity: 'fatal' });
      expect(isError(bad)).toBe(true);
    });
  });

  describe('execute_command', () => {
    beforeEach(() => {
      commands.length = 0;
      approvals.length = 0;
      approvalMode = 'write-only';
    });

    test('approvalMode always: the user is asked with the command; Reject returns {status:"rejected", command} and nothing runs', async () => {
      approvalMode = 'always';
      userSaysRun = false;
      const rejected = JSON.parse(text(await call('execute_command', { command: 'rm -rf build' })));
      expect(rejected).toMatchObject({ status: 'rejected', command: 'rm -rf build' });
      expect(approvals).toEqual(['rm -rf build']);
      expect(commands).toEqual([]);
      userSaysRun = true;
      nextOutcome = async () => ({ exit_code: 0, output: '', cwd: ws, output_captured: true });
      expect(JSON.parse(text(await call('execute_command', { command: 'ls' }))).exit_code).toBe(0);
      expect(commands).toHaveLength(1);
    });

    test('approvalMode write-only: commands run without asking', async () => {
      nextOutcome = async () => ({ exit_code: 0, output: '', cwd: ws, output_captured: true });
      await call('execute_command', { command: 'ls' });
      expect(approvals).toEqual([]);
    });

    test('runs in the workspace folder by default and returns the outcome as JSON', async () => {
      nextOutcome = async () => ({ exit_code: 0, output: 'ok\n', cwd: ws, output_captured: true });
      const result = await call('execute_command', { command: 'echo ok' });
      expect(JSON.parse(text(result))).toEqual({ exit_code: 0, output: 'ok\n', cwd: ws, output_captured: true });
      expect(commands).toEqual([expect.objectContaining({ command: 'echo ok', cwd: ws, timeoutMs: 120_000 })]);
    });

    test('a cwd inside the workspace and a timeout are passed on; a timeout says the command still runs', async () => {
      nextOutcome = async () => ({ exit_code: null, output: 'listening', cwd: path.join(ws, 'src'), output_captured: true, timed_out: true });
      const result = JSON.parse(text(await call('execute_command', { command: 'npm start', cwd: 'src', timeout: 5000 })));
      expect(commands[0]).toMatchObject({ cwd: path.join(ws, 'src'), timeoutMs: 5000 });
      expect(result).toMatchObject({ exit_code: null, output: 'listening', timed_out: true });
      expect(result.note).toMatch(/still running/);
    });

    test('without shell integration the result says so and explains', async () => {
      nextOutcome = async () => ({ exit_code: null, output: 'The command was sent…: shell integration is not active.', cwd: ws, output_captured: false });
      const result = JSON.parse(text(await call('execute_command', { command: 'make' })));
      expect(result).toMatchObject({ exit_code: null, output_captured: false });
      expect(result.note).toMatch(/shell integration/);
    });

    test('a cwd outside the workspace is refused before anything runs', async () => {
      const result = await call('execute_command', { command: 'ls', cwd: '../outside' });
      expect(isError(result)).toBe(true);
      expect(text(result)).toMatch(/outside the workspace/);
      expect(commands).toHaveLength(0);
    });

    test('cancelling the MCP request aborts the signal the terminal host gets', async () => {
      let started!: () => void;
      const commandStarted = new Promise<void>((r) => (started = r));
      let aborted = false;
      let sawAbort!: () => void;
      const abortSeen = new Promise<void>((r) => (sawAbort = r));
      nextOutcome = (signal) =>
        new Promise((resolve) => {
          signal?.addEventListener('abort', () => {
            aborted = true;
            sawAbort();
            resolve({ exit_code: 130, output: '^C', cwd: ws, output_captured: true });
          });
          started();
        });
      const controller = new AbortController();
      const pending = client.callTool({ name: 'execute_command', arguments: { command: 'sleep 100' } }, undefined, { signal: controller.signal });
      await commandStarted;
      controller.abort();
      await expect(pending).rejects.toThrow();
      await Promise.race([abortSeen, new Promise((r) => setTimeout(r, 2000).unref())]); // a bound, not a wait: abortSeen comes first
      expect(aborted).toBe(true);
    });
  });
});
