/**
 * A `Map` that keeps the `limit` entries set most recently: setting a key moves it to the
 * end, and a new key past the limit drops the oldest. What it holds stays level, entry by
 * entry, however many keys pass through it.
 *
 * Why not `map.delete(map.keys().next().value)`: V8 leaves a deleted entry as a hole in its
 * place until the table is rebuilt, and a new iterator starts at the first slot, so finding
 * the oldest that way walks every entry dropped since the last rebuild, thousands in a full
 * cache of thousands: microseconds on every call. The one iterator kept here walks each slot
 * once, and iterators follow the entries set after them, as the language says they must.
 */
export class RecentEntries<K, V> {
  private readonly entries = new Map<K, V>();
  private oldest: Iterator<K> = this.entries.keys();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Sets `key` as the newest entry, dropping the oldest when the limit is reached. */
  set(key: K, value: V): V {
    if (!this.entries.delete(key) && this.entries.size >= this.limit) this.dropOldest();
    this.entries.set(key, value);
    return value;
  }

  private dropOldest(): void {
    let next = this.oldest.next();
    // An iterator that reached the end stays there (one made while the map was empty, say).
    if (next.done) {
      this.oldest = this.entries.keys();
      next = this.oldest.next();
    }
    if (!next.done) this.entries.delete(next.value);
  }
}
