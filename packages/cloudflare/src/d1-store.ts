import type { AttachOutcome, Store, TrackedSession, TrackedState } from '@faceverify/core/store';
import {
  type AttachResultOptions,
  type CountsOptions,
  type DeadLetterOptions,
  type DeadLetterPage,
  type DueSummary,
  type DueSummaryOptions,
  decodeDeadLetterCursor,
  encodeDeadLetterCursor,
  type FindByUserOptions,
  type ForgetOptions,
  type GetOptions,
  type InsertOptions,
  type InsertOutcome,
  isOpen,
  type LeaseDueOptions,
  type LeaseOptions,
  type ListDeadLettersOptions,
  type RememberOptions,
  type SettleOptions,
} from '@faceverify/core/store';
import type { D1Database, D1Result } from './d1.js';
import { D1StoreError, d1StoreError } from './errors.js';
import { GroupedStatements } from './grouped-statements.js';
import { type RecordRow, recordFromRow, resultColumn } from './rows.js';
import {
  ATTACH,
  ATTACH_REFUSAL,
  COUNTS,
  DISCARD_DEAD_LETTER,
  DISPLACE,
  DUE_SUMMARY,
  FIND_BY_USER,
  FORGET,
  GET,
  INSERT,
  LEASE,
  LEASE_DUE,
  LIST_DEAD_LETTERS,
  OPEN_RECORD_GRACE_MS,
  PURGE_DIGESTS,
  PURGE_RECORDS,
  REDELIVER_DEAD_LETTER,
  REMEMBER,
  SELECT_DISPLACED,
  SELECT_DUE,
  SETTLE_CLOSED,
  SETTLE_OPEN,
} from './statements.js';

/** Options of `D1Store`. */
export interface D1StoreOptions {
  /** The D1 binding (`env.DB`), with the migrations of this package applied. */
  db: D1Database;
  /**
   * At most this many expired records, and as many expired digests, are deleted by each
   * `leaseDue` (each cron sweep). Default 500. Reads never see them before they are deleted.
   */
  purgeBatchSize?: number;
}

/**
 * A `Store` in Cloudflare D1: tracked sessions, stored results, leases and the replay window
 * are shared by every isolate of a Worker and survive deploys, so a webhook lost on the way is
 * recovered by the cron sweep, once, whichever isolate runs it.
 *
 * D1 has no interactive transactions. Each method is one SQL statement whose conditions make
 * the decision (`UPDATE ... WHERE ... RETURNING`, `INSERT ... ON CONFLICT ... RETURNING`), or
 * one `batch()`, which D1 runs as one transaction; D1 runs a database's statements one at a
 * time, so every method is atomic against every other call, from any isolate (contract 1).
 * Times are the `now` passed in, never D1's clock: rows past their retention are invisible to
 * reads at once and deleted, a bounded batch at a time, by `leaseDue`.
 *
 * Failures reject with a `D1StoreError` (`code: 'store_error'`).
 *
 * @example
 * import { createReceiver } from '@faceverify/core';
 * import { D1Store } from '@faceverify/cloudflare';
 *
 * export default {
 *   async scheduled(_controller: unknown, env: { DB: D1Database }) {
 *     const receiver = createReceiver({ store: new D1Store({ db: env.DB }) });
 *     await receiver.sweep();
 *   },
 * };
 */
export class D1Store implements Store {
  private readonly db: D1Database;
  private readonly purgeBatchSize: number;
  private readonly settles: GroupedStatements;

  constructor({ db, purgeBatchSize = 500 }: D1StoreOptions) {
    if (typeof db?.prepare !== 'function' || typeof db.batch !== 'function') {
      throw new D1StoreError(
        'constructor',
        'rejected',
        'D1Store needs a D1 binding as `db`: declare one under [[d1_databases]] in wrangler.toml and pass `env.<binding>`.',
      );
    }
    if (!Number.isSafeInteger(purgeBatchSize) || purgeBatchSize < 1) {
      throw new D1StoreError(
        'constructor',
        'rejected',
        'D1Store option `purgeBatchSize` must be a whole number of at least 1.',
      );
    }
    this.db = db;
    this.purgeBatchSize = purgeBatchSize;
    this.settles = new GroupedStatements(db);
  }

