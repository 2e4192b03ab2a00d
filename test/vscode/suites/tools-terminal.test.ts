/**
 * execute_command over the real `/tools` socket, run in real VS Code integrated terminals (bash with shell
 * integration). The inner half of test/real/vscode-tools.test.ts; runs only when that test started
 * code-server. (The approvalMode "always" modal is tested by the outer test in a plain window: a window
 * running extension tests refuses every dialog, "DialogService: refused to show dialog in tests".)
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describe, it } from '../bdd';
import { probe, sleep } from '../util';
import { record, toolsSuite, type ToolAnswer, type ToolsConnection } from '../toolsClient';

/** What execute_command answers (src/host/terminal.ts CommandOutcome, plus the tool's note). */
interface Outcome {
  exit_code: number | null;
  output: string;
  cwd: string;
  output_captured: boolean;
  timed_out?: boolean;
  note?: string;
  status?: string;
}

const claudeTerminals = () => vscode.window.terminals.filter((t) => t.name.startsWith('Claude: '));

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

function outcome(answer: ToolAnswer): Outcome {
  assert.strictEqual(answer.isError, false, answer.text);
  assert.ok(answer.json, `not JSON: ${answer.text}`);
  return answer.json as unknown as Outcome;
}

describe('execute_command in VS Code terminals', function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ws: string;

  toolsSuite((conn, root) => {
    t = conn;
    ws = root;
    fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
    assert.strictEqual(vscode.workspace.getConfiguration('terminal.integrated').get('defaultProfile.linux'), 'bash');
  });

  it('[terminal-exit] output and exit code of a command, in a new visible terminal of the workspace folder', async () => {
    const before = claudeTerminals().length;
    const answer = await t.call('execute_command', { command: "printf 'a\\nb\\n'; (exit 3)" });
    const o = outcome(answer);
    record('terminal-exit', { outcome: o, terminals: vscode.window.terminals.map((x) => x.name) });
    assert.strictEqual(o.output_captured, true, 'shell integration was used');
    assert.strictEqual(o.exit_code, 3);
    assert.strictEqual(o.output.replace(/\n+$/, ''), 'a\nb');
    assert.ok(!CONTROL.test(o.output), `control characters in ${JSON.stringify(o.output)}`);
    assert.strictEqual(o.cwd, ws);
    assert.strictEqual(claudeTerminals().length, before + 1, 'one terminal was created');
    const terminal = claudeTerminals()[before];
    assert.strictEqual(terminal.name, `Claude: ${path.basename(ws)}`);
    // Shown: it is the active terminal, and the panel shows a terminal (the workbench DOM, via the outer test).
    assert.strictEqual(vscode.window.activeTerminal, terminal);
    const shown = await probe<{ panelTerminalVisible: boolean; tabs: string[] }>('terminalPanel');
    record('terminal-exit', { shown });
    assert.strictEqual(shown.panelTerminalVisible, true, 'the terminal panel is visible');
  });

  it('[terminal-clean] colours and escapes are stripped; the idle terminal of the folder is reused; pagers are off', async () => {
    const count = claudeTerminals().length;
    assert.ok(count >= 1, 'the previous test left its terminal');
    const red = outcome(await t.call('execute_command', { command: "printf '\\033[31mred\\033[0m\\n'; ls --color=always -d sub" }));
    record('terminal-clean', { red });
    assert.strictEqual(red.exit_code, 0);
    assert.strictEqual(red.output.replace(/\n+$/, ''), 'red\nsub');
    assert.ok(!CONTROL.test(red.output), `control characters in ${JSON.stringify(red.output)}`);
    assert.strictEqual(claudeTerminals().length, count, 'the idle terminal was reused');

    const env = outcome(await t.call('execute_command', { command: 'printf "%s|%s\\n" "$PAGER" "$NATIVE_CLAUDE_PORT"' }));
    record('terminal-clean', { env });
    assert.strictEqual(env.output.trim(), `cat|${t.port}`);
    assert.strictEqual(claudeTerminals().length, count, 'the idle terminal was reused again');

    // Another folder gets its own terminal, started there.
    const sub = outcome(await t.call('execute_command', { command: 'pwd', cwd: 'sub' }));
    assert.strictEqual(sub.output.trim(), fs.realpathSync(path.join(ws, 'sub')));
    assert.strictEqual(claudeTerminals().length, count + 1);
    assert.ok(claudeTerminals().some((x) => x.name === 'Claude: sub'));
  });

  it('[terminal-timeout] a command past its timeout: the call returns early saying it still runs; the busy terminal is not reused', async () => {
    const count = claudeTerminals().length;
    const started = Date.now();
    const late = outcome(await t.call('execute_command', { command: 'sleep 5; echo late', timeout: 1500 }));
    const tookMs = Date.now() - started;
    record('terminal-timeout', { late, tookMs });
    assert.ok(tookMs < 4000, `returned after ${tookMs} ms`);
    assert.strictEqual(late.timed_out, true);
    assert.strictEqual(late.exit_code, null);
    assert.match(String(late.note), /still running/);
    assert.doesNotMatch(late.output, /late/);

    // The workspace folder's terminal is busy with the sleep: the next command gets a new one.
    const next = outcome(await t.call('execute_command', { command: 'echo second' }));
    assert.strictEqual(next.output.trim(), 'second');
    assert.strictEqual(claudeTerminals().length, count + 1, 'a busy terminal is never typed into');

    // Once the sleep is over both are idle: no new terminal.
    await sleep(Math.max(0, started + 6000 - Date.now()));
    const third = outcome(await t.call('execute_command', { command: 'echo third' }));
    assert.strictEqual(third.output.trim(), 'third');
    assert.strictEqual(claudeTerminals().length, count + 1);
  });

  it('[terminal-shell-exit] a command that ends the shell: the output so far, exit code unknown (null, never guessed)', async () => {
    const o = outcome(await t.call('execute_command', { command: "printf 'x\\n'; exit 4", cwd: 'sub' }));
    record('terminal-shell-exit', { outcome: o });
    assert.strictEqual(o.exit_code, null);
    assert.match(o.output, /^x\n/);
    assert.match(o.output, /\[the terminal was closed before the command finished\]$/);
    assert.ok(!claudeTerminals().some((x) => x.name === 'Claude: sub'), 'the closed terminal is gone');
  });
});
