// The CLI's own state file (~/.claude.json), edited the way the CLI itself edits it
// (docs/protocol.md#the-tools-route-entry): every running `claude` rewrites this file, so an edit here must never
// lose what another writer put there, never wipe it, and never replace a symlink with a copy. Where
// the file is: src/otherPrograms/claudeConfigDir.ts; how it is read and written (claude's
// proper-lockfile lock, re-read under it, temp file + rename through links, re-checked right before
// the rename): src/otherPrograms/foreignFile.ts.

import * as path from 'node:path';
import { claudeConfigDir, claudeUserConfigPath } from '../otherPrograms/claudeConfigDir';
import { ForeignJsonFile } from '../otherPrograms/foreignFile';

type Json = Record<string, unknown>;

/** User-scope MCP servers in the CLI's state, however they are stored (the CLI's command or this file). */
export interface UserMcpServers {
  /** The file shown to the user. */
  readonly file: string;
  getServer(name: string): Promise<unknown>;
  /**
   * Adds or replaces `mcpServers[name]`. Resolves false when it was already exactly that. With
   * `replaceOnly`, an entry already there is replaced only when `replaceOnly(entry)` says so; otherwise
   * a {@link ForeignEntryError} is thrown and nothing is written.
   */
  setServer(name: string, entry: Json, options?: { replaceOnly?: (current: unknown) => boolean }): Promise<boolean>;
  /** Removes `mcpServers[name]` (only when `onlyIf(entry)` says so, if given). Resolves false when there was none. */
  removeServer(name: string, options?: { onlyIf?: (current: unknown) => boolean }): Promise<boolean>;
}

/** `mcpServers[name]` holds an entry the caller must not replace or remove (the user's own server). */
export class ForeignEntryError extends Error {
  override readonly name = 'ForeignEntryError';
  constructor(
    readonly file: string,
    readonly serverName: string,
  ) {
    super(`${file} already has an MCP server named "${serverName}" that is not VS Code's tools; it was left unchanged.`);
  }
}

export interface ClaudeUserConfigOptions {
  /** How long to wait for another writer's lock before giving up. Default 10 s (the lock's stale time). */
  lockWaitMs?: number;
  /** How long an empty or unparsable file is re-read before it is reported (a writer may be mid-rewrite). */
  unreadableGraceMs?: number;
}

export class ClaudeUserConfig implements UserMcpServers {
  private readonly json: ForeignJsonFile;

  constructor(
    readonly file: string = claudeUserConfigPath(),
    options: ClaudeUserConfigOptions = {},
  ) {
    const backups = path.join(claudeConfigDir(), 'backups');
    this.json = new ForeignJsonFile(file, {
      ownerLock: true,
      lockWaitMs: options.lockWaitMs,
      unreadableGraceMs: options.unreadableGraceMs,
      unusableAdvice:
        "(Treating it as empty would wipe claude's settings, projects and account.) " +
        `Run claude once: it reports the problem and keeps a copy of the damaged file; or restore the file from a backup in ${backups}. Then try again.`,
    });
  }

  async getServer(name: string): Promise<unknown> {
    const servers = (await this.json.read())?.mcpServers;
    return isObject(servers) ? servers[name] : undefined;
  }

  setServer(name: string, entry: Json, options: { replaceOnly?: (current: unknown) => boolean } = {}): Promise<boolean> {
    return this.json.update((config) => {
      const servers = isObject(config.mcpServers) ? config.mcpServers : {};
      if (JSON.stringify(servers[name]) === JSON.stringify(entry)) return false;
      if (servers[name] !== undefined && options.replaceOnly && !options.replaceOnly(servers[name])) throw new ForeignEntryError(this.file, name);
      config.mcpServers = { ...servers, [name]: entry };
      return true;
    });
  }

  removeServer(name: string, options: { onlyIf?: (current: unknown) => boolean } = {}): Promise<boolean> {
    return this.json.update((config) => {
      if (!isObject(config.mcpServers) || !(name in config.mcpServers)) return false;
      if (options.onlyIf && !options.onlyIf(config.mcpServers[name])) throw new ForeignEntryError(this.file, name);
      const { [name]: _removed, ...rest } = config.mcpServers;
      config.mcpServers = rest;
      return true;
    });
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
