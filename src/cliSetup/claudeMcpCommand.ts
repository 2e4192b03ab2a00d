// Registers user-scope MCP servers through the CLI's own commands when a `claude` can be run:
// `claude mcp add-json <name> - -s user` (JSON on stdin, 2.1.327+; the JSON as an argument before)
// and `claude mcp remove <name> -s user`. The CLI then does its own locking, backups and symlink
// handling (docs/protocol.md#the-tools-route-entry). Without a usable `claude`, the file is edited with the same
// protocol by ClaudeUserConfig. Reading is always done here (the CLI has no JSON output for it).

import { execFile } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { ClaudeUserConfig, ForeignEntryError, type UserMcpServers } from './claudeUserConfig';
import { compareVersions, parseVersion, type VersionTriple } from '../util/cliVersion';

/** The first version whose `mcp add-json` reads the JSON from stdin when given `-`. */
const STDIN_JSON_SINCE: VersionTriple = [2, 1, 327];

export interface ClaudeCommandOptions {
  /** The `claude` executable (a name looked up on PATH, or a path). */
  executable?: string;
  env?: NodeJS.ProcessEnv;
  /** Per command. The CLI takes 0.2 s (2.1.x) to 1.3 s (2.0.x). */
  timeoutMs?: number;
  /** Told which way each change was made. */
  log?: (message: string) => void;
}

export class ClaudeCommandError extends Error {
  override readonly name = 'ClaudeCommandError';
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be run or was stopped (not for a plain non-zero exit). */
  error?: { code?: unknown; message: string };
}

export class ClaudeMcpCommand implements UserMcpServers {
  private readonly executable: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;
  private readonly log: (message: string) => void;

  constructor(
    /** Reads the entries, and writes them when no `claude` can be run. */
    readonly store: ClaudeUserConfig = new ClaudeUserConfig(),
    options: ClaudeCommandOptions = {},
  ) {
    this.executable = options.executable ?? 'claude';
    this.env = options.env ?? process.env;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.log = options.log ?? (() => undefined);
  }

  get file(): string {
    return this.store.file;
  }

  getServer(name: string): Promise<unknown> {
    return this.store.getServer(name);
  }

  async setServer(name: string, entry: Record<string, unknown>, options: { replaceOnly?: (current: unknown) => boolean } = {}): Promise<boolean> {
    const current = await this.store.getServer(name);
    if (isDeepStrictEqual(current, entry)) return false;
    if (current !== undefined && options.replaceOnly && !options.replaceOnly(current)) throw new ForeignEntryError(this.file, name);
    const version = await this.version();
    if (!version) return this.store.setServer(name, entry, options);
    // The CLI refuses a name that exists: replace = remove, then add.
    if (current !== undefined) await this.mustRun(['mcp', 'remove', name, '-s', 'user']);
    const json = JSON.stringify(entry);
    if (compareVersions(version, STDIN_JSON_SINCE) >= 0) await this.mustRun(['mcp', 'add-json', name, '-', '-s', 'user'], json);
    else await this.mustRun(['mcp', 'add-json', name, json, '-s', 'user']);
    const stored = await this.store.getServer(name);
    if (!isDeepStrictEqual(stored, entry)) {
      throw new ClaudeCommandError(
        `\`${this.executable} mcp add-json\` succeeded but ${this.file} does not hold the entry as given (it has ${JSON.stringify(stored)}). ` +
          `That claude may use another config file (CLAUDE_CONFIG_DIR); run "claude mcp list" in a terminal to check.`,
      );
    }
    return true;
  }

  async removeServer(name: string, options: { onlyIf?: (current: unknown) => boolean } = {}): Promise<boolean> {
    const current = await this.store.getServer(name);
    if (current === undefined) return false;
    if (options.onlyIf && !options.onlyIf(current)) throw new ForeignEntryError(this.file, name);
    if (!(await this.version())) return this.store.removeServer(name, options);
    await this.mustRun(['mcp', 'remove', name, '-s', 'user']);
    return true;
  }

  /** The CLI's version, or undefined when no usable `claude` runs (then the file is edited here). */
  async version(): Promise<VersionTriple | undefined> {
    const result = await this.run(['--version']);
    const version = parseVersion(result.stdout.trim().split('\n')[0] ?? '');
    if (result.code !== 0 || !version) {
      this.log(
        `No usable "${this.executable}" (${result.error ? String(result.error.code ?? result.error.message) : `exit ${result.code}: ${firstLine(result.stderr || result.stdout)}`}); editing ${this.file} with claude's lock protocol instead.`,
      );
      return undefined;
    }
    return version;
  }

  private async mustRun(args: string[], stdin?: string): Promise<void> {
    const result = await this.run(args, stdin);
    this.log(`${this.executable} ${args.join(' ')} → exit ${result.code}${result.stdout.trim() ? `: ${firstLine(result.stdout)}` : ''}`);
    if (result.code === 0) return;
    const why = result.error?.message ?? (result.stderr.trim() || result.stdout.trim() || `exit code ${result.code}`);
    throw new ClaudeCommandError(`\`${this.executable} ${args.slice(0, 3).join(' ')}\` failed: ${why}`);
  }

  private run(args: string[], stdin?: string): Promise<RunResult> {
    return new Promise((resolve) => {
      const child = execFile(
        this.executable,
        args,
        { env: this.env, timeout: this.timeoutMs, maxBuffer: 1 << 20, windowsHide: true },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, stdout, stderr, error: error && typeof error.code !== 'number' ? error : undefined });
        },
      );
      child.stdin?.on('error', () => undefined); // a CLI that exits without reading stdin
      child.stdin?.end(stdin ?? '');
    });
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
}
