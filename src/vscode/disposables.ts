/**
 * What an adapter registered (listeners, providers, commands), disposed together once: each item once,
 * in the order added (as the loops it replaces did), and one that throws does not keep the others alive.
 */
export class DisposableStore {
  private items: Array<{ dispose(): unknown }> = [];

  push(...items: Array<{ dispose(): unknown }>): void {
    this.items.push(...items);
  }

  dispose(): void {
    const items = this.items;
    this.items = [];
    for (const item of items) {
      try {
        item.dispose();
      } catch {
        // One failing disposal must not leave the rest registered.
      }
    }
  }
}
