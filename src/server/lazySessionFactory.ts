import type { SessionFactory } from './ideServer';

/**
 * A session factory whose code loads on the first connection: the MCP SDK, zod and the tools are
 * most of the extension, and the first `claude` may connect minutes after VS Code starts (or never).
 * The load runs once; a failed load is retried by the next connection.
 */
export function lazySessionFactory(load: () => Promise<SessionFactory>): SessionFactory {
  let loading: Promise<SessionFactory> | undefined;
  return async (connection, events) => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return (await loading)(connection, events);
  };
}
