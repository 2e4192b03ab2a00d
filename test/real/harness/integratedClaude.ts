/**
 * The real `claude` CLI typed into VS Code's integrated terminal (test/real/vscode-ide.test.ts).
 *
 * - `prepareIntegratedClaude()` makes what code-server's environment needs so that `claude`, typed into an
 *   integrated terminal, runs isolated and offline: a temp HOME and CLAUDE_CONFIG_DIR seeded like
 *   claudeCli.ts does, a bin dir with a `claude` symlink to the cached CLI (put first on PATH), the fake
 *   model's URL and key, and a private tmux socket name. The inner suite starts the CLI with
 *   `tmux -L $NC_TMUX_SOCKET … new-session … claude` from the terminal, so the CLI gets exactly the
 *   terminal's environment (CLAUDE_CODE_SSE_PORT comes from the extension) and its screen stays readable.
 * - `runSuiteWithProbes()` is `runSuiteInVsCode()` plus "probes": the inner suite logs
 *   `[nc-probe] <id> <name> <json arg>` and the outer side answers into `<probeDir>/<id>.json`, so an inner
 *   test can ask the outer process for what only it can see (the workbench DOM, e.g. the status bar).
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as util from 'util';
import type { Page } from 'playwright-core';
import { claudeBinaryPath, DEFAULT_API_KEY, LEAKY_ENV, seedClaudeConfig } from './claudeCli';
import { openWorkbench, saveScreenshot, type CodeServer, type SuiteResult } from './codeServer';

export const PROBE_MARKER = '[nc-probe]';

export interface IntegratedClaude {
  /** Temp root holding home/, config/, bin/ and probes/. */
  root: string;
  home: string;
  configDir: string;
  /** `<configDir>/ide`: where the extension writes its lock file. */
  lockDir: string;
  binDir: string;
  probeDir: string;
  tmuxSocket: string;
  /** Environment for startCodeServer (reaches the extension host and the integrated terminals). */
  env: Record<string, string | undefined>;
  /** Kills the private tmux server (and the CLI in it) and removes its socket. Idempotent. */
  killTmux(): Promise<void>;
  /** killTmux() and removes the temp root. */
  cleanup(): Promise<void>;
}

export interface PrepareOptions {
  /** The workspace folder claude runs in (its trust dialog is pre-accepted). Realpath'd here. */
  workspace: string;
  modelUrl: string;
  apiKey?: string;
  /** Extra environment (e.g. paths the inner suite reads). */
  env?: Record<string, string>;
}

function run(cmd: string, args: string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: timeoutMs }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

