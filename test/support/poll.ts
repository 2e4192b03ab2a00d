/**
 * Waiting for a condition by asking again, for the outer real tests (jest, Playwright) and the inner
 * suites (mocha in VS Code's extension host) alike: plain Node, no `vscode`.
 */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Calls `fn` every `intervalMs` until it returns something truthy, and returns that; after `timeoutMs`
 * throws, naming `what` and the last value or error `fn` gave.
 */
export async function pollUntil<T>(what: string, fn: () => T | Promise<T>, timeoutMs: number, intervalMs: number): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e instanceof Error ? e.message : e;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}
