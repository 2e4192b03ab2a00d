// Runs the real `claude` CLI interactively in a private tmux server, isolated from the user's own
// configuration, and lets a test type into it and read its screen.
//
// Isolation: a fresh HOME and CLAUDE_CONFIG_DIR per run, seeded so no first-run dialog appears
// (onboarding, API-key approval, folder trust), and an environment built from scratch so variables
// of the terminal running the tests (CLAUDE_CODE_SSE_PORT, TERM_PROGRAM=vscode, TMUX, …) never leak.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import realClients from '../../setup/real-clients.json';
import { compareVersions } from '../../../src/util/cliVersion';

/** The CLI the README's test command runs (test/setup/install-real-clients.sh installs it). */
export const PINNED_CLAUDE_VERSION = realClients.claude;

/**
 * The CLI version the real tests run against: `NATIVE_CLAUDE_CLI_VERSION` (set by
 * `npm run test:cli-matrix`, test/setup/cliMatrix.ts), else the pinned one.
 */
export function selectedClaudeVersion(env: NodeJS.ProcessEnv = process.env): string {
  const wanted = env.NATIVE_CLAUDE_CLI_VERSION?.trim();
  if (wanted === undefined || wanted === '') return PINNED_CLAUDE_VERSION;
  if (!/^\d+\.\d+\.\d+$/.test(wanted)) throw new Error(`NATIVE_CLAUDE_CLI_VERSION=${wanted} is not a version like 2.1.328`);
  return wanted;
}

export const CLAUDE_VERSION = selectedClaudeVersion();

/** Whether the selected CLI is at least `version` (numeric compare), for tests of line-specific behaviour. */
export function cliAtLeast(version: string, selected: string = CLAUDE_VERSION): boolean {
  return compareVersions(selected, version) >= 0;
}

/** The cache the real-client installer fills: `${NATIVE_CLAUDE_CACHE:-$HOME/.cache/native-claude}`. */
export function nativeClaudeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.NATIVE_CLAUDE_CACHE;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return path.join(env.HOME ?? os.homedir(), '.cache', 'native-claude');
}

/**
 * Path of the selected CLI inside the cache (install-real-clients.sh / install-claude-cli.sh put it there):
 * npm's bin link, which is the native `bin/claude.exe` from 2.1 on and `cli.js` (run by node) before.
 */
export function claudeBinaryPath(env: NodeJS.ProcessEnv = process.env, version: string = CLAUDE_VERSION): string {
  return path.join(nativeClaudeCacheDir(env), `claude-${version}`, 'node_modules', '.bin', 'claude');
}

export interface StartClaudeOptions {
  /** Working directory of the CLI (made absolute and realpath'd, as the CLI's own getcwd would). */
  cwd: string;
  /** The fake Messages API (anything with a `url`, e.g. a FakeModel). */
  model: { url: string };
  /** Extra environment for the CLI; `undefined` values are removed. */
  env?: Record<string, string | undefined>;
  /** Deep-merged over {@link defaultSettings} into settings.json. */
  settings?: Record<string, unknown>;
  /** Deep-merged over the seeded `$CLAUDE_CONFIG_DIR/.claude.json`. */
  globalConfig?: Record<string, unknown>;
  /** Extra command-line arguments. */
  args?: string[];
  apiKey?: string;
  /** Defaults to {@link claudeBinaryPath}. */
  binary?: string;
  width?: number;
  height?: number;
  /** Wait until the input prompt is on screen before resolving (default true). */
  waitReady?: boolean;
  readyTimeoutMs?: number;
}

