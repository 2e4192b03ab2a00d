import type * as vscode from 'vscode';

/**
 * Every integrated terminal of this window gets the port, so `claude` typed there connects to this
 * window (CLAUDE_CODE_SSE_PORT bypasses the CLI's folder and ancestry checks, ide-protocol.md §1.8).
 * The collection is persistent: terminals VS Code restores at start-up get the variables before the
 * extension activates, and the port is the same across reloads (see identityStore.ts).
 */
export class TerminalEnvironment {
  constructor(private readonly collection: vscode.GlobalEnvironmentVariableCollection) {
    collection.persistent = true;
    collection.description = 'Lets `claude` in this terminal connect to this VS Code window';
  }

  /** `ssePort` false: leave CLAUDE_CODE_SSE_PORT to another extension (src/health/coexistence.ts). */
  apply(port: number, extra: Record<string, string> = {}, ssePort = true): void {
    if (ssePort) {
      this.collection.replace('CLAUDE_CODE_SSE_PORT', String(port));
      // Older CLIs looked for this; 2.1.328 no longer reads it, but it is harmless.
      this.collection.replace('ENABLE_IDE_INTEGRATION', 'true');
    } else {
      this.collection.delete('CLAUDE_CODE_SSE_PORT');
      this.collection.delete('ENABLE_IDE_INTEGRATION');
    }
    for (const [name, value] of Object.entries(extra)) this.collection.replace(name, value);
  }

  clear(): void {
    this.collection.clear();
  }
}
