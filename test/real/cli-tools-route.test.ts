/**
 * The route, with the real claude CLI: the user-scope entry the extension installs, the two variables
 * the extension puts in its terminals, and the model calling each of the seven tools as
 * mcp__vscode__<tool>. The server runs in plain Node here with the real workspace tools (real rg);
 * only the review UI and the terminal are stand-ins (both are tested in real VS Code elsewhere).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { IdeServer } from '../../src/server/ideServer';
import { createSessionFactory } from '../../src/server/mcpSession';
import { workspaceTools } from '../../src/tools/registry';
import { serverInstructions, TOOLS_INSTRUCTIONS } from '../../src/tools/instructions';
import { KeyedLock } from '../../src/util/keyedLock';
import { memoryLogger } from '../../src/util/logger';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics, diagnostic } from '../support/fakeHosts';
import { ProcessTerminalHost } from '../support/processTerminalHost';
import { locateRipgrep } from '../support/ripgrep';
import { waitFor } from '../support/serverFixture';
import { startClaude, type ClaudeCli } from './harness/claudeCli';
import { startFakeModel, type FakeModel } from './harness/fakeModel';

jest.setTimeout(180_000);

const TOKEN = 'route-test-token-0123456789abcdefghijklmnopqrstuv';

describe('real claude CLI ⇄ the tools route', () => {
  let workspace: string;
  let model: FakeModel;
  let server: IdeServer;
  let review: ScriptedReviewHost;
  let terminal: ProcessTerminalHost;
  let cli: ClaudeCli | undefined;
  let log: string[];

  beforeAll(async () => {
    workspace = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-route-ws-')));
    await fs.mkdir(path.join(workspace, 'src'));
    await fs.writeFile(path.join(workspace, 'src', 'app.ts'), 'export function greet(name: string) {\n  return `hello ${name}`;\n}\n');
    await fs.writeFile(path.join(workspace, 'README.md'), '# demo\n');
    model = await startFakeModel();
    review = new ScriptedReviewHost();
    terminal = new ProcessTerminalHost();
    log = [];
    const diagnostics = new StaticDiagnostics();
    diagnostics.set(path.join(workspace, 'src', 'app.ts'), [diagnostic("Cannot find name 'nmae'", 1, 'Error')]);
    const rg = locateRipgrep();
    const workspaceHost = { folders: () => [workspace], ripgrepPath: () => rg };
    const hosts = {
      review,
      diagnostics,
      workspace: workspaceHost,
      documents: new DiskDocumentWriter(),
      approvalMode: () => 'write-only' as const,
      lock: new KeyedLock(),
      diagnosticsWaitMs: 10,
      terminal,
    };
    server = new IdeServer({
      token: TOKEN,
      log: memoryLogger(log),
      createSession: createSessionFactory({
        toolsFor: (route) => (route === 'tools' ? workspaceTools(hosts) : []),
        serverInfo: { name: 'native-claude', version: 'test' },
        instructionsFor: serverInstructions,
        log: memoryLogger(log),
      }),
    });
    await server.start();
  });

  afterAll(async () => {
    await cli?.stop();
    await server?.stop();
    await model?.close();
    if (workspace) await fs.rm(workspace, { recursive: true, force: true });
  });

  test('claude in a VS Code terminal gets exactly the seven tools as mcp__vscode__*, and each returns the right result', async () => {
    cli = await startClaude({
      cwd: workspace,
      model,
      // What the extension's terminals carry; ENABLE_TOOL_SEARCH=false lists full schemas so the request shows them all.
      env: { NATIVE_CLAUDE_PORT: String(server.port), NATIVE_CLAUDE_TOKEN: TOKEN, ENABLE_TOOL_SEARCH: 'false' },
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
      // The rule form the README recommends: every line matches a server-wide rule; 1.0.x matches
      // nothing with a tool part (`mcp__vscode__*`). A prompt here would stall the test.
      settings: { permissions: { allow: [`mcp__${TOOLS_SERVER_NAME}`] } },
    });
    await waitFor(() => server.connections().some((c) => c.route === 'tools'), 30_000, 'the CLI to open /tools');
    expect(server.sessionConnections()).toHaveLength(0); // no ide_connected on the tools route

    const calls: Array<[string, Record<string, unknown>]> = [
      ['read_file', { path: 'src/app.ts' }],
      ['list_files', { path: '.', recursive: true }],
      ['search_files', { path: '.', regex: 'hello \\$\\{name\\}' }],
      ['get_diagnostics', {}],
      ['write_file', { path: 'src/new.ts', content: 'export const x = 1;\n' }],
      ['apply_diff', { path: 'src/app.ts', diff: '<<<<<<< SEARCH\n  return `hello ${name}`;\n=======\n  return `hi ${name}`;\n>>>>>>> REPLACE' }],
      ['execute_command', { command: 'ls src; exit 3' }],
    ];
    model.respond(...calls.map(([tool, input]) => ({ toolUse: { name: `mcp__${TOOLS_SERVER_NAME}__${tool}`, input } })), { text: 'all seven done' });
    // The review UI: accept each proposal as shown.
    const accepting = (async () => {
      for (let i = 0; i < 2; i++) {
        const [first] = await review.waitForPending(1, 120_000);
        review.registry.settle(first.id, { kind: 'accepted', text: first.extra.proposedText });
      }
    })();
    await cli.submit('use every vscode tool');
    await cli.waitForScreen('all seven done', 120_000);
    await accepting;

    // The server's MCP instructions reach the model, in the first request already.
    const firstRequest = JSON.stringify(model.mainRequests[0]);
    for (const line of TOOLS_INSTRUCTIONS.split('\n')) expect(firstRequest).toContain(JSON.stringify(line).slice(1, -1));

    const offered = model
      .toolNames(model.mainRequests[0])
      .filter((n) => n.startsWith(`mcp__${TOOLS_SERVER_NAME}__`))
      .sort();
    expect(offered).toEqual(
      ['apply_diff', 'execute_command', 'get_diagnostics', 'list_files', 'read_file', 'search_files', 'write_file'].map(
        (t) => `mcp__${TOOLS_SERVER_NAME}__${t}`,
      ),
    );

    const results = model.sentToolUseIds.slice(0, calls.length).map((id) => model.toolResultText(id) ?? '');
    expect(results[0]).toMatch(/1\s*\|\s*export function greet/);
    expect(results[0]).toMatch(/total_lines: 3/);
    expect(results[1]).toContain('src/');
    expect(results[1]).toContain('src/app.ts');
    expect(results[2]).toMatch(/src\/app\.ts[\s\S]*2[:|]/);
    expect(results[3]).toContain("[error] src/app.ts:2 — Cannot find name 'nmae'");
    expect(JSON.parse(results[4])).toMatchObject({ status: 'accepted', path: 'src/new.ts', operation: 'created' });
    expect(JSON.parse(results[5])).toMatchObject({ status: 'accepted', path: 'src/app.ts', operation: 'modified' });
    expect(JSON.parse(results[6])).toMatchObject({ exit_code: 3, output_captured: true });
    expect(JSON.parse(results[6]).output).toContain('app.ts');
    expect(await fs.readFile(path.join(workspace, 'src', 'new.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect(await fs.readFile(path.join(workspace, 'src', 'app.ts'), 'utf8')).toContain('return `hi ${name}`;');
    expect(terminal.commands).toEqual(['ls src; exit 3']);
  });

  test('claude started outside VS Code (no variables) stays quiet and working', async () => {
    await cli?.stop();
    cli = await startClaude({ cwd: workspace, model, globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } } });
    const connectionsBefore = server.connections().length;
    await new Promise((r) => setTimeout(r, 3000));
    // Nothing about the entry (other start-up notes, e.g. 2.0.77's "Failed to install Anthropic marketplace", are not ours).
    expect(await cli.screen()).not.toMatch(/MCP|vscode|NATIVE_CLAUDE/i);
    model.respond({ text: 'still working' });
    await cli.submit('hello');
    await cli.waitForScreen('still working', 30_000);
    expect(server.connections().length).toBe(connectionsBefore);
    expect(model.toolNames().some((n) => n.startsWith(`mcp__${TOOLS_SERVER_NAME}__`))).toBe(false);
  });
});
