/**
 * The screen of a claude running in a private tmux server (`tmux -L <socket>`), for the outer real tests
 * (Node) and the inner suites (VS Code's extension host) alike: the one copy of "run tmux", "read the
 * pane" and "wait until the pane shows …".
 */
import { execFile } from 'node:child_process';

export function tmux(socket: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 10_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`tmux ${args.join(' ')}: ${err.message} ${stderr}`)) : resolve(stdout),
    );
  });
}

/** The visible text of a pane (`main` unless another window is named), trailing blanks dropped. */
export async function screenOf(socket: string, target = 'main'): Promise<string> {
  return (await tmux(socket, 'capture-pane', '-p', '-t', target)).replace(/\s+$/, '');
}

/** What to wait for: text on the screen, a pattern, or any test of the whole screen. */
export type ScreenWanted = string | RegExp | ((screen: string) => boolean);

/**
 * Waits until the pane shows `wanted`; returns that screen. On timeout the error carries the last screen
 * (what claude did instead).
 */
export async function waitForScreenOf(
  socket: string,
  wanted: ScreenWanted,
  timeoutMs = 30_000,
  options: { target?: string; what?: string; intervalMs?: number } = {},
): Promise<string> {
  const test = typeof wanted === 'function' ? wanted : (s: string) => (typeof wanted === 'string' ? s.includes(wanted) : wanted.test(s));
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (;;) {
    last = await screenOf(socket, options.target).catch((e: Error) => `(no screen: ${e.message})`);
    if (test(last)) return last;
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
  const what = options.what ?? (typeof wanted === 'function' ? 'what was waited for' : String(wanted));
  throw new Error(`claude's screen (${socket}${options.target ? ` ${options.target}` : ''}) did not show ${what} within ${timeoutMs} ms. Screen:\n${last}`);
}