export interface ClaudeCli {
  /** Pid of the CLI process itself (the tmux pane's process). */
  readonly pid: number;
  readonly cwd: string;
  readonly home: string;
  readonly configDir: string;
  /** The tmux socket name (`tmux -L <socket>`), handy for debugging by hand. */
  readonly socket: string;
  /** Type text literally (no key names interpreted). */
  type(text: string): Promise<void>;
  /** Send tmux key names, e.g. `keys('Enter')`, `keys('Down', 'Enter')`, `keys('Escape')`, `keys('C-c')`. */
  keys(...keys: string[]): Promise<void>;
  /** The visible screen; with `history` also the scrollback. Trailing blank lines are trimmed. */
  screen(options?: { history?: boolean }): Promise<string>;
  /** Poll the screen (every ~100 ms) until it matches; resolves with that screen. */
  waitForScreen(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Poll until the screen no longer matches. */
  waitForScreenGone(pattern: RegExp | string, timeoutMs?: number): Promise<string>;
  /** Type a prompt, wait for it to be echoed, press Enter. */
  submit(prompt: string): Promise<void>;
  /**
   * Answer a dialog (permission prompt, menu): wait until `question` is on screen, let it settle,
   * press `keys` (default Enter = the highlighted choice) and press again until the question is gone.
   * The CLI drops keys that arrive right after a dialog appears, so a single blind Enter is flaky.
   * Resolves with the screen after the dialog closed.
   */
  answer(question: RegExp | string, keys?: string[], timeoutMs?: number): Promise<string>;
  /** Whether the CLI process is still running. */
  alive(): boolean;
  /** Kill the tmux server (and the CLI), remove the temp HOME/config dirs. Idempotent. */
  stop(): Promise<void>;
}

/** The input prompt is up: `❯` (2.x) or `>` (1.0.x), then a space or NBSP, above the footer hint. */
export const PROMPT_READY = /^[❯>][ \u00a0][\s\S]*(for shortcuts|mode on)/m;
/** The input prompt character of any line. */
export const PROMPT = /^[❯>][ \u00a0]/m;

/**
 * `tui` exists from 2.1 on; 1.0.x validates settings.json strictly and ignores the whole file
 * ("Found invalid settings files … They will be ignored") when it has a key it does not know.
 */
export function defaultSettings(version: string = CLAUDE_VERSION): Record<string, unknown> {
  return cliAtLeast('2.1.0', version) ? { tui: 'default', permissions: { defaultMode: 'default' } } : { permissions: { defaultMode: 'default' } };
}
/** Any string works against the fake model; its last 20 characters are pre-approved by {@link seedClaudeConfig}. */
export const DEFAULT_API_KEY = 'sk-ant-api03-native-claude-fake-key-0123456789abcdef';

export interface SeedClaudeConfigOptions {
  /** Folder(s) whose trust dialog counts as accepted (absolute; realpath them first). */
  cwd: string | string[];
  apiKey?: string;
  /** Deep-merged over {@link defaultSettings} into settings.json. */
  settings?: Record<string, unknown>;
  /** Deep-merged over the seeded `.claude.json`. */
  globalConfig?: Record<string, unknown>;
}

/**
 * Writes `<configDir>/.claude.json` and `<configDir>/settings.json` so the interactive CLI shows no
 * first-run dialog (onboarding, API-key approval, folder trust) and asks before Edit/Write (so
 * openDiff is sent). `configDir` is what CLAUDE_CONFIG_DIR will point at; it must exist.
 */
export function seedClaudeConfig(configDir: string, options: SeedClaudeConfigOptions): void {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const folders = Array.isArray(options.cwd) ? options.cwd : [options.cwd];
  const globalConfig = deepMerge(
    {
      hasCompletedOnboarding: true,
      hasSeenAutoDefaultNudge: true,
      customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
      // 1.0.x reads `allowedTools` of the project entry without a default and crashes when it is missing.
      projects: Object.fromEntries(folders.map((f) => [f, { hasTrustDialogAccepted: true, allowedTools: [] }])),
    },
    options.globalConfig ?? {},
  );
  fs.writeFileSync(path.join(configDir, '.claude.json'), JSON.stringify(globalConfig, null, 2));
  fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify(deepMerge(defaultSettings(), options.settings ?? {}), null, 2));
}

// Variables that describe the terminal running the tests or its own Claude/IDE setup; the CLI must
// not see them unless the test passes them explicitly.
export const LEAKY_ENV =
  /^(CLAUDE|ANTHROPIC|TERM_PROGRAM|VSCODE_|CURSOR_|WINDSURF|TMUX|FORCE_CODE_TERMINAL|ENABLE_TOOL_SEARCH|MCP_|DISABLE_|NODE_OPTIONS$|__CF)/;
