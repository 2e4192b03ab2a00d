/**
 * What **Launch claude in Terminal** relies on when VS Code's tools are enabled: the real claude CLI
 * accepts the tools route's `ws` entry, with its `${NATIVE_CLAUDE_PORT}`/`${NATIVE_CLAUDE_TOKEN}`
 * placeholders, through `--mcp-config`; alone it gives the model the tools, and next to the
 * user-scope entry of the same name it does not list them twice or connect twice.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { claudeLaunchCommand } from '../../src/cliSetup/launchCommand';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { IdeServer } from '../../src/server/ideServer';
import { createSessionFactory } from '../../src/server/mcpSession';
import { workspaceTools } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { memoryLogger } from '../../src/util/logger';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics } from '../support/fakeHosts';
import { waitFor } from '../support/serverFixture';
import { startClaude, type ClaudeCli } from './harness/claudeCli';
import { startFakeModel, type FakeModel } from './harness/fakeModel';

jest.setTimeout(180_000);

const TOKEN = 'mcp-config-test-token-0123456789abcdefghijklmnopq';

describe('real claude CLI: the tools entry through --mcp-config', () => {
  let workspace: string;
  let model: FakeModel;
  let server: IdeServer;
  let cli: ClaudeCli | undefined;
  let expected: string[] = [];

  /** The `--mcp-config` argument exactly as the launch command types it, read back through a real shell. */
  const mcpConfigArg = () => {
    const line = claudeLaunchCommand('printf %s', { toolsEnabled: true, platform: 'linux' });
    return execFileSync('/bin/bash', ['-c', line.replace('--mcp-config ', '')], { encoding: 'utf8' });
  };

  beforeAll(async () => {
    workspace = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-mcpcfg-ws-')));
    await fs.writeFile(path.join(workspace, 'a.txt'), 'hello\n');
    model = await startFakeModel();
    const workspaceHost = { folders: () => [workspace], ripgrepPath: () => undefined };
    const hosts = {
      review: new ScriptedReviewHost(),
      diagnostics: new StaticDiagnostics(),
      workspace: workspaceHost,
      documents: new DiskDocumentWriter(),
      approvalMode: () => 'write-only' as const,
      lock: new KeyedLock(),
    };
    server = new IdeServer({
      token: TOKEN,
      log: memoryLogger(),
      createSession: createSessionFactory({
        toolsFor: (route) => (route === 'tools' ? workspaceTools(hosts) : []),
        serverInfo: { name: 'native-claude', version: 'test' },
        log: memoryLogger(),
      }),
    });
    await server.start();
    expected = workspaceTools(hosts)
      .map((t) => `mcp__${TOOLS_SERVER_NAME}__${t.name}`)
      .sort();
  });

  afterEach(async () => {
    await cli?.stop();
    cli = undefined;
    await waitFor(() => server.connections().length === 0, 10_000, 'the CLI to disconnect');
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    if (workspace) await fs.rm(workspace, { recursive: true, force: true });
  });

  const env = () => ({ NATIVE_CLAUDE_PORT: String(server.port), NATIVE_CLAUDE_TOKEN: TOKEN, ENABLE_TOOL_SEARCH: 'false' });
  const offeredTools = () => model.toolNames(model.mainRequests[model.mainRequests.length - 1]).filter((n) => n.startsWith(`mcp__${TOOLS_SERVER_NAME}__`));

  test('the shell hands the CLI the entry with its placeholders unexpanded', () => {
    expect(JSON.parse(mcpConfigArg())).toEqual({ mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } });
  });

  test('--mcp-config alone (nothing in ~/.claude.json): the workspace tools, one connection to /tools', async () => {
    cli = await startClaude({
      cwd: workspace,
      model,
      env: env(),
      args: ['--mcp-config', mcpConfigArg()],
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}__*`] } },
    });
    await waitFor(() => server.connections().some((c) => c.route === 'tools'), 30_000, 'the CLI to open /tools');
    model.respond({ toolUse: { name: `mcp__${TOOLS_SERVER_NAME}__read_file`, input: { path: 'a.txt' } } }, { text: 'read done' });
    await cli.submit('read a.txt');
    await cli.waitForScreen('read done', 60_000);
    expect(offeredTools().sort()).toEqual(expected);
    expect(model.toolResultText(model.sentToolUseIds[0]) ?? '').toMatch(/1\s*\|\s*hello/);
    expect(server.connections().filter((c) => c.route === 'tools')).toHaveLength(1);
  });

  test('--mcp-config next to the user-scope entry of the same name: each tool once, one connection', async () => {
    cli = await startClaude({
      cwd: workspace,
      model,
      env: env(),
      args: ['--mcp-config', mcpConfigArg()],
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}__*`] } },
    });
    await waitFor(() => server.connections().some((c) => c.route === 'tools'), 30_000, 'the CLI to open /tools');
    model.respond({ text: 'hello back' });
    await cli.submit('hello');
    await cli.waitForScreen('hello back', 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(offeredTools().sort()).toEqual(expected);
    expect(server.connections().filter((c) => c.route === 'tools')).toHaveLength(1);
    expect(await cli.screen()).not.toMatch(/duplicate|conflict/i);
  });
});
