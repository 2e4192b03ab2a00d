/**
 * End to end: the real `claude` CLI (2.1.328), typed into VS Code's integrated terminal, against the
 * packaged extension installed into real VS Code (code-server 4.139.1), with a scripted fake model.
 *
 * One code-server, one window, one claude session for every scenario. This outer test starts the fake
 * model (a router that answers `scenario:<name>` prompts with that scenario's Edit/Write, and a tool result
 * with `done <name>`), a workspace, an isolated HOME/CLAUDE_CONFIG_DIR and code-server; then it runs the
 * inner mocha suite test/vscode/suites/ide-claude.test.ts inside the extension host, which starts claude
 * from an integrated terminal and drives each scenario through the real `vscode` API. Each jest test below
 * checks its scenario's inner outcome and what reached the model.
 *
 * Needs test/setup/install-real-clients.sh. Run (the path after `--`: --selectProjects takes several values):
 *   npx jest --selectProjects real --runInBand -- test/real/vscode-ide.test.ts
 * NC_IDE_DEBUG=1 prints the inner results, what the router answered, and the extension's and extension
 * host's logs; NATIVE_CLAUDE_VSIX=<file> skips packaging.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, findFiles, openWorkbench, type CodeServer, type SuiteResult } from './harness/codeServer';
import { startFakeModel, type FakeModel, type Message, type MessagesRequest, type Reply, type ToolUse, freshMessages, textOf } from './harness/fakeModel';
import { lockFiles, prepareIntegratedClaude, statusBarEntries, type IntegratedClaude } from './harness/integratedClaude';
import { ensureVsix } from './harness/vsix';
import { expectInnerPassed as expectInner, type InnerResult } from './harness/innerResults';

/** code-server keeps a window's extension host this long after its browser went away. */
const GRACE_SECONDS = 5;

interface ScenarioDef {
  file: string;
  original: string;
  /** The whole file after the model's change (undefined: the scenario proposes nothing). */
  proposed?: string;
  user?: string;
  tool?: (file: string) => ToolUse;
}

const SCENARIOS: Record<string, ScenarioDef> = {
  'edit-accept': {
    file: 'accept.py',
    original: 'def f():\n    return 1\n',
    proposed: 'def f():\n    return 2\n',
    tool: (f) => ({ name: 'Edit', input: { file_path: f, old_string: 'return 1', new_string: 'return 2' } }),
  },
  'edit-modify': {
    file: 'modify.py',
    original: 'def g():\n    return "a"\n',
    proposed: 'def g():\n    return "b"\n',
    user: 'def g():\n    return "b"  # reviewed by the user\n',
    tool: (f) => ({ name: 'Edit', input: { file_path: f, old_string: 'return "a"', new_string: 'return "b"' } }),
  },
  'close-reject': {
    file: 'reject.txt',
    original: 'keep me\n',
    proposed: 'replaced\n',
    tool: (f) => ({ name: 'Write', input: { file_path: f, content: 'replaced\n' } }),
  },
  autosave: {
    file: 'autosave.txt',
    original: 'one\ntwo\n',
    proposed: 'one\nthree\n',
    user: 'one\nthree\nfour, typed while auto-save is on\n',
    tool: (f) => ({ name: 'Edit', input: { file_path: f, old_string: 'two', new_string: 'three' } }),
  },
  json: {
    file: 'conf.json',
    original: '{\n  "a": 1\n}\n',
    proposed: '{\n  "a": 1,\n}\n',
    tool: (f) => ({ name: 'Edit', input: { file_path: f, old_string: '"a": 1', new_string: '"a": 1,' } }),
  },
  'accept-edits': {
    file: 'typed.ts',
    original: 'export const count: number = 1;\n',
    proposed: 'export const count: number = "one";\n',
    tool: (f) => ({ name: 'Edit', input: { file_path: f, old_string: '= 1;', new_string: '= "one";' } }),
  },
  selection: {
    file: 'sel.ts',
    original: 'const line1 = 1;\nconst line2 = 2;\nconst line3 = 3;\nconst line4 = 4;\n',
  },
};

