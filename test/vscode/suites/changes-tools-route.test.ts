/**
 * The inner half of test/real/vscode-changes-tools.test.ts: two real claude (2.1.328) sessions, each in
 * its own terminal, in accept-edits mode, each write a file through the tools route
 * (mcp__vscode__write_file; the extension's approvalMode is "never", so no review). A tools-route
 * connection announces no pid: each write must land, with certainty, in the group of the claude that
 * made it (the one whose verified pid holds that connection's socket). Runs only with $NC_CHANGES_TOOLS_SPEC.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, before, describe, it } from '../bdd';
import { screen, startClaudeInTerminal, submit, tmux, waitForScreen } from '../claudeInTerminal';
import { installedExtension, terminalWithShellIntegration, waitFor } from '../util';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
  changes(): Promise<ReadonlyArray<{ id: string; label: string; files: Array<{ path: string; attribution: string; source: string }> }>>;
  sessions(): Array<{ cliPid?: number }>;
}
interface Spec {
  workspace: string;
  results: string;
}

const SPEC_PATH = process.env.NC_CHANGES_TOOLS_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const data: Record<string, unknown> = {};

function record(state: string, error?: Error): void {
  fs.writeFileSync(spec!.results, JSON.stringify({ state, error: error ? String(error.stack ?? error) : undefined, data }, null, 2));
}

async function screenOf(name: string): Promise<string> {
  return (await tmux('capture-pane', '-p', '-t', name)).replace(/\s+$/, '');
}

const waitForScreenOf = (name: string, pattern: RegExp | string, timeoutMs: number) =>
  waitFor(
    `${name}'s screen to show ${String(pattern)}`,
    async () => {
      const text = await screenOf(name).catch(() => '');
      return (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) ? text : undefined;
    },
    timeoutMs,
    100,
  );

/** Whether `pid` is `ancestor` or runs under it (/proc/<pid>/stat's 4th field is the parent). */
function runsUnder(pid: number, ancestor: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 20; hops++) {
    if (p === ancestor) return true;
    const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
    p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return false;
}

describe("Claude's changes: tools-route writes of two claudes, each in its own session's group", function () {
  this.timeout(180_000);
  let api: NativeClaudeApi;

  before(async function () {
    if (!spec) this.skip();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 20_000);
    await startClaudeInTerminal(spec.workspace, () => api.status().sessionCount === 1);
  });

  after(async () => {
    if (!spec) return;
    data.finalScreen = await screen().catch((e: Error) => e.message);
    data.secondScreen = await screenOf('second').catch((e: Error) => e.message);
  });

  it('runs the scenario', async function () {
    try {
      await scenario(spec!);
      record('passed');
    } catch (error) {
      record('failed', error as Error);
      throw error;
    }
  });

  async function scenario(s: Spec): Promise<void> {
    const read = (rel: string) => fs.readFileSync(path.join(s.workspace, rel), 'utf8');
    const t2 = await terminalWithShellIntegration({ name: 'claude 2', cwd: s.workspace, shellPath: '/bin/bash' }, 30_000);
    t2.sendText(`export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${process.env.NC_TMUX_SOCKET} new-session -d -s second -x 200 -y 50 claude`);
    await waitFor('the second claude to connect', () => api.status().sessionCount === 2, 60_000);
    await waitForScreenOf('second', /❯/, 30_000);
    // Shift+Tab in both: accept-edits.
    await tmux('send-keys', '-t', 'main', 'BTab');
    await waitForScreen(/accept edits on/i, 10_000);
    await tmux('send-keys', '-t', 'second', 'BTab');
    await waitForScreenOf('second', /accept edits on/i, 10_000);
    // Both prompts typed, then sent together: the two writes come in the same seconds.
    await tmux('send-keys', '-t', 'second', '-l', '--', 'scenario:tools-second');
    await waitForScreenOf('second', 'scenario:tools-second', 5_000);
    await submit('scenario:tools-first');
    await tmux('send-keys', '-t', 'second', 'Enter');
    await Promise.all([waitForScreen('done tools-first', 90_000), waitForScreenOf('second', 'done tools-second', 90_000)]);
    assert.strictEqual(read('t1.txt'), 'first, written by the first claude\n');
    assert.strictEqual(read('t2.txt'), 'second, written by the second claude\n');

    const sessions = await waitFor(
      't1.txt and t2.txt listed',
      async () => {
        const all = await api.changes();
        const names = all.flatMap((x) => x.files.map((f) => path.basename(f.path)));
        return names.includes('t1.txt') && names.includes('t2.txt') ? all : undefined;
      },
      20_000,
    );
    const panes = {
      first: Number((await tmux('display-message', '-p', '-t', 'main', '#{pane_pid}')).trim()),
      second: Number((await tmux('display-message', '-p', '-t', 'second', '#{pane_pid}')).trim()),
    };
    data.panes = panes;
    data.cliPids = api.sessions().map((x) => x.cliPid);
    data.sessions = sessions.map((x) => ({ id: x.id, label: x.label, files: x.files.map((f) => `${path.basename(f.path)} ${f.attribution} ${f.source}`) }));
    const groupOf = (name: string) => sessions.filter((x) => x.files.some((f) => path.basename(f.path) === name));
    const [first, second] = [groupOf('t1.txt'), groupOf('t2.txt')];
    assert.strictEqual(first.length, 1, 't1.txt in one group');
    assert.strictEqual(second.length, 1, 't2.txt in one group');
    assert.notStrictEqual(first[0].id, second[0].id, 'the two writes in two groups');
    for (const [group, name, pane] of [
      [first[0], 't1.txt', panes.first],
      [second[0], 't2.txt', panes.second],
    ] as const) {
      const change = group.files.find((f) => path.basename(f.path) === name)!;
      assert.deepStrictEqual([name, change.attribution, change.source], [name, 'certain', 'tools-route']);
      const pid = Number(/^claude-pid-(\d+)$/.exec(group.id)?.[1]);
      assert.ok(pid && runsUnder(pid, pane), `${name}'s group (${group.id}) is the claude running in its own tmux pane (pid ${pane})`);
      // Only its own write there: the other claude's file is not in this group.
      assert.deepStrictEqual(
        group.files.map((f) => path.basename(f.path)),
        [name],
      );
    }

    // The packaged extension runs in Production mode here, and this run does not set the harness's
    // variable: a scripted "undo" is ignored and the question asked, which a window running extension
    // tests refuses (the command then shows an error and returns nothing), so the line the user edited
    // after claude stays. The outer test checks the extension logged the ignored answer.
    fs.writeFileSync(path.join(s.workspace, 't1.txt'), 'first, edited by the user afterwards\n');
    const undone = await vscode.commands.executeCommand(
      'nativeClaude.changes.undoFile',
      { sessionId: first[0].id, filePath: path.join(s.workspace, 't1.txt') },
      { answer: 'undo' },
    );
    data.scriptedUndo = undone ?? 'nothing (the question was refused)';
    assert.ok(undone === undefined || JSON.stringify(undone) === '[false]', `not undone (got ${JSON.stringify(undone)})`);
    assert.strictEqual(read('t1.txt'), 'first, edited by the user afterwards\n');
  }
});
