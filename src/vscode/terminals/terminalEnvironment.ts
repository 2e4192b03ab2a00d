import { promises as fs } from 'node:fs';
import type * as vscode from 'vscode';
import { processIdOf } from '../../terminal/processAncestry';

const SSE_PORT = 'CLAUDE_CODE_SSE_PORT';

/**
 * Every integrated terminal of this window gets the port, so `claude` typed there connects to this
 * window (CLAUDE_CODE_SSE_PORT bypasses the CLI's folder and ancestry checks, docs/protocol.md#environment-variables).
 * The collection also carries the token (NATIVE_CLAUDE_TOKEN), so it is *not* persistent: VS Code would
 * store a persistent one in the workspace's `state.vscdb`, readable by other local users where the user
 * data folder is (docs/security.md). Terminals that live through a reload keep their environment; the
 * port is the same across reloads (identityStore.ts); terminals VS Code revives after a restart get the
 * variables once the extension has started (VS Code relaunches those not used yet).
 *
 * Another extension may set CLAUDE_CODE_SSE_PORT too (Anthropic's, src/health/coexistence.ts). When two
 * extensions replace the same variable in their global collections, VS Code keeps the one whose
 * collection it registered first in this workspace; a persistent collection is registered at start-up,
 * before any extension runs. A workspace folder's scoped collection is applied after the global ones,
 * so the port is also set scoped to each workspace folder: when this extension serves the workspace,
 * its port is the one new terminals get.
 */
export class TerminalEnvironment {
  /** Folders whose scoped collection holds the port (by URI), so a removed folder's entry can be deleted. */
  private readonly scoped = new Map<string, vscode.WorkspaceFolder>();

  constructor(
    private readonly collection: vscode.GlobalEnvironmentVariableCollection,
    private readonly folders: () => readonly vscode.WorkspaceFolder[] = () => [],
  ) {
    // Never stored on disk: it holds the token.
    collection.persistent = false;
    collection.description = 'Lets `claude` in this terminal connect to this VS Code window';
  }

  /** `ssePort` false: leave CLAUDE_CODE_SSE_PORT to another extension (src/health/coexistence.ts). */
  apply(port: number, extra: Record<string, string> = {}, ssePort = true): void {
    const folders = ssePort ? this.folders() : [];
    for (const [key, folder] of this.scoped) {
      if (folders.some((f) => f.uri.toString() === key)) continue;
      this.collection.getScoped({ workspaceFolder: folder }).delete(SSE_PORT);
      this.scoped.delete(key);
    }
    if (ssePort) {
      this.collection.replace(SSE_PORT, String(port));
      for (const folder of folders) {
        this.collection.getScoped({ workspaceFolder: folder }).replace(SSE_PORT, String(port));
        this.scoped.set(folder.uri.toString(), folder);
      }
      // Older CLIs looked for this; 2.1.328 no longer reads it, but it is harmless.
      this.collection.replace('ENABLE_IDE_INTEGRATION', 'true');
    } else {
      // Also what an earlier window (restored with the persistent collection) set for these folders.
      for (const folder of this.folders()) this.collection.getScoped({ workspaceFolder: folder }).delete(SSE_PORT);
      this.collection.delete(SSE_PORT);
      this.collection.delete('ENABLE_IDE_INTEGRATION');
    }
    for (const [name, value] of Object.entries(extra)) this.collection.replace(name, value);
  }

  clear(): void {
    // Clears the scoped entries too.
    this.collection.clear();
    this.scoped.clear();
  }
}

/** `CLAUDE_CODE_SSE_PORT` of a terminal's shell, from /proc (Linux); undefined where it cannot be read. */
export async function terminalSsePort(terminal: vscode.Terminal): Promise<string | null | undefined> {
  if (process.platform !== 'linux') return undefined;
  const pid = await processIdOf(terminal, 1000);
  if (!pid) return undefined;
  try {
    const environ = await fs.readFile(`/proc/${pid}/environ`, 'utf8');
    const entry = environ.split('\0').find((e) => e.startsWith('CLAUDE_CODE_SSE_PORT='));
    return entry ? entry.slice('CLAUDE_CODE_SSE_PORT='.length) : null;
  } catch {
    return undefined;
  }
}
