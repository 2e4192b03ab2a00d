// TerminalHost for VS Code: runs the model's commands in visible integrated terminals and reads
// their output through shell integration (docs/vscode-traps.md, traps 12-17).
//
// Decided:
//  - Terminals are reused per working directory: an idle terminal of ours whose shell is in that
//    folder (as shell integration reports it, else the folder it was created in) takes the command.
//  - One command at a time per terminal (trap 16). A command for a folder whose terminal is busy
//    gets a NEW terminal instead of waiting: a timed-out command (a dev server, a watcher) can run
//    for hours, and waiting behind it would block the model for nothing.
//  - A terminal stays busy until VS Code reports the command's end, or its output stream ends.
//    After a timeout it therefore stays busy while the command runs on.
//  - Without shell integration the command is still sent (visibly, with sendText) but nothing can
//    be read; such a terminal stays busy for good, since nobody can tell when its command ends.
//
// Only types come from 'vscode': the extension passes `vscode.window`, tests pass a fake.

import * as path from 'path';
import type * as vscode from 'vscode';
import type { CommandOutcome, TerminalHost } from '../../host/terminal';
import { collectTerminalOutput, type CollectedTerminalOutput } from '../../terminal/terminalOutput';

/** The part of `vscode.window` used here. */
export interface TerminalApi {
  createTerminal(options: vscode.TerminalOptions): vscode.Terminal;
  readonly onDidChangeTerminalShellIntegration: vscode.Event<vscode.TerminalShellIntegrationChangeEvent>;
  readonly onDidEndTerminalShellExecution: vscode.Event<vscode.TerminalShellExecutionEndEvent>;
  readonly onDidCloseTerminal: vscode.Event<vscode.Terminal>;
}

/** Set in our terminals so captured commands never stop in a pager waiting for a key (trap 17). */
export const CAPTURED_COMMAND_ENV: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  SYSTEMD_PAGER: 'cat',
  GH_PAGER: 'cat',
  AWS_PAGER: '',
  LESS: '-FRX',
};

export interface TerminalRunnerOptions {
  /** How long a new terminal may take to activate shell integration (trap 12). Default 5000. */
  shellIntegrationTimeoutMs?: number;
  /** After the output stream ends, how long to wait for the exit code (trap 14). Default 3000. */
  exitCodeGraceMs?: number;
  /** After the end event, how long the rest of the output may take to arrive. Default 1000. */
  drainGraceMs?: number;
  /** After Ctrl+C, how long to wait for the command to end. Default 3000. */
  cancelGraceMs?: number;
  /** Output is capped to this many characters, head and tail kept. Default 30000 (the CLI's Bash cap). */
  maxOutputChars?: number;
  /** Added to CAPTURED_COMMAND_ENV for the terminals created here. */
  env?: Record<string, string>;
  platform?: NodeJS.Platform;
}

interface ManagedTerminal {
  readonly terminal: vscode.Terminal;
  readonly createdCwd: string;
  busy: boolean;
  /** Shell integration had its chance: do not wait for it again. */
  integrationWaited: boolean;
  closed: boolean;
  readonly whenClosed: Promise<'closed'>;
  markClosed(): void;
}

export const NO_SHELL_INTEGRATION_OUTPUT =
  'The command was sent to the terminal and runs there, visible to the user, but its output and exit code cannot be read: shell integration is not active.';

