/** A binary min-heap ordered by `at`; stale entries are skipped by the caller. */
export class MinHeap<T extends { at: number }> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (items[parent]!.at <= item.at) break;
      items[index] = items[parent]!;
      index = parent;
    }
    items[index] = item;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let index = 0;
    const length = items.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && items[right]!.at < items[left]!.at ? right : left;
      if (items[child]!.at >= last.at) break;
      items[index] = items[child]!;
      index = child;
    }
    items[index] = last;
    return top;
  }

  /** Calls `visit` with every entry whose `at` is at most `limit`, in no particular order. */
  visitUpTo(limit: number, visit: (item: T) => void): void {
    // A parent is never later than its children: a subtree whose root is past `limit` is
    // skipped whole, so this costs in proportion to the entries visited.
    const stack = this.items.length > 0 ? [0] : [];
    while (stack.length > 0) {
      const index = stack.pop()!;
      const item = this.items[index];
      if (item === undefined || item.at > limit) continue;
      visit(item);
      stack.push(2 * index + 1, 2 * index + 2);
    }
  }

  /** Keeps only the entries `keep` approves, restoring heap order. */
  filter(keep: (item: T) => boolean): void {
    const kept = this.items.filter(keep);
    this.items.length = 0;
    for (const item of kept) this.push(item);
  }
}
