/**
 * executeCode as each claude CLI line offers it to its model (the pinned 2.1.328, or
 * NATIVE_CLAUDE_CLI_VERSION: `npm run test:cli-matrix`): the real CLI in tmux, a scripted fake model,
 * the extension's server in plain Node with a scripted notebook (test/support/fakeHosts.ts
 * ScriptedNotebook) in place of VS Code's. It pins what the model sees of the tool (a full schema in
 * every request, or a name behind ToolSearch), that the model's calls reach it, and that its answer —
 * text and an image — reaches the model's next request. The same flow with a real kernel in real
 * VS Code: test/real/vscode-execute-code.test.ts.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IdeServer } from '../../src/server/ideServer';
import { LockFile } from '../../src/server/lockFile';
import { createSessionFactory } from '../../src/server/mcpSession';
import { ideTools } from '../../src/tools/registry';
import { serverInstructions } from '../../src/tools/instructions';
import { STDOUT_MIME } from '../../src/tools/notebookOutput';
import { KeyedLock } from '../../src/util/keyedLock';
import { memoryLogger } from '../../src/util/logger';
import { DiskDocumentWriter, ScriptedNotebook, ScriptedReviewHost, StaticDiagnostics } from '../support/fakeHosts';
import { waitFor } from '../support/serverFixture';
import { CLAUDE_VERSION, PROMPT, cliAtLeast, startClaude, type ClaudeCli } from './harness/claudeCli';
import { startFakeModel, type FakeModel, type MessagesRequest } from './harness/fakeModel';

jest.setTimeout(120_000);

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const bytes = (text: string) => new TextEncoder().encode(text);

/** The mcp__ide__ entries of a request's tools: full definitions, and the names announced for ToolSearch. */
function ideToolsOffered(request: MessagesRequest): { full: string[]; deferred: boolean; bytes: number } {
  const full = (request.tools ?? []).filter((t) => t.name.startsWith('mcp__ide__') && !t.defer_loading).map((t) => t.name);
  const json = JSON.stringify(request);
  const deferred = !full.includes('mcp__ide__executeCode') && json.includes('mcp__ide__executeCode');
  return { full, deferred, bytes: Buffer.byteLength(json) };
}

