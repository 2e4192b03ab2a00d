import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`: where the CLI keeps user-scope MCP servers. */
export function claudeUserConfigPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const dir = env.CLAUDE_CONFIG_DIR?.trim();
  return dir ? path.join(dir, '.claude.json') : path.join(home, '.claude.json');
}

/** The file exists but is not a JSON object: it is left exactly as it is. */
export class UnreadableConfigError extends Error {
  override readonly name = 'UnreadableConfigError';
}

type Json = Record<string, unknown>;

/**
 * Edits the CLI's own state file with care: parse it (refusing anything that is not a JSON object),
 * change one key under `mcpServers`, keep everything else, and replace the file atomically with
 * its permissions. The CLI writes this file often, so if it changed while we edited, start again.
 */
export class ClaudeUserConfig {
  constructor(readonly file: string = claudeUserConfigPath()) {}

  async getServer(name: string): Promise<unknown> {
    const config = await this.read();
    const servers = config?.mcpServers;
    return servers && typeof servers === 'object' ? (servers as Json)[name] : undefined;
  }

  /** Adds or replaces `mcpServers[name]`. Returns false when it was already exactly that. */
  setServer(name: string, entry: Json): Promise<boolean> {
    return this.update((config) => {
      const servers = isObject(config.mcpServers) ? config.mcpServers : {};
      if (JSON.stringify(servers[name]) === JSON.stringify(entry)) return false;
      config.mcpServers = { ...servers, [name]: entry };
      return true;
    });
  }

  /** Removes `mcpServers[name]`. Returns false when there was none. */
  removeServer(name: string): Promise<boolean> {
    return this.update((config) => {
      if (!isObject(config.mcpServers) || !(name in config.mcpServers)) return false;
      const { [name]: _removed, ...rest } = config.mcpServers;
      config.mcpServers = rest;
      return true;
    });
  }

  private async update(change: (config: Json) => boolean): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await statOrUndefined(this.file);
      const config = (await this.read()) ?? {};
      if (!change(config)) return false;
      const after = await statOrUndefined(this.file);
      if (before?.mtimeMs !== after?.mtimeMs || before?.size !== after?.size) continue; // the CLI wrote meanwhile
      await this.writeAtomically(config, before?.mode);
      return true;
    }
    throw new Error(`${this.file} kept changing while it was being edited; try again when claude is idle`);
  }

  private async read(): Promise<Json | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (text.trim() === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UnreadableConfigError(`${this.file} is not valid JSON (${(error as Error).message}); it was left unchanged.`);
    }
    if (!isObject(parsed)) throw new UnreadableConfigError(`${this.file} does not hold a JSON object; it was left unchanged.`);
    return parsed;
  }

  private async writeAtomically(config: Json, mode: number | undefined): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: mode !== undefined ? mode & 0o777 : 0o600, flag: 'wx' });
      await fs.rename(temp, this.file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function statOrUndefined(file: string) {
  try {
    return await fs.stat(file);
  } catch {
    return undefined;
  }
}
