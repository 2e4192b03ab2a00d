/** A waiter gave up because the work ahead of it on the same key did not finish in time. */
export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

/**
 * Serialises work per key (a file path): a second write to the same file waits for the first to
 * finish; different keys proceed in parallel. A waiter gives up after `timeoutMs` with a clear error.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, timeoutMs: number, work: () => Promise<T>, describe = key): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      await waitWithTimeout(
        previous,
        timeoutMs,
        () =>
          new LockTimeoutError(
            `Another change to ${describe} is still waiting for the user's review after ${Math.round(timeoutMs / 1000)} s. Wait for the user to accept or reject it, then try again.`,
          ),
      );
    } catch (error) {
      // Let the queue move on without us once the one ahead finishes.
      void previous.then(release);
      if (this.tails.get(key) === tail) void tail.then(() => this.tails.get(key) === tail && this.tails.delete(key));
      throw error;
    }
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

function waitWithTimeout(promise: Promise<void>, timeoutMs: number, error: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(error()), timeoutMs);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}