/**
 * Extra environment for code-server (StartCodeServerOptions.env): every variable of the shell running the
 * tests that LEAKY_ENV names removed (its own claude/IDE setup must not reach VS Code), then `extra`.
 */
export function isolatedEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) if (LEAKY_ENV.test(k)) env[k] = undefined;
  return Object.assign(env, extra);
}
const KEEP_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER', 'LOGNAME', 'SHELL'];

export async function startClaude(options: StartClaudeOptions): Promise<ClaudeCli> {
  const binary = options.binary ?? claudeBinaryPath();
  if (!fs.existsSync(binary)) {
    throw new Error(
      `claude CLI not found at ${binary}; run test/setup/install-real-clients.sh, or test/setup/install-claude-cli.sh ${CLAUDE_VERSION} (or set NATIVE_CLAUDE_CACHE)`,
    );
  }
  const cwd = fs.realpathSync(path.resolve(options.cwd));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'native-claude-cli-'));
  const home = path.join(root, 'home');
  const configDir = path.join(root, 'config');
  // The CLI keeps per-process scratch (task output, its peer socket) under os.tmpdir(); a private
  // TMPDIR keeps runs apart and lets stop() remove it all.
  const tmpDir = path.join(root, 'tmp');
  fs.mkdirSync(home);
  fs.mkdirSync(configDir);
  fs.mkdirSync(tmpDir);
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;

  seedClaudeConfig(configDir, { cwd, apiKey, settings: options.settings, globalConfig: options.globalConfig });

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && KEEP_ENV.includes(k) && !LEAKY_ENV.test(k)) env[k] = v;
  }
  Object.assign(env, {
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: tmpDir,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    ANTHROPIC_BASE_URL: options.model.url,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const socket = `native-claude-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmux = (...args: string[]): Promise<string> => run('tmux', ['-L', socket, '-f', '/dev/null', ...args]);
  const target = `${socket}:0.0`;
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  // `env -i` execs the CLI, so the pane's pid is the CLI's pid and its environment is exactly `env`.
  // remain-on-exit keeps the last screen readable if the CLI dies.
  await tmux(
    'start-server',
    ';',
    'set-option',
    '-g',
    'remain-on-exit',
    'on',
    ';',
    'set-option',
    '-g',
    'history-limit',
    '10000',
    ';',
    'new-session',
    '-d',
    '-s',
    socket,
    '-x',
    String(options.width ?? 200),
    '-y',
    String(options.height ?? 50),
    '-c',
    cwd,
    '--',
    '/usr/bin/env',
    '-i',
    ...envArgs,
    binary,
    ...(options.args ?? []),
  );
  const paneInfo = (await tmux('display-message', '-p', '-t', target, '#{pane_pid} #{socket_path}')).trim();
  const pid = Number(paneInfo.slice(0, paneInfo.indexOf(' ')));
  const socketPath = paneInfo.slice(paneInfo.indexOf(' ') + 1);

  let stopped = false;
  const screen = async ({ history = false } = {}): Promise<string> => {
    const out = await tmux('capture-pane', '-p', '-t', target, ...(history ? ['-S', '-'] : []));
    return out.replace(/\s+$/, '');
  };
  const matches = (s: string, pattern: RegExp | string): boolean => (typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s));
  const poll = async (pattern: RegExp | string, timeoutMs: number, wanted: boolean): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    let last: string;
    for (;;) {
      try {
        last = await screen();
      } catch (err) {
        throw new Error(`claude CLI: tmux session is gone while waiting for ${String(pattern)}: ${String(err)}`, { cause: err });
      }
      if (matches(last, pattern) === wanted) return last;
      if (Date.now() > deadline) {
        const dead = isAlive(pid) ? '' : ' (the CLI process has exited)';
        throw new Error(`claude CLI: screen ${wanted ? 'did not show' : 'still shows'} ${String(pattern)} after ${timeoutMs} ms${dead}. Last screen:\n${last}`);
      }
      await sleep(100);
    }
  };

  const cli: ClaudeCli = {
    pid,
    cwd,
    home,
    configDir,
    socket,
    type: async (text) => {
      await tmux('send-keys', '-t', target, '-l', '--', text);
    },
    keys: async (...keys) => {
      await tmux('send-keys', '-t', target, ...keys);
    },
    screen,
    waitForScreen: (pattern, timeoutMs = 15_000) => poll(pattern, timeoutMs, true),
    waitForScreenGone: (pattern, timeoutMs = 15_000) => poll(pattern, timeoutMs, false),
    submit: async (prompt) => {
      await cli.type(prompt);
      // Wait for the echo so Enter is not swallowed as part of the typed text.
      const tail = prompt.split('\n').pop()!.slice(-30).trimEnd();
      await poll(tail === '' ? PROMPT : new RegExp(`${escapeRegExp(tail)}|\\[Pasted text`), 5_000, true);
      // 1.0.x takes an Enter that follows typed text closely as part of a paste (a newline in the input).
      await sleep(cliAtLeast('2.0.0') ? 150 : 800);
      // Enter can also be dropped while the CLI redraws; press again while the text still sits in the
      // input box (a prompt line ending with it, then only blank lines down to the box's bottom rule),
      // never once it was sent (a dialog may be up then, and Enter would answer it).
      const stillTyped = (s: string): boolean => {
        if (tail === '') return false;
        const lines = s.split('\n');
        return lines.some((l, i) => {
          if (!PROMPT.test(l) || !l.trimEnd().endsWith(tail)) return false;
          let j = i + 1;
          while (j < lines.length && lines[j].trim() === '') j++;
          return /^─{10}/.test(lines[j] ?? '');
        });
      };
      for (let attempt = 0; attempt < 4; attempt++) {
        await cli.keys('Enter');
        const until = Date.now() + 1_500;
        while (Date.now() < until && stillTyped(await screen())) await sleep(100);
        if (!stillTyped(await screen())) return;
      }
    },
    answer: async (question, keys = ['Enter'], timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      await poll(question, timeoutMs, true);
      await sleep(400);
      for (;;) {
        await cli.keys(...keys);
        const retryAt = Math.min(Date.now() + 1_500, deadline);
        while (Date.now() < retryAt) {
          const s = await screen();
          if (!matches(s, question)) return s;
          await sleep(100);
        }
        if (Date.now() >= deadline) {
          throw new Error(
            `claude CLI: dialog ${String(question)} did not close after pressing ${keys.join(' ')} for ${timeoutMs} ms. Last screen:\n${await screen()}`,
          );
        }
      }
    },
    alive: () => isAlive(pid),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await tmux('kill-server').catch(() => undefined);
      // tmux leaves its socket file behind after kill-server.
      if (socketPath) fs.rmSync(socketPath, { force: true });
      // The pane got SIGHUP; make sure the CLI is really gone before deleting its config dir.
      const deadline = Date.now() + 3_000;
      while (isAlive(pid) && Date.now() < deadline) await sleep(50);
      if (isAlive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };

  if (options.waitReady ?? true) {
    try {
      // 1.0.x draws its prompt as `>`, later lines as `❯`.
      await cli.waitForScreen(PROMPT_READY, options.readyTimeoutMs ?? 20_000);
    } catch (err) {
      await cli.stop();
      throw err;
    }
  }
  return cli;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { encoding: 'utf8', timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.slice(0, 6).join(' ')}… failed: ${err.message}${stderr ? `\n${stderr}` : ''}`));
      else resolve(stdout);
    });
  });
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // With remain-on-exit a dead pane's process can linger as a zombie until tmux reaps it.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

type Json = Record<string, unknown>;
function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merge `b` into a copy of `a`: objects recursively, everything else (arrays included) replaced. */
export function deepMerge(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isPlainObject(prev) && isPlainObject(v) ? deepMerge(prev, v) : v;
  }
  return out;
}
