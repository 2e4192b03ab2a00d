import type * as vscode from 'vscode';
import type { IdentityStore, ServerIdentity } from '../server/ideBridge';

const KEY = 'nativeClaude.serverIdentity';

/**
 * Keeps the window's port and token in the workspace's extension state, so a reload or an
 * extension-host restart re-binds the same port with the same token and the CLI's automatic
 * reconnect succeeds. The state file is private to the user, like the lock file that holds the token.
 */
export function workspaceIdentityStore(state: vscode.Memento): IdentityStore {
  return {
    load: () => {
      const value = state.get<ServerIdentity>(KEY);
      return value && Number.isInteger(value.port) && typeof value.token === 'string' ? value : undefined;
    },
    save: (identity) => Promise.resolve(state.update(KEY, identity)),
  };
}
