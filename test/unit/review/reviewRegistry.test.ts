import { ReviewRegistry } from '../../../src/review/reviewRegistry';
import { KeyedLock } from '../../../src/util/keyedLock';

describe('ReviewRegistry', () => {
  test('settles a review exactly once; the first decision wins', async () => {
    const registry = new ReviewRegistry<null>();
    const review = registry.add('a', 'tab A', 1, null);
    expect(registry.settle('a', { kind: 'rejected', reason: 'tab-closed' })).toBe(true);
    expect(registry.settle('a', { kind: 'accepted', text: 'late' })).toBe(false);
    await expect(review.decision).resolves.toEqual({ kind: 'rejected', reason: 'tab-closed' });
    expect(registry.size).toBe(0);
  });

  test('finds reviews by title and by connection', () => {
    const registry = new ReviewRegistry<null>();
    registry.add('a', 'same', 1, null);
    registry.add('b', 'same', 2, null);
    registry.add('c', 'other', 1, null);
    expect(registry.byTitle('same').map((r) => r.id)).toEqual(['a', 'b']);
    expect(registry.byConnection(1).map((r) => r.id)).toEqual(['a', 'c']);
  });

  test('refuses a duplicate id', () => {
    const registry = new ReviewRegistry<null>();
    registry.add('a', 't', 1, null);
    expect(() => registry.add('a', 't', 1, null)).toThrow(/already pending/);
  });
});

describe('KeyedLock', () => {
  test('serialises work on one key and lets other keys run in parallel', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = lock.run(
      'f',
      1000,
      () =>
        new Promise<void>((r) => {
          order.push('f1 start');
          releaseFirst = () => {
            order.push('f1 end');
            r();
          };
        }),
    );
    const second = lock.run('f', 1000, async () => void order.push('f2'));
    const other = lock.run('g', 1000, async () => void order.push('g'));
    // f2 was queued before g: had the lock not held it back, it would have run before g finished.
    await other;
    expect(order).toEqual(['f1 start', 'g']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['f1 start', 'g', 'f1 end', 'f2']);
  });

  test('a waiter times out with a clear message and the queue keeps moving', async () => {
    const lock = new KeyedLock();
    let release!: () => void;
    const first = lock.run('f', 1000, () => new Promise<void>((r) => (release = r)));
    await expect(lock.run('f', 50, async () => 'never', 'a.txt')).rejects.toThrow(/Another change to a\.txt is still waiting/);
    release();
    await first;
    await expect(lock.run('f', 50, async () => 'next')).resolves.toBe('next');
  });

  test('work that throws releases the lock', async () => {
    const lock = new KeyedLock();
    await expect(
      lock.run('f', 100, async () => {
        throw new Error('x');
      }),
    ).rejects.toThrow('x');
    await expect(lock.run('f', 100, async () => 'ok')).resolves.toBe('ok');
  });
});
