import type { AttachOutcome, Store, TrackedSession, TrackedState } from '@faceverify/core/store';
import {
  type AttachAndLeaseOptions,
  type AttachAndLeaseOutcome,
  type AttachResultOptions,
  type ClaimStartOptions,
  type ClaimStartOutcome,
  type CountsOptions,
  checkStorableUserId,
  type DeadLetterOptions,
  type DeadLetterPage,
  type DueSummary,
  type DueSummaryOptions,
  decodeDeadLetterCursor,
  type EndStartOptions,
  encodeDeadLetterCursor,
  type FindByUserOptions,
  type ForgetOptions,
  type ForgetUserOptions,
  type GetOptions,
  type HasNewerSessionOptions,
  type InsertOptions,
  type InsertOutcome,
  isOpen,
  type LeaseDueOptions,
  type LeaseOptions,
  type ListDeadLettersOptions,
  type RememberOptions,
  type SettleOptions,
} from '@faceverify/core/store';
import {
  resultText,
  type SessionRow,
  sessionFromRow,
  sessionRowValues,
  startClaimValues,
  storableUserIds,
} from '@faceverify/shared-sql';
import type { D1Database, D1Result } from './d1.js';
import { D1StoreError, d1StoreError } from './errors.js';
import { GroupedStatements } from './grouped-statements.js';
import {
  CLAIM_START,
  COUNT_START,
  INSERT_STARTED,
  PURGE_START_COUNTS,
  PURGE_STARTS,
  SELECT_REUSABLE,
  SELECT_START,
  SELECT_START_COUNTS,
  SHARED_STARTS,
} from './start-statements.js';
import {
  ATTACH,
  ATTACH_AND_LEASE,
  ATTACH_REFUSAL,
  DISPLACE,
  LEASE,
  LEASE_DUE,
  PURGE_DIGESTS,
  PURGE_RECORDS,
  SELECT_DISPLACED,
  SELECT_DUE,
  SHARED,
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
    start,
  }: InsertOptions): Promise<InsertOutcome> {
    checkStorableUserId(record.externalUserId, 'D1Store.insert');
    const insert = this.db.prepare(SHARED.insert).bind(...sessionRowValues(record), now);
    // With a start, the statement right after the insert names the record in the start's row.
    const started = start
      ? [
          this.db
            .prepare(INSERT_STARTED)
            .bind(start.startKey, record.externalUserId, record.key, record.expiresAt, start.owner),
        ]
      : [];
    return this.run('insert', async () => {
      if (maxOpenPerUser === undefined || !isOpen(record.state)) {
        if (!start) {
          const { results } = await insert.all<{ key: string }>();
          return { inserted: results.length > 0, displaced: [] };
        }
        const [inserted] = await this.db.batch([insert, ...started]);
        return { inserted: rowsOf(inserted).length > 0, displaced: [] };
      }
      const keep = Math.max(0, maxOpenPerUser - 1);
      const bound = [record.externalUserId, now, record.key, keep];
      const [displaced, , inserted] = await this.db.batch([
        this.db.prepare(SELECT_DISPLACED).bind(...bound),
        this.db.prepare(DISPLACE).bind(...bound, displacedRetainMs),
        insert,
        ...started,
      ]);
      return {
        inserted: rowsOf(inserted).length > 0,
        displaced: rowsOf<SessionRow>(displaced).map(sessionFromRow),
      };
    });
  }

  async get({ key, now }: GetOptions): Promise<TrackedSession | undefined> {
    return this.run('get', async () => {
      const { results } = await this.db.prepare(SHARED.get).bind(key, now).all<SessionRow>();
      return results[0] && sessionFromRow(results[0]);
    });
  }

  /** One query on the user index: open records first, then the closed ones kept longest. */
  async findByUser({ externalUserId, now, limit }: FindByUserOptions): Promise<TrackedSession[]> {
    checkStorableUserId(externalUserId, 'D1Store.findByUser');
    return this.run('findByUser', async () => {
      const statement = this.db
        .prepare(SHARED.findByUser)
        .bind(externalUserId, now, Math.max(0, Math.floor(limit)));
      return (await statement.all<SessionRow>()).results.map(sessionFromRow);
    });
  }

  /** One query on the user index, the ids bound as one JSON array: is one row there? */
  async hasNewerSession({
    externalUserIds,
    createdAfter,
    now,
  }: HasNewerSessionOptions): Promise<boolean> {
    const users = storableUserIds(externalUserIds, 'D1Store.hasNewerSession');
    return this.run('hasNewerSession', async () => {
      const statement = this.db
        .prepare(SHARED.hasNewerSession)
        .bind(JSON.stringify(users), createdAfter, now);
      return (await statement.all()).results.length > 0;
    });
  }

  /** An upsert that writes only when the digest is absent or past its time (contract 5). */
  async remember({ digest, ttlMs, now }: RememberOptions): Promise<boolean> {
    return this.run('remember', async () => {
      const statement = this.db.prepare(SHARED.remember).bind(digest, now + ttlMs, now);
      return (await statement.all()).results.length > 0;
    });
  }

  async forget({ digest }: ForgetOptions): Promise<void> {
    await this.run('forget', () => this.db.prepare(SHARED.forget).bind(digest).run());
  }

  /**
   * A conditional UPDATE that applies only to a live open record without a result, so a
   * result is never replaced and a closed record never reopened (contract 4). Why it did not
   * apply is read in the same batch, so the outcome is exact.
   */
  async attachResult({ key, result, now }: AttachResultOptions): Promise<AttachOutcome> {
    const [attached, refusal] = await this.run('attachResult', () =>
      this.db.batch([
        this.db.prepare(ATTACH).bind(key, resultText(result), now),
        this.db.prepare(ATTACH_REFUSAL).bind(key, now),
      ]),
    );
    if (rowsOf(attached).length > 0) return 'attached';
    return refusalOf(refusal);
  }

  /**
   * `attachResult` and then `lease`, in one batch (one transaction, one call to D1): both at
   * once where both apply, else the attach alone, and what the record was when neither did.
   */
  async attachAndLease({
    key,
    result,
    now,
    owner,
    leaseMs,
  }: AttachAndLeaseOptions): Promise<AttachAndLeaseOutcome> {
    const text = resultText(result);
    const [leased, attached, refusal] = await this.run('attachAndLease', () =>
      this.db.batch([
        this.db.prepare(ATTACH_AND_LEASE).bind(key, text, now, owner, now + leaseMs),
        this.db.prepare(ATTACH).bind(key, text, now),
        this.db.prepare(ATTACH_REFUSAL).bind(key, now),
      ]),
    );
    const [row] = rowsOf<SessionRow>(leased);
    if (row) return { attached: 'attached', leased: sessionFromRow(row) };
    if (rowsOf(attached).length > 0) return { attached: 'attached' };
    return { attached: refusalOf(refusal) };
  }

  /** A conditional UPDATE: granted only when the lease is free, passed or the caller's (contract 2). */
  async lease({ key, owner, now, leaseMs }: LeaseOptions): Promise<TrackedSession | undefined> {
    return this.run('lease', async () => {
      const statement = this.db.prepare(LEASE).bind(key, owner, now, now + leaseMs);
      const [row] = (await statement.all<SessionRow>()).results;
      return row && sessionFromRow(row);
    });
  }

  /**
   * One batch: deletes a bounded number of rows past their time (contract 8), then leases the
   * due records read through the partial index on open records' due time (contract 7).
   */
  async leaseDue({ owner, now, leaseMs, limit }: LeaseDueOptions): Promise<TrackedSession[]> {
    const count = Math.max(0, Math.floor(limit));
    return this.run('leaseDue', async () => {
      const [, , due, leased] = await this.db.batch([
        this.db.prepare(PURGE_RECORDS).bind(now, this.purgeBatchSize),
        this.db.prepare(PURGE_DIGESTS).bind(now, this.purgeBatchSize),
        this.db.prepare(SELECT_DUE).bind(now, count),
        this.db.prepare(LEASE_DUE).bind(now, count, owner, now + leaseMs),
        this.db.prepare(PURGE_STARTS).bind(now, this.purgeBatchSize),
        this.db.prepare(PURGE_START_COUNTS).bind(now, this.purgeBatchSize),
      ]);
      // RETURNING does not keep the subquery's order: put the records back in due order.
      const order = new Map(
        rowsOf<{ key: string }>(due).map((row, index) => [row.key, index] as const),
      );
      return rowsOf<SessionRow>(leased)
        .map(sessionFromRow)
        .sort((a, b) => (order.get(a.key) ?? count) - (order.get(b.key) ?? count));
    });
  }

  /**
   * A conditional UPDATE on `lease_owner = owner`, which also ends the lease (contract 3, 6).
   * Settles that arrive while another is in flight (a sweep's concurrent deliveries) go to D1
   * together in one `batch()`, each with its own outcome.
   */
  async settle({ key, owner, update, now }: SettleOptions): Promise<boolean> {
    const result = resultText(update.result);
    const statement =
      'dueAt' in update
        ? this.db
            .prepare(SHARED.settleOpen)
            .bind(key, owner, now, result, update.state, update.dueAt, update.attempts)
        : this.db
            .prepare(SHARED.settleClosed)
            .bind(key, owner, now, result, update.state, update.attempts ?? null, update.retainMs);
    return this.run('settle', async () => (await this.settles.run(statement)).results.length > 0);
  }

  /**
   * One batch (one transaction, which D1 runs alone): the start's claim, the record it names
   * and the counts are read, then the claim is written and counted, each write only when the
   * claim is granted (see start-statements.ts). The outcome follows from what was read: no
   * other call ran between the reads and the writes.
   */
  async claimStart(options: ClaimStartOptions): Promise<ClaimStartOutcome> {
    const { startKey, externalUserId, owner, now, counters } = options;
    checkStorableUserId(externalUserId, 'D1Store.claimStart');
    const { claimUntil, reuseBy, counters: counting } = startClaimValues(options, 'D1Store');
    const claim = [startKey, externalUserId, owner, now, claimUntil, reuseBy, counting];
    const [held, reusable, read] = await this.run('claimStart', () =>
      this.db.batch([
        this.db.prepare(SELECT_START).bind(startKey, now),
        this.db.prepare(SELECT_REUSABLE).bind(...claim.slice(0, 6)),
        this.db.prepare(SELECT_START_COUNTS).bind(counting, now),
        this.db.prepare(CLAIM_START).bind(...claim),
        this.db.prepare(COUNT_START).bind(...claim),
      ]),
    );
    const [record] = rowsOf<SessionRow>(reusable);
    if (record) return { claim: 'reuse', record: sessionFromRow(record) };
    const [claimRow] = rowsOf<{ owner: string | null; claim_until: number }>(held);
    if (claimRow?.owner && claimRow.owner !== owner) {
      return { claim: 'busy', until: Number(claimRow.claim_until) };
    }
    const counts = rowsOf<{ count: number }>(read).map((row) => Number(row.count));
    const limited = counters.findIndex(
      (counter, index) =>
        !counter.readOnly && counter.limit !== undefined && counts[index]! >= counter.limit,
    );
    if (limited >= 0) return { claim: 'limited', counter: limited, counts };
    // Counted as COUNT_START counted them, in order: each counter not read only, once more.
    const after = new Map<string, number>();
    return {
      claim: 'granted',
      counts: counters.map((counter, index) => {
        if (counter.readOnly) return counts[index]!;
        const count = (after.get(counter.key) ?? counts[index]!) + 1;
        after.set(counter.key, count);
        return count;
      }),
    };
  }

  /** One UPDATE: the owner's claim ends, only while it still holds it. */
  async endStart({ startKey, owner, now }: EndStartOptions): Promise<void> {
    await this.run('endStart', () =>
      this.db.prepare(SHARED_STARTS.endStart).bind(startKey, owner, now).run(),
    );
  }

  async counts({ now }: CountsOptions): Promise<Record<TrackedState, number>> {
    const rows = await this.run('counts', async () => {
      const statement = this.db.prepare(SHARED.counts).bind(now);
      return (await statement.all<{ state: TrackedState; n: number }>()).results;
    });
    const counts: Record<TrackedState, number> = {
      pending: 0,
      delivering: 0,
      completed: 0,
      expired: 0,
      failed: 0,
    };
    for (const row of rows) if (row.state in counts) counts[row.state] = row.n;
    return counts;
  }

  async listDeadLetters({ now, limit, cursor }: ListDeadLettersOptions): Promise<DeadLetterPage> {
    const count = Math.max(0, Math.floor(limit));
    const after = cursor === undefined ? { purgeAt: now, key: '' } : decodeDeadLetterCursor(cursor);
    // One row more than the page tells whether another page follows.
    return this.run('listDeadLetters', async () => {
      const statement = this.db
        .prepare(SHARED.listDeadLetters)
        .bind(now, after.purgeAt, after.key, count + 1);
      const rows = (await statement.all<SessionRow & { purge_at: number }>()).results;
      const page = rows.slice(0, count);
      const last = page.at(-1);
      return {
        records: page.map(sessionFromRow),
        ...(last && rows.length > count
          ? { cursor: encodeDeadLetterCursor({ purgeAt: last.purge_at, key: String(last.key) }) }
          : {}),
      };
    });
  }

  async redeliverDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    return this.run('redeliverDeadLetter', async () => {
      const statement = this.db.prepare(SHARED.redeliverDeadLetter).bind(key, now);
      return (await statement.all()).results.length > 0;
    });
  }

  async discardDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    return this.run('discardDeadLetter', async () => {
      const statement = this.db.prepare(SHARED.discardDeadLetter).bind(key, now);
      return (await statement.all()).results.length > 0;
    });
  }

  async dueSummary({ now }: DueSummaryOptions): Promise<DueSummary> {
    const row = await this.run('dueSummary', async () => {
      const statement = this.db.prepare(SHARED.dueSummary).bind(now);
      return (await statement.all<{ due: number; oldest: number | null }>()).results[0];
    });
    const due = row?.due ?? 0;
    return row?.oldest === null || row?.oldest === undefined
      ? { due }
      : { due, oldestDueAt: row.oldest };
  }

  /**
   * Erasure, as one batch of two `DELETE`s, of the user's starts and of the user's rows, found
   * through the user indexes: D1 runs a batch alone, so no other call sees the user half
   * removed, and a settle of a removed record afterwards matches no row.
   */
  async forgetUser({ externalUserId, now }: ForgetUserOptions): Promise<number> {
    checkStorableUserId(externalUserId, 'D1Store.forgetUser');
    return this.run('forgetUser', async () => {
      const [, forgotten] = await this.db.batch([
        this.db.prepare(SHARED_STARTS.forgetStarts).bind(externalUserId),
        this.db.prepare(SHARED.forgetUser).bind(externalUserId, now),
      ]);
      return rowsOf<{ live: number }>(forgotten).filter((row) => Number(row.live) === 1).length;
    });
  }

  /**
   * The D1 server's clock, in ms since the epoch: SQLite's `julianday('now')` read by the
   * database (resolution well under a millisecond), one round trip. Every Worker sharing the
   * database reads the same clock.
   */
  async readClock(): Promise<number> {
    return this.run('readClock', async () => {
      const statement = this.db.prepare(
        "SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) AS now",
      );
      const now = Number((await statement.all<{ now: number }>()).results[0]?.now);
      if (!Number.isFinite(now)) throw new TypeError('readClock read no time');
      return now;
    });
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

/** Why an attach did not apply, from ATTACH_REFUSAL's row read in the same batch. */
function refusalOf(refusal: D1Result<unknown> | undefined): Exclude<AttachOutcome, 'attached'> {
  const row = rowsOf<{ state: TrackedState; has_result: number }>(refusal)[0];
  if (!row) return 'missing';
  return isOpen(row.state) && row.has_result ? 'already-attached' : 'closed';
}
