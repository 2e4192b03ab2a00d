/**
 * The real `claude` CLI typed into VS Code's integrated terminal (test/real/vscode-ide.test.ts).
 *
 * - `prepareIntegratedClaude()` makes what code-server's environment needs so that `claude`, typed into an
 *   integrated terminal, runs isolated and offline: a temp HOME and CLAUDE_CONFIG_DIR seeded like
 *   claudeCli.ts does, a bin dir with a `claude` symlink to the cached CLI (put first on PATH), the fake
 *   model's URL and key, and a private tmux socket name. The inner suite starts the CLI with
 *   `tmux -L $NC_TMUX_SOCKET … new-session … claude` from the terminal, so the CLI gets exactly the
 *   terminal's environment (CLAUDE_CODE_SSE_PORT comes from the extension) and its screen stays readable.
 *   Its `probeDir` is for `runSuiteInVsCode({ probeDir, probes })` (codeServer.ts): the inner suite's
 *   questions to the outer process (e.g. `statusBarEntries()` of the workbench).
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { CLAUDE_VERSION, claudeBinaryPath, DEFAULT_API_KEY, isolatedEnv, seedClaudeConfig } from './claudeCli';
import { processAlive } from './codeServer';

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
  /** Merged into the CLI's seeded ~/.claude.json and settings.json (e.g. the tools route's entry and its permission). */
  globalConfig?: Record<string, unknown>;
  settings?: Record<string, unknown>;
}

function run(cmd: string, args: string[], timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'utf8', timeout: timeoutMs }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
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
  seedClaudeConfig(configDir, { cwd: workspace, apiKey, globalConfig: opts.globalConfig, settings: opts.settings });
  const tmuxSocket = `nc-ide-${process.pid}-${Math.random().toString(16).slice(2, 8)}`;

  // Nothing of the shell running the tests (its own claude/IDE setup, TMUX, TERM_PROGRAM…) may leak.
  const env = isolatedEnv({
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: opts.modelUrl,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`,
    // VS Code's terminal may rebuild PATH, so the suite also puts this first when it types `claude`.
    NC_CLAUDE_BIN_DIR: binDir,
    // The version the inner suites must see on the CLI's banner (the pinned one, or the CLI matrix's).
    NC_CLAUDE_VERSION: CLAUDE_VERSION,
    NC_TMUX_SOCKET: tmuxSocket,
    NC_PROBE_DIR: probeDir,
    ...opts.env,
  });

  let killed = false;
  const killTmux = async () => {
    if (killed) return;
    killed = true;
    await killTmuxServer(tmuxSocket);
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

/** Texts of the status-bar entries, e.g. `{ id: 'native-claude.native-claude.nativeClaude.status', text: 'Claude: 1 session', aria: … }`. */
export async function statusBarEntries(page: Page): Promise<Array<{ id: string; text: string; aria: string }>> {
  // A string, so this file needs no DOM typings.
  return page.evaluate<
    Array<{ id: string; text: string; aria: string }>
  >(`Array.from(document.querySelectorAll('.part.statusbar .statusbar-item')).map((e) => ({
    id: e.id,
    text: (e.textContent || '').trim(),
    aria: (e.querySelector('[aria-label]') || e).getAttribute('aria-label') || '',
  }))`);
}

/** Lock files (`<port>.lock`) in `lockDir` now. */
export function lockFiles(lockDir: string): string[] {
  try {
    return fs
      .readdirSync(lockDir)
      .filter((f) => /^\d+\.lock$/.test(f))
      .map((f) => path.join(lockDir, f));
  } catch {
    return [];
  }
}

/**
 * Kills the private tmux server on socket name `socket` (and what runs in its panes) and removes its
 * socket file; for tests that start more than one tmux server (e.g. `<tmuxSocket>-<tag>`). Idempotent.
 */
export async function killTmuxServer(socket: string): Promise<void> {
  const socketPath = await run('tmux', ['-L', socket, 'display-message', '-p', '#{socket_path}']).then(
    (s) => s.trim(),
    () => '',
  );
  const panePids = await run('tmux', ['-L', socket, 'list-panes', '-a', '-F', '#{pane_pid}']).then(
    (s) => s.split(/\s+/).filter(Boolean).map(Number),
    () => [],
  );
  await run('tmux', ['-L', socket, 'kill-server']).catch(() => undefined);
  const deadline = Date.now() + 3000;
  while (panePids.some(processAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of panePids.filter(processAlive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  const fallback = path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket);
  for (const p of [socketPath, fallback]) if (p) fs.rmSync(p, { force: true });
}
