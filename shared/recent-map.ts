/**
 * A map that holds at most `capacity` entries and forgets the oldest first (what was decided or
 * learnt about recent ids). As RecentSet, the oldest key is found in a ring of insertion order,
 * not through the map's iterator. Setting a key it holds replaces its value and keeps its age.
 */
export class RecentMap<K extends string | number, V> {
  private readonly entries = new Map<K, V>();
  private readonly order: Array<K | undefined>;
  private next = 0;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`RecentMap capacity must be a positive integer, got ${capacity}`);
    this.order = new Array<K | undefined>(capacity);
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (!this.entries.has(key)) {
      const oldest = this.order[this.next];
      if (oldest !== undefined) this.entries.delete(oldest);
      this.order[this.next] = key;
      this.next = (this.next + 1) % this.capacity;
    }
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
