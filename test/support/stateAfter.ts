/** Settles when `p` does, or says it is still pending after `ms`. */
export async function stateAfter<T>(p: Promise<T>, ms: number): Promise<'pending' | { value: T }> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((r) => (timer = setTimeout(() => r('pending'), ms)));
  try {
    return await Promise.race([p.then((value) => ({ value })), pending]);
  } finally {
    clearTimeout(timer);
  }
}
