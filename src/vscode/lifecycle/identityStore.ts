import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';
import type { IdentityStore, ServerIdentity } from '../../server/ideBridge';

const KEY = 'nativeClaude.serverIdentity';
const SECRET_PREFIX = 'nativeClaude.serverToken.';
/** A SecretStorage that does not answer (a window closing during start-up) must not hold the server back. */
const SECRET_TIMEOUT_MS = 3000;

/** What the workspace state holds: the port, and the name of the token's secret (never the token). */
interface StoredIdentity {
  port: number;
  secret?: string;
  /** Versions before 0.2 kept the token here; it is dropped, never reused. */
  token?: unknown;
}

/**
 * Keeps the window's port and token across a reload or an extension-host restart, so the server re-binds
 * the same port with the same token and a `claude` still running in a terminal reconnects by itself
 * (its tools-route entry expanded `NATIVE_CLAUDE_TOKEN` when it started).
 *
 * The port goes to the workspace state, which desktop VS Code keeps in `state.vscdb`, an SQLite file its
 * user data folder holds with the default mode (0644 under the usual umask 022): readable by other local
 * users who can reach that folder. So the token goes to SecretStorage, under a name kept with the port:
 * desktop VS Code encrypts secrets with the OS keychain (Keychain, DPAPI, libsecret/kwallet) and keeps
 * them in memory only when no keychain is available; code-server keeps them in the browser's storage,
 * encrypted (docs/security.md). A token of an earlier version, found in the workspace state, is not
 * carried over: it may have been read from that file already.
 */
export function workspaceIdentityStore(state: vscode.Memento, secrets: vscode.SecretStorage): IdentityStore {
  const stored = (): StoredIdentity | undefined => {
    const value = state.get<StoredIdentity>(KEY);
    return value && Number.isInteger(value.port) ? value : undefined;
  };
  return {
    load: async () => {
      const value = stored();
      if (!value) return undefined;
      const secret = typeof value.secret === 'string' ? await withTimeout(secrets.get(SECRET_PREFIX + value.secret)) : undefined;
      return typeof secret === 'string' && secret !== '' ? { port: value.port, token: secret } : { port: value.port };
    },
    save: async ({ port, token }: ServerIdentity) => {
      const previous = stored();
      const secret = typeof previous?.secret === 'string' ? previous.secret : randomBytes(12).toString('hex');
      // Also overwrites a token an earlier version kept here. The port first: it is kept even if the secret is not.
      await state.update(KEY, { port, secret } satisfies StoredIdentity);
      await secrets.store(SECRET_PREFIX + secret, token);
    },
  };
}

function withTimeout<T>(promise: Thenable<T>): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), SECRET_TIMEOUT_MS);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      () => (clearTimeout(timer), resolve(undefined)),
    );
  });
}
