/**
 * The real `claude` CLI started from VS Code's integrated terminal, for inner suites: claude runs in a
 * private tmux server started FROM the terminal (`tmux -L $NC_TMUX_SOCKET … new-session -d … claude`), so
 * it has exactly that terminal's environment (CLAUDE_CODE_SSE_PORT comes from the extension's environment
 * collection) and its screen is readable with `capture-pane`.
 */
import * as vscode from 'vscode';
import { sleep, terminalWithShellIntegration, waitFor } from './util';
import { screenOf, tmux as tmuxOn, waitForScreenOf } from '../support/tmuxScreen';
import realClients from '../setup/real-clients.json';
import { compareVersions } from '../../src/util/cliVersion';

const SOCKET = process.env.NC_TMUX_SOCKET ?? '';

export function tmux(...args: string[]): Promise<string> {
  return tmuxOn(SOCKET, ...args);
}

/** The screen of claude in this suite's tmux server (its `main` window, or the one named). */
export function screen(target?: string): Promise<string> {
  return screenOf(SOCKET, target);
}

export function waitForScreen(pattern: RegExp | string, timeoutMs = 30_000, target?: string): Promise<string> {
  return waitForScreenOf(SOCKET, pattern, timeoutMs, { target });
}

/** Types a prompt into claude, waits for the echo, presses Enter. */
export async function submit(prompt: string): Promise<void> {
  await tmux('send-keys', '-t', 'main', '-l', '--', prompt);
  await waitForScreen(prompt, 5_000);
  await sleep(200);
  await tmux('send-keys', '-t', 'main', 'Enter');
}

/** The CLI version under test: the pinned one, or the CLI matrix's (NC_CLAUDE_VERSION from the harness). */
export function claudeVersion(): string {
  return process.env.NC_CLAUDE_VERSION ?? realClients.claude;
}

export function claudeAtLeast(version: string): boolean {
  return compareVersions(claudeVersion(), version) >= 0;
}

/**
 * Opens an integrated terminal in `cwd` and starts claude in it under tmux; resolves once claude is
 * connected (`connected()`) and shows its prompt. 2.1 connects by itself with CLAUDE_CODE_SSE_PORT; older
 * lines get `--ide` (under tmux they are not children of VS Code's terminal). `extraArgs` go on claude's
 * command line (e.g. `--debug-file <path>`).
 */
export async function startClaudeInTerminal(cwd: string, connected: () => boolean, extraArgs: string[] = []): Promise<vscode.Terminal> {
  const terminal = await terminalWithShellIntegration({ name: 'claude', cwd, shellPath: '/bin/bash' }, 30_000);
  terminal.show();
  const command = [claudeAtLeast('2.1.0') ? 'claude' : 'claude --ide', ...extraArgs.map((a) => `'${a.replace(/'/g, `'\\''`)}'`)].join(' ');
  // -d: the tmux server (started from this shell, with its environment) keeps claude and its screen.
  // The pinned CLI first on PATH: another `claude` on the machine must not stand in for it.
  terminal.sendText(
    `export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${SOCKET} -f /dev/null start-server \\; set-option -g remain-on-exit on \\; set-option -g history-limit 5000 \\; ` +
      `new-session -d -s main -x 200 -y 50 ${command}`,
  );
  await waitFor('claude to connect to the extension', connected, 60_000, 100);
  await waitForScreen(/^[❯>][ \u00a0]/m, 30_000); // ❯ from 2.0 on, > in 1.0.x
  // 1.0.x's welcome box shows no version.
  if (claudeAtLeast('2.0.0')) await waitForScreen(new RegExp(`Claude Code v${claudeVersion().replace(/\./g, '\\.')}`), 5_000);
  return terminal;
}

/**
 * Answers one of claude's dialogs (e.g. "Do you want to proceed?") with `keys`, pressed again until the
 * dialog is gone: keys pressed while the dialog is still settling are dropped.
 */
export async function answer(question: RegExp, keys: string[] = ['Enter'], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await waitForScreen(question, timeoutMs);
  await sleep(400);
  for (;;) {
    await tmux('send-keys', '-t', 'main', ...keys);
    const retryAt = Math.min(Date.now() + 1_500, deadline);
    while (Date.now() < retryAt) {
      if (!question.test(await screen())) return;
      await sleep(100);
    }
    if (Date.now() >= deadline)
      throw new Error(`claude's dialog ${String(question)} did not close after ${keys.join(' ')} for ${timeoutMs} ms. Screen:\n${await screen()}`);
  }
}

/**
 * Waits for claude to show `done <name>` (a scripted model's end of a scenario), saying yes to each "Do
 * you want to proceed?" claude asks on the way (e.g. before the model's first use of a tool); returns the
 * screen and how many it answered.
 */
export async function waitForDone(name: string, timeoutMs = 90_000): Promise<{ screen: string; proceedAnswered: number }> {
  const deadline = Date.now() + timeoutMs;
  let proceedAnswered = 0;
  for (;;) {
    const shown = await screen();
    if (shown.includes(`done ${name}`)) return { screen: shown, proceedAnswered };
    if (/Do you want to proceed\?/.test(shown)) {
      await answer(/Do you want to proceed\?/, ['Enter'], 15_000);
      proceedAnswered++;
    }
    if (Date.now() > deadline) throw new Error(`claude did not finish ${name} within ${timeoutMs / 1000} s. Screen:\n${shown}`);
    await sleep(200);
  }
}
