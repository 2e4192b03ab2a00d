/**
 * A real `claude` CLI run directly under an integrated terminal's shell, inside `script` (util-linux),
 * which records its screen output into a log: the CLI's parent chain reaches the terminal's shell (how
 * the extension tells which terminal a claude runs in; tmux would cut that chain), and the log, with
 * escape sequences removed or rendered, shows the CLI's prompt. For inner suites.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { sleep, terminalWithShellIntegration, waitFor } from './util';
import { renderTerminalOutput } from '../../src/terminal/terminalOutput';

/** The terminal output with escape sequences removed (enough to find the CLI's words). */
function plain(raw: string): string {
  return raw
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, ' ')
    .replace(/\x1b[()][0-9A-Za-z]/g, '')
    .replace(/\x1b[=>78]/g, '');
}

export class ScriptedClaude {
  terminal!: vscode.Terminal;
  /** `logDir`: where `script` writes this claude's screen output (read when the log is first needed). */
  constructor(
    readonly tag: string,
    private readonly logDir: () => string,
  ) {}

  get log(): string {
    return path.join(this.logDir(), `${this.tag}.log`);
  }

  output(): string {
    return fs.existsSync(this.log) ? plain(fs.readFileSync(this.log, 'utf8')) : '';
  }

  async start(cwd: string): Promise<void> {
    this.terminal = await terminalWithShellIntegration({ name: `claude-${this.tag}`, cwd, shellPath: '/bin/bash' }, 30_000);
    this.terminal.show(true);
    // The pinned CLI first on PATH; `script -f` flushes the screen output to the log as it comes.
    this.terminal.sendText(`export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; exec script -qf -c claude ${this.log}`);
  }

  async waitFor(pattern: RegExp | string, timeoutMs = 30_000, since = 0): Promise<string> {
    const test = (s: string) => (typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s));
    return waitFor(
      `claude-${this.tag} to show ${String(pattern)}`,
      async () => {
        const out = this.output().slice(since);
        if (test(out)) return out;
        // The CLI redraws only changed cells, so a text can be split in the stripped log: look at the
        // screen as a terminal renders it too (the texts waited for this way are new to the screen).
        if (typeof pattern !== 'string' || since === 0) return undefined;
        const screen = await renderTerminalOutput(fs.existsSync(this.log) ? fs.readFileSync(this.log, 'utf8') : '');
        return screen.includes(pattern) ? screen : undefined;
      },
      timeoutMs,
      100,
    );
  }

  /** The whole output as a terminal emulator renders it (the CLI redraws only the cells that changed). */
  async screen(): Promise<string> {
    return renderTerminalOutput(fs.existsSync(this.log) ? fs.readFileSync(this.log, 'utf8') : '');
  }

  /** Types a prompt and presses Enter (the terminal's input, as the user's keyboard would). */
  async submit(prompt: string): Promise<void> {
    const mark = this.output().length;
    this.terminal.sendText(prompt, false);
    await this.waitFor(prompt, 5_000, Math.max(0, mark - 200));
    await sleep(300);
    this.terminal.sendText('\r', false);
  }

  /**
   * Submits a prompt and waits for the model's answer on the screen, as rendered by a terminal
   * emulator: the CLI redraws only the cells that changed, so a stripped log can hold "answered
   * sel-a2" as "answered sel-a" plus a lone "2" elsewhere. Under load the CLI can also take the Enter
   * as part of the typed text: then Enter is pressed once more (a no-op on an empty input line).
   */
  async ask(prompt: string, answer: string): Promise<void> {
    const onScreen = async () => (await renderTerminalOutput(fs.existsSync(this.log) ? fs.readFileSync(this.log, 'utf8') : '')).includes(answer);
    await this.submit(prompt);
    try {
      await waitFor(`claude-${this.tag} to show ${answer}`, onScreen, 15_000, 250);
    } catch {
      this.terminal.sendText('\r', false);
      await waitFor(`claude-${this.tag} to show ${answer}`, onScreen, 30_000, 250);
    }
  }

  /** Ends claude (as a crash or `kill` would; its socket closes) and closes its terminal. */
  async kill(): Promise<void> {
    const pids = await this.processes();
    for (const pid of pids.slice(1).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    this.terminal.dispose();
  }

  /** The processes running under this terminal's shell (claude among them). */
  async processes(): Promise<number[]> {
    const shell = await this.terminal.processId;
    return [shell!, ...descendants(shell!)];
  }
}

export function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
/** Every descendant of `root`, breadth first (from /proc). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
