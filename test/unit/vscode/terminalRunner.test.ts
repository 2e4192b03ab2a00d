import type * as vscode from 'vscode';
import { CAPTURED_COMMAND_ENV, NO_SHELL_INTEGRATION_OUTPUT, VsCodeTerminalRunner, type TerminalApi } from '../../../src/vscode/terminals/terminalRunner';

class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();
  readonly event = ((listener: (value: T) => void) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }) as unknown as vscode.Event<T>;
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  get size(): number {
    return this.listeners.size;
  }
}

/** Output written before read() is called is lost, as in VS Code (trap 13). */
class FakeExecution {
  private queue: string[] = [];
  private waiting: ((r: IteratorResult<string>) => void) | undefined;
  private reading = false;
  private ended = false;
  constructor(readonly commandLine: string) {}
  write(data: string): void {
    if (!this.reading || this.ended) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: data, done: false });
    } else this.queue.push(data);
  }
  end(): void {
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
  }
  read(): AsyncIterable<string> {
    this.reading = true;
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          if (this.queue.length) return Promise.resolve({ value: this.queue.shift()!, done: false });
          if (this.ended) return Promise.resolve({ value: undefined, done: true });
          return new Promise<IteratorResult<string>>((resolve) => (this.waiting = resolve));
        },
        return: () => Promise.resolve({ value: undefined, done: true }),
      }),
    };
  }
}

interface FakeTerminal {
  name: string;
  options: vscode.TerminalOptions;
  shellIntegration: { cwd?: { fsPath: string }; executeCommand(c: string): FakeExecution } | undefined;
  exitStatus: undefined;
  sent: string[];
  shown: number;
  show(): void;
  sendText(text: string, execute?: boolean): void;
}

/** A fake vscode.window; `onExecute` scripts what each command does. */
function fakeWindow(script: {
  integrationAfterMs?: number | null; // null: never
  onExecute?: (execution: FakeExecution, terminal: FakeTerminal, end: (exitCode: number | undefined) => void) => void;
}) {
  const changeIntegration = new Emitter<vscode.TerminalShellIntegrationChangeEvent>();
  const endExecution = new Emitter<vscode.TerminalShellExecutionEndEvent>();
  const closeTerminal = new Emitter<vscode.Terminal>();
  const terminals: FakeTerminal[] = [];
  const api: TerminalApi = {
    createTerminal: (options) => {
      const terminal: FakeTerminal = {
        name: String(options.name),
        options,
        shellIntegration: undefined,
        exitStatus: undefined,
        sent: [],
        shown: 0,
        show() {
          this.shown++;
        },
        sendText(text, execute = true) {
          this.sent.push(execute ? `${text}\n` : text);
        },
      };
      const integration = {
        cwd: undefined as { fsPath: string } | undefined,
        executeCommand: (command: string) => {
          const execution = new FakeExecution(command);
          // The command starts writing at once, in the same tick: only an immediate read() sees it.
          queueMicrotask(() =>
            script.onExecute?.(execution, terminal, (exitCode) =>
              endExecution.fire({ execution, exitCode, terminal, shellIntegration: integration } as unknown as vscode.TerminalShellExecutionEndEvent),
            ),
          );
          return execution;
        },
      };
      terminals.push(terminal);
      if (script.integrationAfterMs !== null) {
        setTimeout(() => {
          terminal.shellIntegration = integration;
          changeIntegration.fire({ terminal, shellIntegration: integration } as unknown as vscode.TerminalShellIntegrationChangeEvent);
        }, script.integrationAfterMs ?? 5);
      }
      return terminal as unknown as vscode.Terminal;
    },
    onDidChangeTerminalShellIntegration: changeIntegration.event,
    onDidEndTerminalShellExecution: endExecution.event,
    onDidCloseTerminal: closeTerminal.event,
  };
  return { api, terminals, endExecution, close: (t: FakeTerminal) => closeTerminal.fire(t as unknown as vscode.Terminal) };
}

const fast = { shellIntegrationTimeoutMs: 300, exitCodeGraceMs: 60, drainGraceMs: 60, cancelGraceMs: 200 };

