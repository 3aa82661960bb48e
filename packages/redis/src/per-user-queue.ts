/**
 * Runs one task at a time per user, in order of arrival. Inserts of one user under a
 * per-user bound each close the user's oldest record, which a script must be given in KEYS
 * before it runs (see scripts/declared-keys.ts); run concurrently, every insert would find
 * the oldest record changed by another one and ask for new keys again and again.
 */
export class PerUserQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(user: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(user) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(user, tail);
    void tail.then(() => {
      if (this.tails.get(user) === tail) this.tails.delete(user);
    });
    return result;
  }
}
