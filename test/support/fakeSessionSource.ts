import type { IdeSession, IdeSessionSource } from '../../src/server/sessionSource';

export interface SentNotification {
  session: number;
  method: string;
  params: Record<string, unknown>;
}

/**
 * CLI sessions for the selection code (an `IdeSessionSource`) that record what they are sent; `failing`
 * ids reject. Session `id` has cliPid 1000 + id.
 */
export function fakeSessionSource() {
  const live = new Map<number, IdeSession>();
  const listeners = new Set<(s: IdeSession) => void>();
  const sent: SentNotification[] = [];
  const failing = new Set<number>();
  const source: IdeSessionSource = {
    sessions: () => [...live.values()],
    onDidConnect: (listener) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
  };
  /** A session that was already connected (and ready) before anyone saw it connect. */
  const existing = (id: number) => {
    const session: IdeSession = {
      id,
      cliPid: 1000 + id,
      notify: async (method, params) => {
        if (failing.has(id)) throw new Error('socket closed');
        sent.push({ session: id, method, params });
      },
    };
    live.set(id, session);
    return session;
  };
  /** A CLI announcing itself now. */
  const connect = (id: number) => {
    const session = existing(id);
    for (const l of listeners) l(session);
    return session;
  };
  return { source, sent, failing, existing, connect, disconnect: (id: number) => live.delete(id), listenerCount: () => listeners.size };
}