export class VsCodeTerminalRunner implements TerminalHost, vscode.Disposable {
  private readonly terminals: ManagedTerminal[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly options: Required<Omit<TerminalRunnerOptions, 'env'>> & { env: Record<string, string> };

  constructor(
    private readonly api: TerminalApi,
    options: TerminalRunnerOptions = {},
  ) {
    this.options = {
      shellIntegrationTimeoutMs: options.shellIntegrationTimeoutMs ?? 5000,
      exitCodeGraceMs: options.exitCodeGraceMs ?? 3000,
      drainGraceMs: options.drainGraceMs ?? 1000,
      cancelGraceMs: options.cancelGraceMs ?? 3000,
      maxOutputChars: options.maxOutputChars ?? 30_000,
      env: { ...CAPTURED_COMMAND_ENV, ...options.env },
      platform: options.platform ?? process.platform,
    };
    this.subscriptions.push(
      api.onDidCloseTerminal((terminal) => {
        const index = this.terminals.findIndex((m) => m.terminal === terminal);
        if (index === -1) return;
        const [managed] = this.terminals.splice(index, 1);
        managed.markClosed();
      }),
    );
  }

  async run(command: string, options: { cwd: string; timeoutMs: number; signal?: AbortSignal }): Promise<CommandOutcome> {
    const { cwd, timeoutMs, signal } = options;
    if (signal?.aborted) return { exit_code: null, output: 'Cancelled before the command was sent.', cwd, output_captured: false };
    const managed = this.acquire(cwd);
    try {
      managed.terminal.show(true);
      const integration = await this.shellIntegrationOf(managed, signal);
      if (signal?.aborted) {
        managed.busy = false;
        return { exit_code: null, output: 'Cancelled before the command was sent.', cwd, output_captured: false };
      }
      if (!integration) {
        managed.terminal.sendText(command, true);
        // Stays busy for good: without shell integration nobody can tell when the command ends, and the
        // next command typed here would land in whatever still runs (a dev server, a prompt) (trap 16).
        return { exit_code: null, output: NO_SHELL_INTEGRATION_OUTPUT, cwd, output_captured: false };
      }
      return await this.execute(managed, integration, command, cwd, timeoutMs, signal);
    } catch (error) {
      managed.busy = false;
      throw error;
    }
  }

  /** The terminals this runner has open, for tests and status. */
  openTerminals(): readonly { terminal: vscode.Terminal; busy: boolean }[] {
    return this.terminals.map((m) => ({ terminal: m.terminal, busy: m.busy }));
  }

  dispose(): void {
    // The terminals stay: they are the user's to read and close.
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }

  private normalize(p: string): string {
    const api = this.options.platform === 'win32' ? path.win32 : path.posix;
    const resolved = api.resolve(p).replace(/[\\/]+$/, '') || api.sep;
    return this.options.platform === 'win32' ? resolved.toLowerCase() : resolved;
  }

  private currentCwd(m: ManagedTerminal): string {
    return m.terminal.shellIntegration?.cwd?.fsPath ?? m.createdCwd;
  }

  /** Picks an idle terminal in `cwd` or creates one, and marks it busy before any await. */
  private acquire(cwd: string): ManagedTerminal {
    const key = this.normalize(cwd);
    const idle = this.terminals.find((m) => !m.busy && !m.closed && m.terminal.exitStatus === undefined && this.normalize(this.currentCwd(m)) === key);
    if (idle) {
      idle.busy = true;
      return idle;
    }
    const siblings = this.terminals.filter((m) => this.normalize(m.createdCwd) === key).length;
    const name = `Claude: ${path.basename(cwd) || cwd}${siblings > 0 ? ` (${siblings + 1})` : ''}`;
    const terminal = this.api.createTerminal({ name, cwd, env: this.options.env, isTransient: true });
    let markClosed = (): void => undefined;
    const whenClosed = new Promise<'closed'>((resolve) => {
      markClosed = () => resolve('closed');
    });
    const managed: ManagedTerminal = {
      terminal,
      createdCwd: cwd,
      busy: true,
      integrationWaited: false,
      closed: false,
      whenClosed,
      markClosed: () => {
        managed.closed = true;
        markClosed();
      },
    };
    this.terminals.push(managed);
    return managed;
  }

  /** Shell integration arrives some time after the terminal is created: wait for it, bounded (trap 12). */
  private shellIntegrationOf(m: ManagedTerminal, signal: AbortSignal | undefined): Promise<vscode.TerminalShellIntegration | undefined> {
    if (m.terminal.shellIntegration) return Promise.resolve(m.terminal.shellIntegration);
    if (m.integrationWaited) return Promise.resolve(undefined);
    m.integrationWaited = true;
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        subscription.dispose();
        signal?.removeEventListener('abort', finish);
        resolve(m.terminal.shellIntegration);
      };
      const subscription = this.api.onDidChangeTerminalShellIntegration((event) => {
        if (event.terminal === m.terminal) finish();
      });
      const timer = setTimeout(finish, this.options.shellIntegrationTimeoutMs);
      signal?.addEventListener('abort', finish, { once: true });
      void m.whenClosed.then(finish);
    });
  }

  // Long (~100 lines) because one command's race (end event, stream end, close, timeout, cancel) shares its promises and timers.
  private async execute(
    m: ManagedTerminal,
    integration: vscode.TerminalShellIntegration,
    command: string,
    cwd: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<CommandOutcome> {
    const timers = new Set<NodeJS.Timeout>();
    const sleep = (ms: number) =>
      new Promise<'elapsed'>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve('elapsed');
        }, ms);
        timers.add(timer);
      });
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<'cancelled'>((resolve) => {
      onAbort = () => resolve('cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
    });

    // Listen before executing: a fast command can end before executeCommand's caller runs again.
    let execution: vscode.TerminalShellExecution | undefined;
    let ended = false;
    let exitCode: number | undefined;
    let resolveEnded = (): void => undefined;
    const whenEnded = new Promise<'ended'>((resolve) => {
      resolveEnded = () => resolve('ended');
    });
    const endSubscription = this.api.onDidEndTerminalShellExecution((event) => {
      if (execution === undefined || event.execution !== execution) return;
      ended = true;
      exitCode = event.exitCode;
      endSubscription.dispose();
      m.busy = false;
      resolveEnded();
    });
    // Once the terminal closes nothing more will come; don't keep the listener.
    void m.whenClosed.then(() => endSubscription.dispose());

    const stopReading = new AbortController();
    let collecting: Promise<CollectedTerminalOutput>;
    try {
      execution = integration.executeCommand(command);
      // At once: output written before the first read() is lost (trap 13).
      collecting = collectTerminalOutput(execution.read(), { maxChars: this.options.maxOutputChars, signal: stopReading.signal });
    } catch (error) {
      endSubscription.dispose();
      throw error;
    }
    const collected = collecting.then(() => 'collected' as const);
    const finishReading = async (): Promise<CollectedTerminalOutput> => {
      stopReading.abort();
      return collecting;
    };
    const notes: string[] = [];
    let timedOut = false;

    try {
      const first = await Promise.race([collected, whenEnded, m.whenClosed, sleep(timeoutMs), cancelled]);
      switch (first) {
        case 'ended':
          // The end event can come before the last chunks: give them a moment.
          await Promise.race([collected, sleep(this.options.drainGraceMs)]);
          break;
        case 'collected':
          // The stream has no end marker and the exit code can be late or missing (trap 14).
          await Promise.race([whenEnded, m.whenClosed, sleep(this.options.exitCodeGraceMs)]);
          if (!ended) {
            endSubscription.dispose();
            m.busy = false; // the stream ended, so the command did
          }
          break;
        case 'closed':
          notes.push('[the terminal was closed before the command finished]');
          break;
        case 'elapsed':
          timedOut = true;
          break;
        case 'cancelled': {
          m.terminal.sendText('\x03', false); // Ctrl+C (trap 17)
          const after = await Promise.race([whenEnded, collected, m.whenClosed, sleep(this.options.cancelGraceMs)]);
          if (after === 'ended') await Promise.race([collected, sleep(this.options.drainGraceMs)]);
          if (after === 'collected') {
            await Promise.race([whenEnded, sleep(this.options.drainGraceMs)]);
            if (!ended) m.busy = false;
          }
          notes.push('[cancelled: Ctrl+C was sent to the terminal]');
          break;
        }
      }
      const output = await finishReading();
      let text = output.text;
      for (const note of notes) text += (text === '' || text.endsWith('\n') ? '' : '\n') + note;
      const outcome: CommandOutcome = { exit_code: ended && exitCode !== undefined ? exitCode : null, output: text, cwd, output_captured: true };
      if (timedOut) outcome.timed_out = true;
      return outcome;
    } finally {
      for (const timer of timers) clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