  /**
   * One statement, or one batch (with displacement): the displaced rows are read, closed and
   * the new row inserted in one transaction, and only when the key is not live (contract 9).
   */
  async insert({
    record,
    now,
    maxOpenPerUser,
    displacedRetainMs = 0,
  }: InsertOptions): Promise<InsertOutcome> {
    const open = isOpen(record.state);
    // A record inserted with a live lease becomes due when the lease ends, as leasing would.
    const dueAt = open ? Math.max(record.dueAt, record.lease?.until ?? 0) : record.dueAt;
    const insert = this.db
      .prepare(INSERT)
      .bind(
        record.key,
        record.token ?? null,
        record.externalUserId,
        record.createdAt,
        record.expiresAt,
        record.state,
        dueAt,
        record.attempts,
        resultColumn(record.result),
        record.lease?.owner ?? null,
        record.lease?.until ?? null,
        Math.max(record.expiresAt, dueAt) + OPEN_RECORD_GRACE_MS,
        now,
      );
    return this.run('insert', async () => {
      if (maxOpenPerUser === undefined || !open) {
        const { results } = await insert.all<{ key: string }>();
        return { inserted: results.length > 0, displaced: [] };
      }
      const keep = Math.max(0, maxOpenPerUser - 1);
      const bound = [record.externalUserId, now, record.key, keep];
      const [displaced, , inserted] = await this.db.batch([
        this.db.prepare(SELECT_DISPLACED).bind(...bound),
        this.db.prepare(DISPLACE).bind(...bound, displacedRetainMs),
        insert,
      ]);
      return {
        inserted: rowsOf(inserted).length > 0,
        displaced: rowsOf<RecordRow>(displaced).map((row) => recordFromRow('insert', row)),
      };
    });
  }

  async get({ key, now }: GetOptions): Promise<TrackedSession | undefined> {
    const row = await this.run('get', async () => {
      const { results } = await this.db.prepare(GET).bind(key, now).all<RecordRow>();
      return results[0];
    });
    return row && recordFromRow('get', row);
  }

  /** One query on the user index: open records first, then the closed ones kept longest. */
  async findByUser({ externalUserId, now, limit }: FindByUserOptions): Promise<TrackedSession[]> {
    const rows = await this.run('findByUser', async () => {
      const statement = this.db
        .prepare(FIND_BY_USER)
        .bind(externalUserId, now, Math.max(0, Math.floor(limit)));
      return (await statement.all<RecordRow>()).results;
    });
    return rows.map((row) => recordFromRow('findByUser', row));
  }

  /** An upsert that writes only when the digest is absent or past its time (contract 5). */
  async remember({ digest, ttlMs, now }: RememberOptions): Promise<boolean> {
    return this.run('remember', async () => {
      const statement = this.db.prepare(REMEMBER).bind(digest, now + ttlMs, now);
      return (await statement.all()).results.length > 0;
    });
  }

  async forget({ digest }: ForgetOptions): Promise<void> {
    await this.run('forget', () => this.db.prepare(FORGET).bind(digest).run());
  }

  /**
   * A conditional UPDATE that applies only to a live open record without a result, so a
   * result is never replaced and a closed record never reopened (contract 4). Why it did not
   * apply is read in the same batch, so the outcome is exact.
   */
  async attachResult({ key, result, now }: AttachResultOptions): Promise<AttachOutcome> {
    const [attached, refusal] = await this.run('attachResult', () =>
      this.db.batch([
        this.db.prepare(ATTACH).bind(key, resultColumn(result), now),
        this.db.prepare(ATTACH_REFUSAL).bind(key, now),
      ]),
    );
    if (rowsOf(attached).length > 0) return 'attached';
    const row = rowsOf<{ state: TrackedState; has_result: number }>(refusal)[0];
    if (!row) return 'missing';
    return isOpen(row.state) && row.has_result ? 'already-attached' : 'closed';
  }

  /** A conditional UPDATE: granted only when the lease is free, passed or the caller's (contract 2). */
  async lease({ key, owner, now, leaseMs }: LeaseOptions): Promise<TrackedSession | undefined> {
    const row = await this.run('lease', async () => {
      const statement = this.db.prepare(LEASE).bind(key, owner, now, now + leaseMs);
      return (await statement.all<RecordRow>()).results[0];
    });
    return row && recordFromRow('lease', row);
  }