export function prepareIntegratedClaude(opts: PrepareOptions): IntegratedClaude {
  const binary = claudeBinaryPath();
  if (!fs.existsSync(binary)) throw new Error(`claude CLI not found at ${binary}; run test/setup/install-real-clients.sh`);
  const workspace = fs.realpathSync(opts.workspace);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-ide-'));
  const home = path.join(root, 'home');
  const configDir = path.join(root, 'config');
  const binDir = path.join(root, 'bin');
  const probeDir = path.join(root, 'probes');
  for (const d of [home, configDir, binDir, probeDir]) fs.mkdirSync(d);
  fs.symlinkSync(binary, path.join(binDir, 'claude'));
  const apiKey = opts.apiKey ?? DEFAULT_API_KEY;
  seedClaudeConfig(configDir, { cwd: workspace, apiKey });
  const tmuxSocket = `nc-ide-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;

  const env: Record<string, string | undefined> = {};
  // Nothing of the shell running the tests (its own claude/IDE setup, TMUX, TERM_PROGRAM…) may leak.
  for (const k of Object.keys(process.env)) if (LEAKY_ENV.test(k)) env[k] = undefined;
  Object.assign(env, {
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: opts.modelUrl,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`,
    // VS Code's terminal may rebuild PATH, so the suite also puts this first when it types `claude`.
    NC_CLAUDE_BIN_DIR: binDir,
    NC_TMUX_SOCKET: tmuxSocket,
    NC_PROBE_DIR: probeDir,
    ...opts.env,
  });

  let killed = false;
  const killTmux = async () => {
    if (killed) return;
    killed = true;
    const socketPath = await run('tmux', ['-L', tmuxSocket, 'display-message', '-p', '#{socket_path}']).then((s) => s.trim(), () => '');
    const panePids = await run('tmux', ['-L', tmuxSocket, 'list-panes', '-a', '-F', '#{pane_pid}']).then((s) => s.split(/\s+/).filter(Boolean).map(Number), () => []);
    await run('tmux', ['-L', tmuxSocket, 'kill-server']).catch(() => undefined);
    const deadline = Date.now() + 3000;
    while (panePids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const pid of panePids.filter(alive)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    const fallback = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, tmuxSocket);
    for (const p of [socketPath, fallback]) if (p) fs.rmSync(p, { force: true });
  };
  return {
    root,
    home,
    configDir,
    lockDir: path.join(configDir, 'ide'),
    binDir,
    probeDir,
    tmuxSocket,
    env,
    killTmux,
    cleanup: async () => {
      await killTmux();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Probe handlers: name → answer (JSON-serialisable), computed in the outer process with the workbench page. */
export type Probes = Record<string, (page: Page, arg: unknown) => Promise<unknown>>;

/** Texts of the status-bar entries, e.g. `{ id: 'native-claude.native-claude.nativeClaude.status', text: 'Claude: 1 session', aria: … }`. */
export async function statusBarEntries(page: Page): Promise<Array<{ id: string; text: string; aria: string }>> {
  // A string, so this file needs no DOM typings.
  return page.evaluate(`Array.from(document.querySelectorAll('.part.statusbar .statusbar-item')).map((e) => ({
    id: e.id,
    text: (e.textContent || '').trim(),
    aria: (e.querySelector('[aria-label]') || e).getAttribute('aria-label') || '',
  }))`) as Promise<Array<{ id: string; text: string; aria: string }>>;
}

export interface RunWithProbesOptions {
  server: CodeServer;
  folder: string;
  /** Absolute path of a compiled suite index.js exporting `run(options)`. */
  suite: string;
  developmentPath: string;
  files?: string[];
  grep?: string;
  /** Mocha per-test timeout. */
  timeout?: number;
  timeoutMs?: number;
  probeDir: string;
  probes?: Probes;
  name?: string;
  /** Called with each line the extension host logs (already formatted), as it arrives. */
  onLog?: (line: string) => void;
}

/**
 * runSuiteInVsCode() (test/real/harness/codeServer.ts) with the workbench page at hand for probes. Closes the
 * browser when the suite has exited (the extension host then goes the way of a closed window).
 */
export async function runSuiteWithProbes(opts: RunWithProbesOptions): Promise<SuiteResult> {
  const { server } = opts;
  const started = Date.now();
  const shimDir = fs.mkdtempSync(path.join(server.tempDir, 'suite-'));
  const shim = path.join(shimDir, 'index.js');
  const inner = { grep: opts.grep, files: opts.files, timeout: opts.timeout };
  fs.writeFileSync(shim, `const target = require(${JSON.stringify(path.resolve(opts.suite))});\nexports.run = function () { return target.run(${JSON.stringify(inner)}); };\n`);
  const log: string[] = [];
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));
  let page: Page | undefined;
  const pendingProbes: Array<Promise<void>> = [];

  const answerProbe = async (line: string) => {
    const m = /\[nc-probe\] (\S+) (\S+) ?(.*)$/.exec(line);
    if (!m) return;
    const [, id, name, rawArg] = m;
    let answer: { ok: boolean; value?: unknown; error?: string };
    try {
      const handler = opts.probes?.[name];
      if (!handler) throw new Error(`no probe named ${name}`);
      if (!page) throw new Error('the workbench page is not open');
      answer = { ok: true, value: await handler(page, rawArg ? JSON.parse(rawArg) : undefined) };
    } catch (e) {
      answer = { ok: false, error: (e as Error).message };
    }
    const file = path.join(opts.probeDir, `${id}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(answer));
    fs.renameSync(`${file}.tmp`, file);
  };

  const timeoutMs = opts.timeoutMs ?? 240_000;
  const wb = await openWorkbench(server, opts.folder, {
    payload: [
      ['extensionDevelopmentPath', server.remoteUri(opts.developmentPath)],
      ['extensionTestsPath', server.remoteUri(shim)],
    ],
    waitForWorkbench: false,
    timeoutMs,
    beforeNavigate: async (p) => {
      page = p;
      await p.exposeFunction('codeAutomationLog', (level: unknown, args: unknown) => {
        const list = Array.isArray(args) ? args : [args];
        const line = `${String(level)}: ${util.format(...list.map((a) => (typeof a === 'string' || typeof a === 'number' ? a : JSON.stringify(a))))}`;
        log.push(line);
        opts.onLog?.(line);
        if (line.includes(PROBE_MARKER)) pendingProbes.push(answerProbe(line));
      });
      await p.exposeFunction('codeAutomationExit', (code: unknown) => resolveExit(typeof code === 'number' ? code : Number(code) || 1));
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), Math.max(0, timeoutMs - (Date.now() - started)))));
    const outcome = await Promise.race([exited, timedOut]);
    await Promise.allSettled(pendingProbes);
    if (outcome === 'timeout') {
      const screenshot = await saveScreenshot(wb.page, `${opts.name ?? 'suite'}-timeout`);
      throw new Error(`suite did not finish within ${timeoutMs} ms${screenshot ? ` (screenshot: ${screenshot})` : ''}\n--- log ---\n${log.join('\n')}`);
    }
    const result: SuiteResult = { exitCode: outcome, log, console: wb.console(), durationMs: Date.now() - started };
    if (outcome !== 0) result.screenshot = await saveScreenshot(wb.page, `${opts.name ?? 'suite'}-failed`);
    return result;
  } finally {
    if (timer) clearTimeout(timer);
    await wb.close();
    fs.rmSync(shimDir, { recursive: true, force: true });
  }
}

/** Lock files (`<port>.lock`) in `lockDir` now. */
export function lockFiles(lockDir: string): string[] {
  try {
    return fs.readdirSync(lockDir).filter((f) => /^\d+\.lock$/.test(f)).map((f) => path.join(lockDir, f));
  } catch {
    return [];
  }
}

/**
 * Kills the private tmux server on socket name `socket` (and what runs in its panes) and removes its
 * socket file; for tests that start more than one tmux server (e.g. `<tmuxSocket>-<tag>`). Idempotent.
 */
export async function killTmuxServer(socket: string): Promise<void> {
  const socketPath = await run('tmux', ['-L', socket, 'display-message', '-p', '#{socket_path}']).then((s) => s.trim(), () => '');
  const panePids = await run('tmux', ['-L', socket, 'list-panes', '-a', '-F', '#{pane_pid}']).then((s) => s.split(/\s+/).filter(Boolean).map(Number), () => []);
  await run('tmux', ['-L', socket, 'kill-server']).catch(() => undefined);
  const deadline = Date.now() + 3000;
  while (panePids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of panePids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  const fallback = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket);
  for (const p of [socketPath, fallback]) if (p) fs.rmSync(p, { force: true });
}