describe('tools: terminal runner (traps 12-17)', () => {
  test('waits for shell integration, reads at once, cleans split escape sequences, reports the exit code', async () => {
    const w = fakeWindow({
      integrationAfterMs: 50,
      onExecute: (execution, _t, end) => {
        execution.write('\x1b[32mgre');
        execution.write('en\x1b');
        execution.write('[0m\r\nprogress 10%\rprogress 100%\r\ndone\r\n');
        execution.end();
        end(3);
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    const outcome = await runner.run('npm test', { cwd: '/w', timeoutMs: 5000 });
    expect(outcome).toEqual({ exit_code: 3, output: 'green\nprogress 100%\ndone\n', cwd: '/w', output_captured: true });
    const [terminal] = w.terminals;
    expect(terminal.options).toMatchObject({ cwd: '/w', isTransient: true, env: expect.objectContaining({ PAGER: 'cat', GIT_PAGER: 'cat' }) });
    expect(terminal.options.env).toEqual(CAPTURED_COMMAND_ENV);
    expect(terminal.shown).toBe(1);
    expect(terminal.sent).toEqual([]);
    runner.dispose();
  });

  test('without shell integration the command is still sent, visibly, and reported as not captured', async () => {
    const w = fakeWindow({ integrationAfterMs: null });
    const runner = new VsCodeTerminalRunner(w.api, { ...fast, shellIntegrationTimeoutMs: 1000 });
    const outcome = await runner.run('make', { cwd: '/w', timeoutMs: 5000 });
    expect(outcome).toEqual({ exit_code: null, output: NO_SHELL_INTEGRATION_OUTPUT, cwd: '/w', output_captured: false });
    expect(outcome.output.endsWith('shell integration is not active.')).toBe(true);
    expect(w.terminals[0].sent).toEqual(['make\n']);
    // Nobody can tell when `make` ends (it may be a dev server that never does): the next command gets its
    // own terminal instead of being typed into whatever still runs in the first (trap 16).
    await runner.run('make again', { cwd: '/w', timeoutMs: 5000 });
    expect(w.terminals.map((t) => t.sent)).toEqual([['make\n'], ['make again\n']]);
    expect(runner.openTerminals().map((t) => t.busy)).toEqual([true, true]);
    runner.dispose();
  });

  test('a missing end event gives exit_code null, never 0, after a bounded wait', async () => {
    const w = fakeWindow({
      onExecute: (execution) => {
        execution.write('ok\n');
        execution.end(); // no end event: ssh, nested shell
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    const outcome = await runner.run('ssh host true', { cwd: '/w', timeoutMs: 5000 });
    expect(outcome.exit_code).toBeNull();
    expect(outcome.output).toBe('ok\n');
    expect(runner.openTerminals()[0].busy).toBe(false);
    runner.dispose();
  });

  test('an end event with an undefined exit code is reported as null', async () => {
    const w = fakeWindow({
      onExecute: (execution, _t, end) => {
        execution.end();
        end(undefined);
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    expect((await runner.run('x', { cwd: '/w', timeoutMs: 5000 })).exit_code).toBeNull();
    runner.dispose();
  });

  test('a stream that never ends is bounded by the end event', async () => {
    const w = fakeWindow({
      onExecute: (execution, _t, end) => {
        execution.write('partial');
        setTimeout(() => end(0), 10);
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    expect(await runner.run('x', { cwd: '/w', timeoutMs: 5000 })).toEqual({ exit_code: 0, output: 'partial', cwd: '/w', output_captured: true });
    runner.dispose();
  });

  test('a timeout returns the output so far, the terminal stays busy, and the next command gets a new terminal', async () => {
    let finishFirst: (() => void) | undefined;
    const w = fakeWindow({
      onExecute: (execution, _t, end) => {
        execution.write('server listening\n');
        if (execution.commandLine === 'npm start') {
          finishFirst = () => {
            execution.end();
            end(130);
          };
        } else {
          execution.end();
          end(0);
        }
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    const outcome = await runner.run('npm start', { cwd: '/w', timeoutMs: 100 });
    expect(outcome).toEqual({ exit_code: null, output: 'server listening\n', cwd: '/w', output_captured: true, timed_out: true });
    expect(runner.openTerminals().map((t) => t.busy)).toEqual([true]);

    await runner.run('git status', { cwd: '/w', timeoutMs: 5000 });
    expect(w.terminals.map((t) => t.name)).toEqual(['Claude: w', 'Claude: w (2)']);

    finishFirst!();
    expect(runner.openTerminals().map((t) => t.busy)).toEqual([false, false]);
    await runner.run('ls', { cwd: '/w', timeoutMs: 5000 });
    expect(w.terminals).toHaveLength(2);
    runner.dispose();
  });

  test('concurrent commands for one folder never share a terminal', async () => {
    const w = fakeWindow({
      onExecute: (execution, _t, end) =>
        setTimeout(() => {
          execution.end();
          end(0);
        }, 30),
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    await Promise.all([runner.run('a', { cwd: '/w', timeoutMs: 5000 }), runner.run('b', { cwd: '/w', timeoutMs: 5000 })]);
    expect(w.terminals).toHaveLength(2);
    runner.dispose();
  });

  test('reuses per cwd: another folder gets its own terminal, and a shell that cd-ed away is matched by where it is now', async () => {
    const w = fakeWindow({
      onExecute: (execution, _t, end) => {
        execution.end();
        end(0);
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    await runner.run('a', { cwd: '/w', timeoutMs: 5000 });
    await runner.run('b', { cwd: '/w/sub', timeoutMs: 5000 });
    await runner.run('c', { cwd: '/w/', timeoutMs: 5000 });
    expect(w.terminals.map((t) => t.options.cwd)).toEqual(['/w', '/w/sub']);
    w.terminals[0].shellIntegration!.cwd = { fsPath: '/w/sub' }; // the user ran `cd sub` in it
    await runner.run('d', { cwd: '/w', timeoutMs: 5000 });
    expect(w.terminals).toHaveLength(3);
    runner.dispose();
  });

  test('cancellation sends Ctrl+C and returns what was captured', async () => {
    let execution: FakeExecution | undefined;
    let endIt: ((code: number) => void) | undefined;
    let executed!: () => void;
    const commandStarted = new Promise<void>((r) => (executed = r));
    const w = fakeWindow({
      onExecute: (e, terminal, end) => {
        execution = e;
        endIt = end;
        executed();
        e.write('working...\n');
        const send = terminal.sendText.bind(terminal);
        terminal.sendText = (text, exec) => {
          send(text, exec);
          if (text === '\x03') {
            e.write('^C\n');
            e.end();
            endIt?.(130);
          }
        };
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    const controller = new AbortController();
    const running = runner.run('sleep 100', { cwd: '/w', timeoutMs: 5000, signal: controller.signal });
    await commandStarted;
    expect(execution).toBeDefined();
    controller.abort();
    const outcome = await running;
    expect(w.terminals[0].sent).toEqual(['\x03']);
    expect(outcome.exit_code).toBe(130);
    expect(outcome.output).toBe('working...\n^C\n[cancelled: Ctrl+C was sent to the terminal]');
    expect(runner.openTerminals()[0].busy).toBe(false);
    runner.dispose();
  });

  test('a terminal closed mid-command ends the call and is not reused', async () => {
    const w = fakeWindow({
      onExecute: (e, terminal) => {
        e.write('half');
        setTimeout(() => w.close(terminal), 20);
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, fast);
    const outcome = await runner.run('x', { cwd: '/w', timeoutMs: 5000 });
    expect(outcome).toMatchObject({ exit_code: null, output: 'half\n[the terminal was closed before the command finished]' });
    expect(runner.openTerminals()).toHaveLength(0);
    runner.dispose();
  });

  test('caps long output keeping head and tail', async () => {
    const w = fakeWindow({
      onExecute: (execution, _t, end) => {
        for (let i = 0; i < 2000; i++) execution.write(`line ${i}\n`);
        execution.end();
        end(0);
      },
    });
    const runner = new VsCodeTerminalRunner(w.api, { ...fast, maxOutputChars: 500 });
    const { output } = await runner.run('seq', { cwd: '/w', timeoutMs: 5000 });
    expect(output.length).toBeLessThanOrEqual(500);
    expect(output).toMatch(/^line 0\n/);
    expect(output).toMatch(/line 1999\n$/);
    expect(output).toMatch(/output truncated/);
    runner.dispose();
  });
});
