/**
 * "One consent, one confirmation" with the real claude CLI (2.1.328): the rules this extension offers
 * (src/cliSetup/permissionRules.ts), written by its own writer into the CLI's user settings.json while
 * claude runs, make the read-only tools and the writes run without claude's prompt, while
 * execute_command still asks. Before the rules, a read-only call asks. The server runs in plain Node
 * with the real workspace tools; the review UI is a scripted stand-in (it is tested in real VS Code elsewhere).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClaudeUserSettings, rulesToAdd } from '../../src/cliSetup/permissionRules';
import { userSettingsPath } from '../../src/otherPrograms/claudeConfigDir';
import { TOOLS_SERVER_NAME, toolsRouteEntry } from '../../src/cliSetup/toolsRouteEntry';
import { IdeServer } from '../../src/server/ideServer';
import { createSessionFactory } from '../../src/server/mcpSession';
import { workspaceTools } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { memoryLogger } from '../../src/util/logger';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics } from '../support/fakeHosts';
import { ProcessTerminalHost } from '../support/processTerminalHost';
import { locateRipgrep } from '../support/ripgrep';
import { waitFor } from '../support/serverFixture';
import { startClaude, type ClaudeCli } from './harness/claudeCli';
import { startFakeModel, type FakeModel } from './harness/fakeModel';

jest.setTimeout(180_000);

const TOKEN = 'rules-test-token-0123456789abcdefghijklmnopqrstuv';
const PROMPT = /Do you want to proceed\?/;
const tool = (name: string) => `mcp__${TOOLS_SERVER_NAME}__${name}`;

describe('real claude CLI ⇄ the permission rules offered at consent', () => {
  let workspace: string;
  let model: FakeModel;
  let server: IdeServer;
  let review: ScriptedReviewHost;
  let terminal: ProcessTerminalHost;
  let cli: ClaudeCli | undefined;

  beforeAll(async () => {
    workspace = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-rules-ws-')));
    await fs.writeFile(path.join(workspace, 'a.txt'), 'alpha\n');
    model = await startFakeModel();
    review = new ScriptedReviewHost();
    terminal = new ProcessTerminalHost();
    const rg = locateRipgrep();
    const workspaceHost = { folders: () => [workspace], ripgrepPath: () => rg };
    const hosts = {
      review,
      diagnostics: new StaticDiagnostics(),
      workspace: workspaceHost,
      documents: new DiskDocumentWriter(),
      approvalMode: () => 'write-only' as const,
      lock: new KeyedLock(),
      diagnosticsWaitMs: 10,
      terminal,
    };
    const log: string[] = [];
    server = new IdeServer({
      token: TOKEN,
      log: memoryLogger(log),
      createSession: createSessionFactory({
        toolsFor: (route) => (route === 'tools' ? workspaceTools(hosts) : []),
        serverInfo: { name: 'native-claude', version: 'test' },
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

  test('without rules a read-only call asks; after the rules are added (claude running) reads and writes run unasked, execute_command asks', async () => {
    cli = await startClaude({
      cwd: workspace,
      model,
      env: { NATIVE_CLAUDE_PORT: String(server.port), NATIVE_CLAUDE_TOKEN: TOKEN },
      globalConfig: { mcpServers: { [TOOLS_SERVER_NAME]: toolsRouteEntry() } },
    });
    await waitFor(() => server.connections().some((c) => c.route === 'tools'), 30_000, 'the CLI to open /tools');

    // 1. No rules: read_file asks.
    model.respond({ toolUse: { name: tool('read_file'), input: { path: 'a.txt' } } }, { text: 'first done' });
    await cli.submit('read it');
    const asked = await cli.waitForScreen(PROMPT, 30_000);
    expect(asked).toMatch(/vscode — Read File/); // the CLI shows the tool's title
    await cli.answer(PROMPT, ['Enter']);
    await cli.waitForScreen('first done', 30_000);

    // 2. The offer's rules, written by the extension's own writer into the running CLI's user settings.
    const settings = new ClaudeUserSettings(userSettingsPath({ CLAUDE_CONFIG_DIR: cli.configDir }));
    const rules = rulesToAdd('write-only', true);
    expect(await settings.addAllowRules(rules)).toEqual(rules);
    const written = JSON.parse(await fs.readFile(settings.file, 'utf8'));
    expect(written.permissions.defaultMode).toBe('default'); // what was there is kept
    await new Promise((r) => setTimeout(r, 2500)); // the CLI watches its settings files

    const ids = model.sentToolUseIds.length;
    model.respond(
      { toolUse: { name: tool('read_file'), input: { path: 'a.txt' } } },
      { toolUse: { name: tool('list_files'), input: { path: '.' } } },
      { toolUse: { name: tool('write_file'), input: { path: 'b.txt', content: 'beta\n' } } },
      { toolUse: { name: tool('execute_command'), input: { command: 'echo ran' } } },
      { text: 'second done' },
    );
    const accepting = review.decide((request) => ({ kind: 'accepted', text: request.proposedText }));
    await cli.submit('read, list, write, run');
    const commandPrompt = await cli.waitForScreen(PROMPT, 60_000);
    // By the time claude asks, the three earlier calls ran without a prompt.
    expect(commandPrompt).toMatch(/vscode — Execute Command/);
    const [readId, listId, writeId] = model.sentToolUseIds.slice(ids);
    expect(model.toolResultText(readId)).toMatch(/alpha/);
    expect(model.toolResultText(listId)).toContain('a.txt');
    await accepting;
    expect(JSON.parse(model.toolResultText(writeId) ?? '{}')).toMatchObject({ status: 'accepted', path: 'b.txt' });
    expect(terminal.commands).toEqual([]);
    await cli.answer(PROMPT, ['Enter']);
    await cli.waitForScreen('second done', 60_000);
    expect(terminal.commands).toEqual(['echo ran']);
  });
});
