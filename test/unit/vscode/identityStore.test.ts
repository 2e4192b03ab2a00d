import type * as vscode from 'vscode';
import { workspaceIdentityStore } from '../../../src/vscode/lifecycle/identityStore';

// Issue 22, finding 9: the token must never reach the workspace state, which desktop VS Code keeps in
// state.vscdb (an SQLite file with the default mode); it goes to SecretStorage. The port stays in the
// workspace state so a reload re-binds it.

/** The workspace state as VS Code stores it: JSON text, which the test reads back as a file would be read. */
function memento() {
  const stored = new Map<string, string>();
  const state = {
    keys: () => [...stored.keys()],
    get: <T>(key: string) => (stored.has(key) ? (JSON.parse(stored.get(key)!) as T) : undefined),
    update: async (key: string, value: unknown) => void stored.set(key, JSON.stringify(value)),
  } as unknown as vscode.Memento;
  return { state, onDisk: () => [...stored.values()].join('\n') };
}

function secretStorage(options: { answer?: boolean } = {}) {
  const stored = new Map<string, string>();
  const secrets = {
    get: (key: string) => (options.answer === false ? new Promise(() => undefined) : Promise.resolve(stored.get(key))),
    store: async (key: string, value: string) => void stored.set(key, value),
    delete: async (key: string) => void stored.delete(key),
  } as unknown as vscode.SecretStorage;
  return { secrets, stored };
}

const TOKEN = 'a'.repeat(64);

describe('workspaceIdentityStore', () => {
  test("the token goes to SecretStorage, the workspace state holds the port and the secret's name only", async () => {
    const { state, onDisk } = memento();
    const { secrets, stored } = secretStorage();
    await workspaceIdentityStore(state, secrets).save({ port: 41234, token: TOKEN });
    expect(onDisk()).not.toContain(TOKEN);
    expect(onDisk()).toContain('41234');
    expect([...stored.values()]).toEqual([TOKEN]);
    // A reload: a new store over the same state and secrets finds both.
    await expect(workspaceIdentityStore(state, secrets).load()).resolves.toEqual({ port: 41234, token: TOKEN });
  });

  test('saving again keeps one secret per workspace', async () => {
    const { state } = memento();
    const { secrets, stored } = secretStorage();
    const store = workspaceIdentityStore(state, secrets);
    await store.save({ port: 1, token: TOKEN });
    await store.save({ port: 2, token: 'b'.repeat(64) });
    expect(stored.size).toBe(1);
    await expect(store.load()).resolves.toEqual({ port: 2, token: 'b'.repeat(64) });
  });

  test("an earlier version's token in the workspace state is not reused, and is overwritten at the next save", async () => {
    const { state, onDisk } = memento();
    await state.update('nativeClaude.serverIdentity', { port: 41234, token: TOKEN });
    const { secrets } = secretStorage();
    const store = workspaceIdentityStore(state, secrets);
    await expect(store.load()).resolves.toEqual({ port: 41234 });
    await store.save({ port: 41234, token: 'c'.repeat(64) });
    expect(onDisk()).not.toContain(TOKEN);
    expect(onDisk()).not.toContain('c'.repeat(64));
  });

  test('secrets not kept (no keychain: VS Code holds them in memory) or not answering: the port alone', async () => {
    const { state } = memento();
    await workspaceIdentityStore(state, secretStorage().secrets).save({ port: 41234, token: TOKEN });
    await expect(workspaceIdentityStore(state, secretStorage().secrets).load()).resolves.toEqual({ port: 41234 });
    jest.useFakeTimers();
    try {
      const loading = workspaceIdentityStore(state, secretStorage({ answer: false }).secrets).load();
      await jest.advanceTimersByTimeAsync(3000);
      await expect(loading).resolves.toEqual({ port: 41234 });
    } finally {
      jest.useRealTimers();
    }
  });
});
