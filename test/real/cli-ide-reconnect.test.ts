/**
 * What the real `claude` does with its per-edit baseline (`getDiagnostics {uri}`, the moment Claude's
 * changes captures a file: docs/changes.md) after its IDE connection dropped and it reconnected by itself
 * (Restart Server, a window reload, an extension-host restart), and what brings the baselines back.
 * The extension's server runs in plain Node (as in cli-ide.test.ts); claude is in accept-edits mode,
 * interactive in tmux, with a debug log, driven by the scripted fake model.
 *
 *   flock /tmp/native-claude-real.lock npx jest --selectProjects real --runInBand -- test/real/cli-ide-reconnect.test.ts
 *   NATIVE_CLAUDE_CLI_VERSION=2.0.77 … (the same on another CLI line)
 * --forceExit: the polling of a failed step may outlive it. NC_RECONNECT_DEBUG=1 prints the CLI's debug lines about the IDE connection.
 */
import { execFile } from 'node:child_process';
import * as fsSync from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IdeServer, SUPERSEDED_CLOSE_CODE, SUPERSEDED_CLOSE_REASON } from '../../src/server/ideServer';
import { LockFile } from '../../src/server/lockFile';
import { createSessionFactory } from '../../src/server/mcpSession';
import { ideTools } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { RecentEdits } from '../../src/review/recentEdits';
import { serverInstructions } from '../../src/tools/instructions';
import { memoryLogger } from '../../src/util/logger';
import type { ChangeCapture } from '../../src/host/changeCapture';
import { ScriptedReviewHost, StaticDiagnostics, DiskDocumentWriter } from '../support/fakeHosts';
import { waitFor } from '../support/serverFixture';
import { CLAUDE_VERSION, claudeBinaryPath, cliAtLeast, startClaude, type ClaudeCli } from './harness/claudeCli';
import { startFakeModel, freshMessages, textOf, type FakeModel, type MessagesRequest, type Reply } from './harness/fakeModel';

jest.setTimeout(240_000);

const TOKEN = 'cli-reconnect-token-abcdefghijklmnopqrstuvwxyz0123';