/** One main request the router answered: which scenario, and whether it followed a tool result. */
interface RoutedCall {
  scenario?: string;
  phase: 'prompt' | 'after-tool';
  /** The messages after the last assistant turn (the new prompt or tool result, with the CLI's attachments), as JSON. */
  fresh: string;
  request: MessagesRequest;
}

/** The id of the tool_use the fake model sends for a scenario (one per scenario). */
const toolUseId = (scenario: string) => `toolu_nc_${scenario.replace(/-/g, '_')}`;

describe('vscode-ide', () => {
  let model: FakeModel;
  let workspace = '';
  let ic: IntegratedClaude | undefined;
  let server: CodeServer | undefined;
  /** Stops claude's tmux, the server, the model and claude's temp root (the last test still needs the server). */
  let stop: (() => Promise<void>) | undefined;
  let suite: SuiteResult | undefined;
  let suiteError: Error | undefined;
  let results: Record<string, InnerResult> = {};
  const calls: RoutedCall[] = [];
  const abs = (s: ScenarioDef) => path.join(workspace, s.file);

  const router = (request: MessagesRequest): Reply => {
    const fresh = freshMessages(request);
    const typed = (msgs: Message[]) => msgs.filter((m) => m.role === 'user').flatMap((m) => [...textOf(m).matchAll(/scenario:([\w-]+)/g)].map((x) => x[1]));
    // A new prompt (after a rejection the CLI sends the rejected tool_result in the same user message);
    // otherwise a tool result of the scenario typed last.
    const prompted = typed(fresh).pop();
    const scenario = prompted ?? typed(request.messages ?? []).pop();
    const afterTool = !prompted && fresh.some((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result'));
    calls.push({ scenario, phase: afterTool ? 'after-tool' : 'prompt', fresh: JSON.stringify(fresh), request });
    const def = scenario ? SCENARIOS[scenario] : undefined;
    if (!def) return { text: 'ok' };
    if (afterTool || !def.tool) return { text: `done ${scenario}` };
    return { toolUse: { ...def.tool(abs(def)), id: toolUseId(scenario!) } };
  };

  const routed = (scenario: string, phase: RoutedCall['phase']) => calls.filter((c) => c.scenario === scenario && c.phase === phase);

  /** The inner test's outcome; on failure the message carries its error and the end of the inner log. */
  const expectInnerPassed = (key: string) =>
    expectInner(key, results[key], () => ({ suiteError: suiteError?.message.slice(0, 3000), innerLogTail: suite?.log.slice(-60) }));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    model = await startFakeModel();
    model.respond(...Array.from({ length: 80 }, () => router));
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-ide-ws-')));
    for (const s of Object.values(SCENARIOS)) fs.writeFileSync(abs(s), s.original);
    const specPath = path.join(workspace, '..', `${path.basename(workspace)}-spec.json`);
    const resultsPath = `${specPath}.results.json`;
    ic = prepareIntegratedClaude({ workspace, modelUrl: model.url, env: { NC_IDE_SPEC: specPath } });
    fs.writeFileSync(
      specPath,
      JSON.stringify({
        workspace,
        results: resultsPath,
        scenarios: Object.fromEntries(
          Object.entries(SCENARIOS).map(([k, s]) => [k, { file: s.file, original: s.original, proposed: s.proposed, user: s.user }]),
        ),
      }),
    );
    try {
      ({
        server,
        suite,
        suiteError,
        results: results = {},
        stop,
      } = await runClaudeInnerSuite<Record<string, InnerResult>>({
        ic,
        model,
        server: {
          workspace,
          vsixPaths: [vsix],
          extraArgs: ['--reconnection-grace-time', String(GRACE_SECONDS)],
          userSettings: { 'git.enabled': false, 'json.schemaDownload.enable': false, 'files.autoSave': 'off' },
        },
        run: {
          files: ['ide-claude'],
          timeout: 60_000,
          timeoutMs: 300_000,
          probeDir: ic.probeDir,
          probes: { statusbar: (page) => statusBarEntries(page) },
          name: 'vscode-ide',
        },
        resultsPath,
        keepServer: true,
      }));
    } finally {
      fs.rmSync(specPath, { force: true });
      fs.rmSync(resultsPath, { force: true });
    }
    if (process.env.NC_IDE_DEBUG && server) {
      for (const f of findFiles(path.join(server.userDataDir, 'logs'), /Native Claude\.log$|remoteexthost\.log$|exthost\.log$/)) {
        console.log(`--- ${f}\n${fs.readFileSync(f, 'utf8').slice(-20000)}`);
      }
    }
    if (process.env.NC_IDE_DEBUG) {
      console.log(
        JSON.stringify(
          { exitCode: suite?.exitCode, results, calls: calls.map((c) => ({ scenario: c.scenario, phase: c.phase, fresh: c.fresh.slice(0, 3000) })) },
          null,
          2,
        ),
      );
      console.log(suite?.log.join('\n'));
    }
  }, 420_000);

  afterAll(async () => {
    await stop?.();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  it('connects when claude is typed into the integrated terminal: status, status bar and a 0600 lock file', () => {
    expectInnerPassed('connect');
    const d = results.connect.data!;
    expect(d.statusBarText).toMatch(/Claude: 1 session/);
    expect(d.lock).toMatchObject({ transport: 'ws', runningInWindows: false, workspaceFolders: [workspace] });
    expect(d.lockMode).toBe('600');
    expect(d.lockPath).toBe(path.join(ic!.configDir, 'ide', `${(d.status as { port: number }).port}.lock`));
  });

  it('refuses a wrong token with 401 and a browser Origin with 403', () => {
    expectInnerPassed('auth');
  });

  /** The CLI's tool_result for the scenario's tool_use, as the model saw it. */
  const toolResult = (scenario: string) => {
    const block = model.toolResult(toolUseId(scenario));
    return { isError: block?.is_error === true, text: model.toolResultText(toolUseId(scenario)) };
  };

  it('an Edit opens a VS Code diff tab labelled with the CLI tab name; accepting it makes the CLI write the file', () => {
    expectInnerPassed('edit-accept');
    const s = SCENARIOS['edit-accept'];
    expect(fs.readFileSync(abs(s), 'utf8')).toBe(s.proposed);
    expect(toolResult('edit-accept')).toEqual({ isError: false, text: expect.stringMatching(/has been updated successfully/) });
    expect(toolResult('edit-accept').text).not.toMatch(/user modified/i);
    expect(routed('edit-accept', 'after-tool')).toHaveLength(1);
  });

  it("the user's change to the proposal, saved by hand, is what the CLI writes, and the model is told", () => {
    expectInnerPassed('edit-modify');
    const s = SCENARIOS['edit-modify'];
    expect(fs.readFileSync(abs(s), 'utf8')).toBe(s.user);
    expect(toolResult('edit-modify')).toEqual({ isError: false, text: expect.stringMatching(/user modified your proposed changes before accepting them/i) });
  });

  it('closing the diff tab rejects: the file stays byte-identical and the CLI shows the rejection', () => {
    expectInnerPassed('close-reject');
    const s = SCENARIOS['close-reject'];
    expect(fs.readFileSync(abs(s))).toEqual(Buffer.from(s.original));
    expect(toolResult('close-reject')).toEqual({ isError: true, text: expect.stringMatching(/rejected/) });
    // The rejection ends the turn: the model is not asked to go on.
    expect(routed('close-reject', 'after-tool')).toHaveLength(0);
  });

  it('auto-save (afterDelay, 200 ms) never writes an edited proposal to disk', () => {
    expectInnerPassed('autosave');
    const s = SCENARIOS.autosave;
    expect(fs.readFileSync(abs(s))).toEqual(Buffer.from(s.original));
    expect(toolResult('autosave')).toEqual({ isError: true, text: expect.stringMatching(/rejected/) });
    expect(routed('autosave', 'after-tool')).toHaveLength(0);
  });

  it('an accepted Edit that breaks JSON reaches the model as <new-diagnostics>', () => {
    expectInnerPassed('json');
    expect(toolResult('json')).toEqual({ isError: false, text: expect.stringMatching(/has been updated successfully/) });
    const [next] = routed('json', 'after-tool');
    expect(next?.fresh).toMatch(/<new-diagnostics>[\s\S]*conf\.json[\s\S]*Trailing comma/);
  });

  it('an editor selection shows in the CLI and reaches the model; the at-mention puts @file#L2-3 into the prompt', () => {
    expectInnerPassed('selection');
    const [prompt] = routed('selection', 'prompt');
    expect(prompt?.fresh).toMatch(/selected the lines 2 to 3 from [^"]*\/sel\.ts/);
    expect(prompt?.fresh).toMatch(/const line2 = 2;\\nconst line3 = 3;/);
    expect(prompt?.fresh).not.toMatch(/line1 = 1|line4 = 4/);
  });

  it("accept-edits mode: the CLI writes a closed TS file itself and VS Code's type error reaches the model as <new-diagnostics>", () => {
    expectInnerPassed('accept-edits');
    expect(toolResult('accept-edits')).toEqual({ isError: false, text: expect.stringMatching(/has been updated successfully/) });
    const [next] = routed('accept-edits', 'after-tool');
    expect(next?.fresh).toMatch(/<new-diagnostics>[\s\S]*typed\.ts[\s\S]*Type 'string' is not assignable to type 'number'/);
  });

  it('the lock file is deleted by the extension when the window closes', async () => {
    const lockPath = results.connect?.data?.lockPath as string | undefined;
    expect(lockPath).toBeDefined();
    expect(suite).toBeDefined();
    const srv = server!;
    const serverAlive = () => {
      try {
        process.kill(srv.pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // Nothing in this test deletes lock files, and claude deletes only lock files of dead pids, at its start;
    // the lock file's pid (code-server's server process) stays alive throughout.
    const terminations = () =>
      findFiles(path.join(srv.userDataDir, 'logs'), /^remoteexthost\.log$|Native Claude\.log$/).flatMap((f) =>
        fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => /Extension host terminating|exiting with code|Lock file|Error|error/.test(l))
          .map((l) => `${/exthost\d+/.exec(f)?.[0] ?? path.basename(f)}: ${l}`),
      );
    const goneWithin = async (file: string, ms: number) => {
      const deadline = Date.now() + ms;
      while (fs.existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return !fs.existsSync(file);
    };

    // 1. The test window (runSuiteInVsCode closed it when the suite was done).
    expect({ deleted: await goneWithin(lockPath!, (GRACE_SECONDS + 15) * 1000), serverAlive: serverAlive(), log: terminations() }).toMatchObject({
      deleted: true,
      serverAlive: true,
    });

    // 2. A plain window whose browser tab is closed: code-server ends its extension host after the
    //    reconnection grace time, and the extension must delete the lock file on the way out.
    const wb = await openWorkbench(srv, workspace);
    let lock: string | undefined;
    try {
      const deadline = Date.now() + 45_000;
      // Polled often so the tab closes right after the lock file appears: activation may still be finishing
      // then (a closed window once left the lock file behind that way).
      while (!(lock = lockFiles(ic!.lockDir)[0]) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect({ lockFileWritten: !!lock, console: lock ? [] : wb.console().slice(-20) }).toEqual({ lockFileWritten: true, console: [] });
    } finally {
      await wb.close();
    }
    const closedAt = Date.now();
    const deleted = await goneWithin(lock, (GRACE_SECONDS + 20) * 1000);
    if (process.env.NC_IDE_DEBUG)
      console.log(`window closed; lock file ${deleted ? `deleted after ${Date.now() - closedAt} ms` : 'left'}\n${terminations().join('\n')}`);
    const log = terminations();
    expect({ deleted, afterMs: deleted ? Date.now() - closedAt : undefined, serverAlive: serverAlive(), left: lockFiles(ic!.lockDir), log }).toMatchObject({
      deleted: true,
      serverAlive: true,
      left: [],
    });
    // Both windows' extension hosts ended the orderly way (deactivation ran), not killed by anyone.
    expect(log.filter((l) => /Extension host terminating/.test(l))).toHaveLength(2);
  }, 120_000);
});