describe(`real claude CLI ${CLAUDE_VERSION} ⇄ executeCode`, () => {
  let workspace: string;
  let model: FakeModel;
  let notebook: ScriptedNotebook;
  let server: IdeServer;
  let cli: ClaudeCli | undefined;
  const TOKEN = 'cli-exec-token-abcdefghijklmnopqrstuvwxyz0123456';

  async function start(listNotebookTool: boolean): Promise<ClaudeCli> {
    workspace = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-cli-exec-')));
    model = await startFakeModel();
    notebook = new ScriptedNotebook((code) => {
      if (code === 'x = 6 * 7; print(x)') return { outputs: [{ items: [{ mime: STDOUT_MIME, data: bytes('42\n') }] }] };
      if (code === 'plot()')
        return {
          outputs: [
            {
              items: [
                { mime: 'text/plain', data: bytes('<Figure>') },
                { mime: 'image/png', data: PNG },
              ],
            },
          ],
        };
      return { outputs: [] };
    });
    const hosts = {
      review: new ScriptedReviewHost(),
      diagnostics: new StaticDiagnostics(),
      workspace: { folders: () => [workspace], ripgrepPath: () => undefined },
      documents: new DiskDocumentWriter(),
      approvalMode: () => 'never' as const,
      lock: new KeyedLock(),
      ...(listNotebookTool ? { notebooks: notebook } : {}),
    };
    const log: string[] = [];
    server = new IdeServer({
      token: TOKEN,
      log: memoryLogger(log),
      createSession: createSessionFactory({
        toolsFor: (route) => (route === 'ide' ? ideTools(hosts) : []),
        serverInfo: { name: 'native-claude', version: 'test' },
        instructionsFor: serverInstructions,
        log: memoryLogger(log),
        onSessionClosed: () => undefined,
      }),
    });
    await server.start();
    // The model's IDE tools are allowed up front: this test is about what reaches the model, not claude's own prompt.
    cli = await startClaude({
      cwd: workspace,
      model,
      env: { CLAUDE_CODE_SSE_PORT: String(server.port) },
      args: cliAtLeast('2.1.0') ? [] : ['--ide'],
      settings: { permissions: { allow: ['mcp__ide__executeCode', 'mcp__ide__getDiagnostics'] } },
      waitReady: false,
    });
    await new LockFile(server.port, path.join(cli.configDir, 'ide')).write({
      pid: process.pid,
      workspaceFolders: [workspace],
      ideName: 'Visual Studio Code',
      transport: 'ws',
      runningInWindows: false,
      authToken: TOKEN,
    });
    await cli.waitForScreen(PROMPT, 30_000);
    await waitFor(() => server.sessionConnections().length === 1, 30_000, 'ide_connected from the CLI');
    await new Promise((r) => setTimeout(r, 1000));
    return cli;
  }

  afterEach(async () => {
    await cli?.stop();
    cli = undefined;
    await server?.stop();
    await model?.close();
    if (workspace) await fs.rm(workspace, { recursive: true, force: true });
  });

  test('what the model sees of executeCode, listed and not listed (figures printed)', async () => {
    const seen: Record<string, ReturnType<typeof ideToolsOffered>> = {};
    for (const listed of [false, true]) {
      const claude = await start(listed);
      model.respond({ text: `hello ${listed}` });
      await claude.submit('hi');
      await claude.waitForScreen(`hello ${listed}`, 30_000);
      seen[listed ? 'listed' : 'notListed'] = ideToolsOffered(model.mainRequests[0]);
      await cli!.stop();
      cli = undefined;
      await server.stop();
      await model.close();
    }
    console.log(`claude ${CLAUDE_VERSION}: executeCode offered to the model: ${JSON.stringify(seen)}`);
    expect(seen.notListed.full).not.toContain('mcp__ide__executeCode');
    // (1.0.128 names mcp__ide__executeCode elsewhere in its requests even when no server lists it.)
    if (cliAtLeast('2.1.0')) expect(seen.notListed.deferred).toBe(false);
    // Listed, the model is offered it on every line: 2.1 as a name behind ToolSearch, before 2.1 with its schema.
    if (cliAtLeast('2.1.0')) expect(seen.listed).toMatchObject({ deferred: true });
    else expect(seen.listed.full).toContain('mcp__ide__executeCode');
  });

  test("the model's calls run, and the answer (text, then an image) reaches its next request", async () => {
    const claude = await start(true);
    const search = cliAtLeast('2.1.0') ? [{ toolUse: { name: 'ToolSearch', input: { query: 'select:mcp__ide__executeCode', max_results: 1 } } }] : [];
    model.respond(
      ...search,
      { toolUse: { name: 'mcp__ide__executeCode', input: { code: 'x = 6 * 7; print(x)' }, id: 'toolu_nc_exec_1' } },
      { toolUse: { name: 'mcp__ide__executeCode', input: { code: 'plot()' }, id: 'toolu_nc_exec_2' } },
      { text: 'done executeCode' },
    );
    await claude.submit('run it');
    await claude.waitForScreen('done executeCode', 60_000);
    expect(notebook.runs.map((r) => r.code)).toEqual(['x = 6 * 7; print(x)', 'plot()']);
    expect(model.toolResultText('toolu_nc_exec_1')).toMatch(/^42\n[\s\S]*Ran in cell 4 of analysis\.ipynb\./);
    const image = model.toolResult('toolu_nc_exec_2');
    const blocks = Array.isArray(image?.content) ? image.content : [];
    console.log(`claude ${CLAUDE_VERSION}: the image's tool_result: ${JSON.stringify(blocks).slice(0, 400)}`);
    expect(blocks.find((b) => b.type === 'image')).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
  });
});