describe(`real claude ${CLAUDE_VERSION}: its baselines after an automatic reconnect`, () => {
  let workspace: string;
  let model: FakeModel;
  let log: string[];
  let server: IdeServer | undefined;
  let cli: ClaudeCli | undefined;
  /** Every baseline claude sent: the file and the connection it came on. */
  let captures: Array<{ connectionId: number; file: string }>;
  let debugFile: string;
  let startArgs: string[] = [];
  let restarted: number | undefined;

  const capture: ChangeCapture = {
    beforeWrite: async (connectionId, filePath) => {
      captures.push({ connectionId, file: path.basename(filePath) });
    },
    writeCancelled: () => undefined,
    noteCall: () => undefined,
  };
  /** Every call claude made on the IDE connection, by tool name. */
  let calls: string[];
  const recordCalls = (tools: ReturnType<typeof ideTools>) =>
    tools.map((tool) => ({ ...tool, handle: (args: never, context: never) => (calls.push(tool.name), tool.handle(args, context)) }));
  function newServer(port?: number): IdeServer {
    const hosts = {
      review: new ScriptedReviewHost(),
      diagnostics: new StaticDiagnostics(),
      workspace: { folders: () => [workspace], ripgrepPath: () => undefined },
      documents: new DiskDocumentWriter(),
      approvalMode: () => 'write-only' as const,
      lock: new KeyedLock(),
      recentEdits: new RecentEdits(),
      changes: capture,
    };
    return new IdeServer({
      token: TOKEN,
      preferredPort: port,
      log: memoryLogger(log),
      createSession: createSessionFactory({
        toolsFor: (route) => (route === 'ide' ? recordCalls(ideTools(hosts)) : []),
        serverInfo: { name: 'native-claude', version: 'test' },
        instructionsFor: serverInstructions,
        log: memoryLogger(log),
      }),
    });
  }

  beforeEach(async () => {
    workspace = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-reconnect-ws-')));
    for (const f of ['a', 'b', 'c', 'd', 'e']) await fs.writeFile(path.join(workspace, `${f}.txt`), `${f}1\n${f}2\n`);
    model = await startFakeModel();
    log = [];
    captures = [];
    calls = [];
    server = newServer();
    await server.start();
  });

  afterEach(async () => {
    // The claude restarted with --continue is not the pane's first process, which stop() waits for.
    if (restarted) {
      try {
        process.kill(restarted, 'SIGKILL');
      } catch {
        // gone
      }
      await waitFor(() => !fsSync.existsSync(`/proc/${restarted}`), 5_000, 'the restarted claude to end').catch(() => undefined);
      restarted = undefined;
    }
    await cli?.stop();
    cli = undefined;
    await server?.stop();
    await model.close();
    await fs.rm(workspace, { recursive: true, force: true });
  });

  /** Any prompt `edit <x>.txt` gets (Read, before 2.1, then) an Edit of that file, then "edited <x>". */
  const router = (request: MessagesRequest): Reply => {
    const fresh = freshMessages(request);
    const prompt = fresh
      .filter((m) => m.role === 'user')
      .map(textOf)
      .join('\n');
    const asked = /edit ([a-e])\.txt/.exec(prompt)?.[1];
    const results = fresh
      .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
      .filter((b) => b.type === 'tool_result')
      .map((b) => String(b.tool_use_id));
    if (asked) {
      const file = path.join(workspace, `${asked}.txt`);
      const edit = { name: 'Edit', input: { file_path: file, old_string: `${asked}2`, new_string: `${asked.toUpperCase()}2` }, id: `toolu_nc_edit_${asked}` };
      return { toolUse: cliAtLeast('2.1.0') ? edit : { name: 'Read', input: { file_path: file }, id: `toolu_nc_read_${asked}` } };
    }
    const read = results.map((id) => /^toolu_nc_read_([a-e])$/.exec(id)?.[1]).find(Boolean);
    if (read) {
      const file = path.join(workspace, `${read}.txt`);
      return {
        toolUse: { name: 'Edit', input: { file_path: file, old_string: `${read}2`, new_string: `${read.toUpperCase()}2` }, id: `toolu_nc_edit_${read}` },
      };
    }
    const edited = results.map((id) => /^toolu_nc_edit_([a-e])$/.exec(id)?.[1]).find(Boolean);
    return { text: edited ? `edited ${edited}` : 'ok' };
  };

  async function start(): Promise<ClaudeCli> {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'nc-reconnect-debug-'));
    debugFile = path.join(home, 'debug.txt');
    const args = cliAtLeast('2.1.0') ? ['--debug-file', debugFile] : ['--ide', '--debug'];
    startArgs = args;
    cli = await startClaude({
      cwd: workspace,
      model,
      env: { CLAUDE_CODE_SSE_PORT: String(server!.port) },
      args,
      settings: { permissions: { defaultMode: 'acceptEdits' } },
      waitReady: false,
    });
    await new LockFile(server!.port, path.join(cli.configDir, 'ide')).write({
      pid: process.pid,
      workspaceFolders: [workspace],
      ideName: 'Visual Studio Code',
      transport: 'ws',
      runningInWindows: false,
      authToken: TOKEN,
    });
    await waitFor(() => server!.sessionConnections().length === 1, 30_000, 'ide_connected');
    await new Promise((r) => setTimeout(r, 1500));
    return cli;
  }

  /** The CLI's debug log (2.0 writes it under its config dir). */
  async function debugLines(): Promise<string[]> {
    const files = cliAtLeast('2.1.0')
      ? [debugFile]
      : await fs.readdir(path.join(cli!.configDir, 'debug')).then(
          (n) => n.filter((f) => f.endsWith('.txt')).map((f) => path.join(cli!.configDir, 'debug', f)),
          () => [],
        );
    const text = (await Promise.all(files.map((f) => fs.readFile(f, 'utf8').catch(() => '')))).join('\n');
    return text.split('\n').filter((l) => /ide|IDE|Not connected|getDiagnostics|diagnostic|reconnect|WebSocket|ws/i.test(l));
  }

  async function edit(letter: string): Promise<string[]> {
    const before = captures.length;
    await cli!.submit(`edit ${letter}.txt`);
    await cli!.waitForScreen(`edited ${letter}`, 60_000);
    expect(await fs.readFile(path.join(workspace, `${letter}.txt`), 'utf8')).toBe(`${letter}1\n${letter.toUpperCase()}2\n`);
    return captures.slice(before).map((c) => c.file);
  }

  async function restartServer(): Promise<void> {
    const port = server!.port;
    await server!.stop();
    server = newServer(port);
    await server.start();
    expect(server.port).toBe(port);
  }

  /** Kills claude and starts it again in the same pane with `--continue` (what the user is told to do). */
  async function restartWithContinue(): Promise<number> {
    const old = cli!.pid;
    const environ = (await fs.readFile(`/proc/${old}/environ`, 'utf8')).split('\0').filter(Boolean);
    // Not /proc/<pid>/cmdline: 2.0 renames its process to `claude`.
    const argv = [claudeBinaryPath(), ...startArgs];
    await new Promise<void>((resolve, reject) =>
      execFile(
        'tmux',
        ['-L', cli!.socket, 'respawn-pane', '-k', '-t', `${cli!.socket}:0.0`, '--', '/usr/bin/env', '-i', ...environ, ...argv, '--continue'],
        (e) => (e ? reject(e) : resolve()),
      ),
    );
    await waitFor(() => server!.sessionConnections().some((c) => c.cliPid !== old), 30_000, 'the restarted claude to connect').catch(async (e: Error) => {
      throw new Error(`${e.message}; argv ${JSON.stringify(argv)}; screen:\n${await cli!.screen()}`);
    });
    await new Promise((r) => setTimeout(r, 1500));
    restarted = server!.sessionConnections().find((c) => c.cliPid !== old)!.cliPid!;
    return restarted;
  }

  it('after Restart Server claude sends no baseline ("Not connected" on its side) but still closeAllDiffTabs; /ide and /clear do not bring the baselines back, a restart with --continue does', async () => {
    model.respond(...Array.from({ length: 80 }, () => router));
    await start();
    const seen: Record<string, unknown> = {};
    const callsBefore = () => calls.length;
    let n = callsBefore();
    seen.first = { baselines: await edit('a'), calls: calls.length - n };
    await restartServer();
    await waitFor(() => server!.sessionConnections().length === 1, 30_000, 'the reconnect');
    await new Promise((r) => setTimeout(r, 1500));
    n = callsBefore();
    seen.afterRestart = { baselines: await edit('b'), calls: calls.slice(n) };
    // The user runs /ide (this window is the only one: claude says it is connected and changes nothing).
    await cli!.submit('/ide');
    // 2.0 first asks whether to connect to the IDE automatically from now on.
    if (
      /Do you wish to enable auto-connect/.test(
        await cli!.waitForScreen(/Connected to Visual Studio Code|Select IDE|Do you wish to enable auto-connect/, 15_000),
      )
    ) {
      await cli!.answer(/Do you wish to enable auto-connect/);
    }
    seen.ide = (await cli!.waitForScreen(/Connected to Visual Studio Code|Select IDE/, 15_000)).match(/Connected to Visual Studio Code|Select IDE/)?.[0];
    await new Promise((r) => setTimeout(r, 1500));
    n = callsBefore();
    seen.afterIde = { baselines: await edit('c'), calls: calls.slice(n).length };
    await cli!.submit('/clear');
    await new Promise((r) => setTimeout(r, 2500));
    seen.afterClear = { baselines: await edit('d') };
    const debug = await debugLines();
    seen.notConnected = debug.filter((l) => /getDiagnostics.*Not connected|Not connected.*getDiagnostics/.test(l)).length;
    // Exit claude and start it again with --continue in the same terminal: a new process, the same conversation.
    const pid = await restartWithContinue();
    seen.afterContinue = {
      baselines: await edit('e'),
      newPid: pid !== cli!.pid,
      conversationKept: JSON.stringify(model.mainRequests.at(-1)?.messages ?? []).includes('edit d.txt'),
    };
    if (process.env.NC_RECONNECT_DEBUG) console.log(debug.join('\n'));
    console.log(JSON.stringify({ version: CLAUDE_VERSION, ...seen }, null, 1));
    expect(seen).toMatchObject({
      first: { baselines: ['a.txt'] },
      afterRestart: { baselines: [], calls: expect.arrayContaining(['closeAllDiffTabs']) },
      ide: 'Connected to Visual Studio Code',
      afterIde: { baselines: [] },
      afterClear: { baselines: [] },
      afterContinue: { baselines: ['e.txt'], newPid: true, conversationKept: true },
    });
    if (cliAtLeast('2.1.0')) expect(seen.notConnected).toBeGreaterThanOrEqual(3);
  });

  it('closing the connection as superseded (4001, so claude does not reconnect by itself), then /ide: the baselines do not come back either', async () => {
    model.respond(...Array.from({ length: 40 }, () => router));
    await start();
    const seen: Record<string, unknown> = {};
    seen.first = await edit('a');
    const closed = server!.sessionConnections()[0];
    closed.close(SUPERSEDED_CLOSE_CODE, SUPERSEDED_CLOSE_REASON);
    // 2.0.77 may be back on a new connection before the old one is seen gone: wait for that one only.
    await waitFor(() => !server!.connections().includes(closed), 10_000, 'the close');
    await new Promise((r) => setTimeout(r, 3000));
    seen.reconnectedByItself = server!.sessionConnections().length > 0;
    await cli!.submit('/ide');
    // 2.1.328 shows its picker ("Connect to an IDE", VS Code ticked and highlighted) instead of connecting at
    // once when it still holds VS Code as its chosen IDE: seen in 2 of 3 runs on a loaded machine.
    const menu = await cli!.waitForScreen(/Connected to Visual Studio Code|Select IDE|Connect to an IDE|Do you wish to enable auto-connect/, 15_000);
    if (/Do you wish to enable auto-connect/.test(menu)) await cli!.answer(/Do you wish to enable auto-connect/);
    if (/Select IDE/.test(await cli!.screen())) await cli!.answer(/Select IDE/);
    if (/Connect to an IDE/.test(await cli!.screen())) await cli!.answer(/Connect to an IDE/);
    await waitFor(() => server!.sessionConnections().length >= 1, 30_000, 'a connection again');
    await new Promise((r) => setTimeout(r, 1500));
    seen.afterIde = await edit('b');
    console.log(JSON.stringify({ version: CLAUDE_VERSION, superseded: seen }));
    // 2.1 stays away after a 4001 until /ide; 2.0.77 came back by itself. Either way no baseline comes.
    expect(seen).toMatchObject({ first: ['a.txt'], afterIde: [] });
  });
});
