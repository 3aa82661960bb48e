import type { D1Database, D1PreparedStatement, D1Result } from './d1.js';

interface Waiting {
  statement: D1PreparedStatement;
  resolve(result: D1Result): void;
  reject(error: unknown): void;
}

/**
 * Runs independent single statements, grouping those that arrive while a call to D1 is in
 * flight into one `batch()`: D1 runs one statement at a time, so a sweep settling many
 * sessions at once otherwise pays one round trip (and one commit) per session. A statement
 * that arrives when nothing is in flight waits one turn of the event loop (no round trip) for
 * others to join it.
 * Each statement keeps its own result; when a batch fails (one transaction, all or none),
 * its statements are run again one by one, so one statement's failure is its own.
 */
export class GroupedStatements {
  private waiting: Waiting[] = [];
  private inFlight = false;

  constructor(private readonly db: D1Database) {}

  run(statement: D1PreparedStatement): Promise<D1Result> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ statement, resolve, reject });
      if (!this.inFlight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight = true;
    // The first statement waits one turn of the event loop for others: a sweep's concurrent
    // deliveries reach their settles a few asynchronous steps apart (their Web Crypto calls
    // resolve in turn), and sent at once each went alone (1,002 round trips for 1,000).
    await new Promise((resolve) => setTimeout(resolve, 0));
    while (this.waiting.length > 0) {
      const group = this.waiting;
      this.waiting = [];
      await this.send(group);
    }
    this.inFlight = false;
  }

  private async send(group: Waiting[]): Promise<void> {
    if (group.length === 1) {
      const [only] = group as [Waiting];
      await only.statement.all().then(only.resolve, only.reject);
      return;
    }
    let results: D1Result[];
    try {
      results = await this.db.batch(group.map((waiting) => waiting.statement));
    } catch {
      for (const waiting of group) {
        await waiting.statement.all().then(waiting.resolve, waiting.reject);
      }
      return;
    }
    group.forEach((waiting, index) => {
      waiting.resolve(results[index] ?? { results: [] });
    });
  }
}