  /**
   * One batch: deletes a bounded number of rows past their time (contract 8), then leases the
   * due records read through the partial index on open records' due time (contract 7).
   */
  async leaseDue({ owner, now, leaseMs, limit }: LeaseDueOptions): Promise<TrackedSession[]> {
    const count = Math.max(0, Math.floor(limit));
    const [, , due, leased] = await this.run('leaseDue', () =>
      this.db.batch([
        this.db.prepare(PURGE_RECORDS).bind(now, this.purgeBatchSize),
        this.db.prepare(PURGE_DIGESTS).bind(now, this.purgeBatchSize),
        this.db.prepare(SELECT_DUE).bind(now, count),
        this.db.prepare(LEASE_DUE).bind(now, count, owner, now + leaseMs),
      ]),
    );
    // RETURNING does not keep the subquery's order: put the records back in due order.
    const order = new Map(
      rowsOf<{ key: string }>(due).map((row, index) => [row.key, index] as const),
    );
    return rowsOf<RecordRow>(leased)
      .sort((a, b) => (order.get(a.key) ?? count) - (order.get(b.key) ?? count))
      .map((row) => recordFromRow('leaseDue', row));
  }

  /**
   * A conditional UPDATE on `lease_owner = owner`, which also ends the lease (contract 3, 6).
   * Settles that arrive while another is in flight (a sweep's concurrent deliveries) go to D1
   * together in one `batch()`, each with its own outcome.
   */
  async settle({ key, owner, update, now }: SettleOptions): Promise<boolean> {
    const result = resultColumn(update.result);
    const statement =
      'dueAt' in update
        ? this.db
            .prepare(SETTLE_OPEN)
            .bind(key, owner, now, result, update.state, update.dueAt, update.attempts)
        : this.db
            .prepare(SETTLE_CLOSED)
            .bind(key, owner, now, result, update.state, update.attempts ?? null, update.retainMs);
    return this.run('settle', async () => (await this.settles.run(statement)).results.length > 0);
  }

  async counts({ now }: CountsOptions): Promise<Record<TrackedState, number>> {
    const rows = await this.run('counts', async () => {
      const statement = this.db.prepare(COUNTS).bind(now);
      return (await statement.all<{ state: TrackedState; count: number }>()).results;
    });
    const counts: Record<TrackedState, number> = {
      pending: 0,
      delivering: 0,
      completed: 0,
      expired: 0,
      failed: 0,
    };
    for (const row of rows) if (row.state in counts) counts[row.state] = row.count;
    return counts;
  }

  async listDeadLetters({ now, limit, cursor }: ListDeadLettersOptions): Promise<DeadLetterPage> {
    const count = Math.max(0, Math.floor(limit));
    const after = cursor === undefined ? { purgeAt: now, key: '' } : decodeDeadLetterCursor(cursor);
    // One row more than the page tells whether another page follows.
    const rows = await this.run('listDeadLetters', async () => {
      const statement = this.db
        .prepare(LIST_DEAD_LETTERS)
        .bind(now, after.purgeAt, after.key, count + 1);
      return (await statement.all<RecordRow>()).results;
    });
    const page = rows.slice(0, count);
    const last = page.at(-1);
    return {
      records: page.map((row) => recordFromRow('listDeadLetters', row)),
      ...(last && rows.length > count
        ? { cursor: encodeDeadLetterCursor({ purgeAt: last.purge_at, key: last.key }) }
        : {}),
    };
  }

  async redeliverDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    return this.run('redeliverDeadLetter', async () => {
      const statement = this.db.prepare(REDELIVER_DEAD_LETTER).bind(key, now);
      return (await statement.all()).results.length > 0;
    });
  }

  async discardDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    return this.run('discardDeadLetter', async () => {
      const statement = this.db.prepare(DISCARD_DEAD_LETTER).bind(key, now);
      return (await statement.all()).results.length > 0;
    });
  }

  async dueSummary({ now }: DueSummaryOptions): Promise<DueSummary> {
    const row = await this.run('dueSummary', async () => {
      const statement = this.db.prepare(DUE_SUMMARY).bind(now);
      return (await statement.all<{ due: number; oldest: number | null }>()).results[0];
    });
    const due = row?.due ?? 0;
    return row?.oldest === null || row?.oldest === undefined
      ? { due }
      : { due, oldestDueAt: row.oldest };
  }

  private async run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw error instanceof D1StoreError ? error : d1StoreError(operation, error);
    }
  }
}

function rowsOf<Row = Record<string, unknown>>(result: D1Result<unknown> | undefined): Row[] {
  return (result?.results ?? []) as Row[];
}
