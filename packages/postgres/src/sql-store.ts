import {
  type AttachAndLeaseOptions,
  type AttachAndLeaseOutcome,
  type AttachOutcome,
  type AttachResultOptions,
  type ClaimStartOptions,
  type ClaimStartOutcome,
  type ClosedRecordListener,
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
  type SettledWith,
  type SettleOptions,
  type StoreAlarmListener,
  StoreAlarmListeners,
  type TrackedSession,
  type TrackedState,
  type TransactionalStore,
} from '@faceverify/core/store';
import {
  MalformedRowError,
  resultText,
  sessionFromRow,
  sessionRowValues,
  startClaimValues,
  storableUserIds,
} from '@faceverify/shared-sql';
import type { ClosedNoticeChannel } from './closed-notices.js';
import { storeError } from './errors.js';
import { MIGRATIONS, migrationsTableSql } from './migrations.js';
import { closedChannel, type TableNames, tableNames } from './names.js';
import type { Row, SqlDatabase, SqlQueryable } from './sql-database.js';
import { type PostgresStartStatements, postgresStartStatements } from './start-statements.js';
import { type Statements, statements } from './statements.js';
import { TimelineWatch, WAL_POSITION_COLUMNS } from './timeline-watch.js';

/** Options every SQL store shares. */
export interface SqlStoreOptions {
  /** Schema of the store's tables, created by `migrate()` when missing. Default `'public'`. */
  schema?: string;
  /**
   * Put before every table and index name, so several applications or environments can
   * share one schema. Default `'faceverify_'` (tables `faceverify_sessions`, ...).
   */
  prefix?: string;
  /**
   * At most this many expired records, and as many expired digests, are deleted by each
   * retention step (`prune`, run by every `leaseDue`). Default 500.
   */
  pruneBatch?: number;
}

/** Options of `prune`. */
export interface PruneOptions {
  now: number;
  /** At most this many records and as many digests are deleted. Default `pruneBatch`. */
  limit?: number;
}

/** What one retention step deleted. */
export interface PruneReport {
  sessions: number;
  digests: number;
}

/** What `migrate()` did. */
export interface MigrateReport {
  /** File names of the migrations applied now; empty when the schema was up to date. */
  applied: string[];
}

// How often `leaseDue` also deletes starts and counts past their time: they live for minutes
// (a claim) to a day (a count), so once a minute keeps them bounded at a statement a minute.
const PRUNE_STARTS_EVERY_MS = 60_000;

// PostgreSQL's lock_not_available: a FOR UPDATE NOWAIT met a row another transaction holds.
const LOCK_NOT_AVAILABLE = '55P03';
const LOCKED_RETRIES = 3;
const LOCKED_RETRY_MS = 25;

/**
 * The Store contract on PostgreSQL. Each method is one statement (atomic per row, with
 * row locks across processes), except `insert` with a per-user bound and `settleWith`,
 * which are transactions. Times come only from the `now` passed in: the database clock is
 * never consulted, so expiry follows the application's clock.
 */
export abstract class SqlStore<Transaction> implements TransactionalStore<Transaction> {
  /** The tables this store works on. */
  readonly tables: TableNames;
  private readonly sql: Statements;
  private readonly starts: PostgresStartStatements;
  // `insert` and `forgetUser` with the start's row in the same statement.
  private readonly insertStarted: string;
  private readonly forgetUserAndStarts: string;
  private startsPrunedUntil = Number.NEGATIVE_INFINITY;
  private readonly pruneBatch: number;
  private readonly notices: ClosedNoticeChannel | undefined;
  // The closing settle and its notice in one statement: no round trip of its own per close,
  // and the notice is sent when the close commits (inside settleWith's transaction too).
  private readonly settleClosed: string;
  private readonly settleOpen: string;
  private readonly alarms = new StoreAlarmListeners();
  /** Where the database may fail over: tells when it did, and what was lost (see the class). */
  private readonly timeline: TimelineWatch | undefined;
  /**
   * Calls `listener` with the key of each record any instance sharing these tables closes
   * (PostgreSQL LISTEN/NOTIFY; one pooled connection is held while anyone listens).
   * Present where the driver supports it (`PostgresStore`). `waitForResult` uses it.
   */
  readonly watchClosed?: (listener: ClosedRecordListener) => () => void;

  protected constructor(
    private readonly db: SqlDatabase<Transaction>,
    options: SqlStoreOptions,
    private readonly storeName: string,
  ) {
    this.tables = tableNames(options.schema, options.prefix);
    this.sql = statements(this.tables);
    this.starts = postgresStartStatements(this.tables);
    this.insertStarted = this.starts.insertStarted(this.sql.insert);
    this.forgetUserAndStarts = this.starts.forgetUserAndStarts(this.sql.forgetUser);
    this.pruneBatch = Math.max(1, Math.floor(options.pruneBatch ?? 500));
    this.notices = db.closedNotices?.(closedChannel(this.tables));
    const notices = this.notices;
    if (notices) this.watchClosed = (listener) => notices.watch(listener);
    // Where the database may fail over, each settle also says where in its history it ran.
    this.timeline = db.mayFailOver ? new TimelineWatch(db, this.alarms) : undefined;
    const position = this.timeline ? `, ${WAL_POSITION_COLUMNS}` : '';
    this.settleClosed =
      notices || position
        ? `WITH settled AS (${this.sql.settleClosed})
        SELECT settled.key${notices ? ', pg_notify($8::text, settled.key)' : ''}${position} FROM settled`
        : this.sql.settleClosed;
    this.settleOpen = position
      ? `WITH settled AS (${this.sql.settleOpen}) SELECT settled.key${position} FROM settled`
      : this.sql.settleOpen;
  }

  /**
   * Calls `listener` with a `StoreAlarm` when PostgreSQL failed over and lost writes it had
   * acknowledged to this instance, or may have (`store_rewound`; see docs/polling-and-stores.md,
   * "Who may run twice"). The Receiver subscribes itself; with no listener, alarms go to the
   * console at error level.
   */
  onAlarm(listener: StoreAlarmListener): () => void {
    return this.alarms.subscribe(listener);
  }

  /**
   * Creates or updates the store's tables: applies the migrations not yet applied, in one
   * transaction under an advisory lock, so concurrent instances starting together are safe.
   * Idempotent: call it at every start.
   *
   * @example
   * const store = new PostgresStore({ pool });
   * const { applied } = await store.migrate(); // [] when the tables are up to date
   */
  async migrate(): Promise<MigrateReport> {
    return this.run('migrate', () =>
      this.db.transaction(async (queryable) => {
        await queryable.query('SELECT pg_advisory_xact_lock(hashtext($1::text))', [
          `faceverify.migrate:${this.tables.schema}`,
        ]);
        for (const statement of migrationsTableSql(this.tables).split(';\n')) {
          if (statement.trim()) await queryable.query(statement, []);
        }
        const done = new Set(
          (await queryable.query(`SELECT version FROM ${this.tables.migrations}`, [])).map((row) =>
            Number(row.version),
          ),
        );
        const applied: string[] = [];
        for (const migration of MIGRATIONS) {
          if (done.has(migration.version)) continue;
          await execScript(queryable, migration.sql(this.tables));
          await queryable.query(
            `INSERT INTO ${this.tables.migrations} (version, name) VALUES ($1::integer, $2::text)`,
            [migration.version, migration.name],
          );
          applied.push(migration.name);
        }
        return { commit: true, value: { applied } };
      }),
    );
  }

  async insert({
    record,
    now,
    maxOpenPerUser,
    displacedRetainMs = 0,
    start,
  }: InsertOptions): Promise<InsertOutcome> {
    checkStorableUserId(record.externalUserId, `${this.storeName}.insert`);
    const params = [...sessionRowValues(record), now];
    // With a start, the same statement names the record in the start's row (see claimStart).
    const [insert, insertParams] = start
      ? [this.insertStarted, [...params, start.startKey, start.owner]]
      : [this.sql.insert, params];
    return this.run('insert', async () => {
      if (maxOpenPerUser === undefined || !isOpen(record.state)) {
        // Alone: a record of the key that a delivery's transaction holds is waited for.
        const rows = await this.db.queryAlone(insert, insertParams);
        return { inserted: rows.length === 1, displaced: [] };
      }
      return this.db
        .transaction<InsertOutcome>(async (queryable) => {
          await queryable.query(this.sql.lockUser, [this.tables.sessions, record.externalUserId]);
          const inserted = (await queryable.query(insert, insertParams)).length === 1;
          if (!inserted) return { commit: true, value: { inserted, displaced: [] } };
          const displaced = await queryable.query(this.sql.displace, [
            record.externalUserId,
            record.key,
            now,
            Math.max(0, maxOpenPerUser - 1),
            displacedRetainMs,
          ]);
          const before = displaced.map(sessionFromRow).sort((a, b) => a.createdAt - b.createdAt);
          return { commit: true, value: { inserted, displaced: before } };
        })
        .then((outcome) => {
          for (const record of outcome.displaced) this.notices?.publish(record.key);
          return outcome;
        });
    });
  }

  async get({ key, now }: GetOptions): Promise<TrackedSession | undefined> {
    return this.run('get', async () => {
      const [row] = await this.db.query(this.sql.get, [key, now]);
      return row && sessionFromRow(row);
    });
  }

  async findByUser({ externalUserId, now, limit }: FindByUserOptions): Promise<TrackedSession[]> {
    checkStorableUserId(externalUserId, `${this.storeName}.findByUser`);
    return this.run('findByUser', async () => {
      const rows = await this.db.query(this.sql.findByUser, [
        externalUserId,
        now,
        Math.max(0, Math.floor(limit)),
      ]);
      return rows.map(sessionFromRow);
    });
  }

  /** One statement on the user index, whatever the number of ids: is one row there? */
  async hasNewerSession({
    externalUserIds,
    createdAfter,
    now,
  }: HasNewerSessionOptions): Promise<boolean> {
    const users = storableUserIds(externalUserIds, `${this.storeName}.hasNewerSession`);
    return this.run('hasNewerSession', async () => {
      const rows = await this.db.query(this.sql.hasNewerSession, [users, createdAfter, now]);
      return rows.length > 0;
    });
  }

  async remember({ digest, ttlMs, now }: RememberOptions): Promise<boolean> {
    return this.run('remember', async () => {
      const rows = await this.db.query(this.sql.remember, [digest, now + ttlMs, now]);
      return rows.length === 1;
    });
  }

  async forget({ digest }: ForgetOptions): Promise<void> {
    await this.run('forget', () => this.db.query(this.sql.forget, [digest]));
  }

  /**
   * A record another transaction holds is retried a few times, for the moment a statement
   * takes (a lease, another attach, a displacement). Still held after that, it is a delivery's
   * transaction: the record is `delivering` with its result, so this one is `already-attached`
   * (or the delivery closes it: either way it is not delivered again), and the webhook is
   * answered instead of waiting minutes for a transactional handler on a pooled connection.
   */
  async attachResult({ key, result, now }: AttachResultOptions): Promise<AttachOutcome> {
    return this.run('attachResult', async () => {
      for (let attempt = 0; ; attempt++) {
        let rows: Row[];
        try {
          rows = await this.db.query(this.sql.attachResult, [key, resultText(result), now]);
        } catch (error) {
          if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
          if (attempt >= LOCKED_RETRIES) return 'already-attached';
          await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_MS));
          continue;
        }
        const [row] = rows;
        if (!row) return 'missing';
        if (row.attached) return 'attached';
        return row.state === 'pending' || row.state === 'delivering'
          ? 'already-attached'
          : 'closed';
      }
    });
  }

  /**
   * `attachResult` and, when it attached, `lease`, as one statement (one round trip): the
   * record is locked as `attachResult` locks it, and held by a delivery's transaction it is
   * answered the same way (`already-attached`), leased by nobody.
   */
  async attachAndLease({
    key,
    result,
    now,
    owner,
    leaseMs,
  }: AttachAndLeaseOptions): Promise<AttachAndLeaseOutcome> {
    return this.run('attachAndLease', async () => {
      for (let attempt = 0; ; attempt++) {
        let rows: Row[];
        try {
          rows = await this.db.query(this.sql.attachAndLease, [
            key,
            resultText(result),
            now,
            owner,
            now + leaseMs,
          ]);
        } catch (error) {
          if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
          if (attempt >= LOCKED_RETRIES) return { attached: 'already-attached' };
          await new Promise((resolve) => setTimeout(resolve, LOCKED_RETRY_MS));
          continue;
        }
        const [row] = rows;
        if (!row) return { attached: 'missing' };
        if (row.key === null || row.key === undefined) {
          return {
            attached:
              row.found_state === 'pending' || row.found_state === 'delivering'
                ? 'already-attached'
                : 'closed',
          };
        }
        return row.leased
          ? { attached: 'attached', leased: sessionFromRow(row) }
          : { attached: 'attached' };
      }
    });
  }

  async lease({ key, owner, now, leaseMs }: LeaseOptions): Promise<TrackedSession | undefined> {
    return this.run('lease', async () => {
      const [row] = await this.db.query(this.sql.lease, [key, owner, now + leaseMs, now]);
      return row && sessionFromRow(row);
    });
  }

  /** Runs a retention step first (see `prune`), then leases the due records. */
  async leaseDue({ owner, now, leaseMs, limit }: LeaseDueOptions): Promise<TrackedSession[]> {
    return this.run('leaseDue', async () => {
      await Promise.all([
        this.db.query(this.sql.prune, [now, this.pruneBatch]),
        ...(now >= this.startsPrunedUntil ? [this.pruneStarts(now, this.pruneBatch)] : []),
      ]);
      await this.timeline?.check(now);
      if (limit <= 0) return [];
      const rows = await this.db.query(this.sql.leaseDue, [
        now,
        Math.floor(limit),
        owner,
        now + leaseMs,
      ]);
      return rows.map(sessionFromRow);
    });
  }

  async settle(options: SettleOptions): Promise<boolean> {
    return this.run('settle', async () => {
      const rows = await this.db.query(...this.settleStatement(options));
      this.timeline?.settled(rows[0]);
      return rows.length === 1;
    });
  }

  /**
   * Runs `work` in the transaction that records the outcome: applies `update` when `owner`
   * holds the record's lease, locking the record (else rolls back and resolves
   * `{ settled: false }` without running `work`), runs `work` with the transaction, and
   * commits: BEGIN, the update, the work's statements, COMMIT. When
   * `work` throws, everything is rolled back (the lease stays with `owner`) and the error
   * is rethrown as it is. Only `work`'s writes through the given transaction are part of it.
   * The Receiver calls it for handlers registered with `{ transactional: true }`.
   *
   * @example
   * const outcome = await store.settleWith(
   *   { key, owner, now: Date.now(), update: { state: 'completed', retainMs: 3_600_000 } },
   *   (client) => client.query('UPDATE users SET verified = true WHERE id = $1', [userId]),
   * );
   * if (!outcome.settled) console.log('another worker owns this session now');
   */
  async settleWith<T>(
    options: SettleOptions,
    work: (transaction: Transaction) => Promise<T>,
  ): Promise<SettledWith<T>> {
    let workFailed = false;
    let settledRow: Row | undefined;
    try {
      const outcome = await this.db.transaction<SettledWith<T>>(async (queryable, transaction) => {
        // The update first: its row lock is the record's for the rest of the transaction, and
        // it applies only while `owner` holds the lease, so it is the check as well, one
        // statement before the work instead of one before and one after. What it wrote is
        // seen by nothing else until the commit, and is rolled back with the work's writes.
        const [settled] = await queryable.query(...this.settleStatement(options));
        if (!settled) return { commit: false, value: { settled: false } };
        let value: T;
        try {
          value = await work(transaction);
        } catch (error) {
          workFailed = true;
          throw error;
        }
        settledRow = settled;
        return { commit: true, value: { settled: true, value } };
      });
      this.timeline?.settled(settledRow);
      return outcome;
    } catch (error) {
      if (workFailed) throw error;
      throw storeError('settleWith', error, this.db.secrets, this.storeName);
    }
  }

  /**
   * One call of the store's claim function (migration 0004): the start's row is locked, so
   * concurrent claims of one start take turns, then its session is read, or its claim, or its
   * counters (locked in key order) are checked and counted, in one round trip and one
   * transaction (contract rule 13).
   */
  async claimStart(options: ClaimStartOptions): Promise<ClaimStartOutcome> {
    const { startKey, externalUserId, owner, now } = options;
    checkStorableUserId(externalUserId, `${this.storeName}.claimStart`);
    const { claimUntil, reuseBy, counters } = startClaimValues(options, this.storeName);
    return this.run('claimStart', async () => {
      const [row] = await this.db.query(this.starts.claimStart, [
        startKey,
        externalUserId,
        owner,
        now,
        claimUntil,
        reuseBy,
        counters,
      ]);
      return claimFromRow(row);
    });
  }

  /** One UPDATE: the owner's claim ends, only while it still holds it. */
  async endStart({ startKey, owner, now }: EndStartOptions): Promise<void> {
    await this.run('endStart', () => this.db.query(this.starts.endStart, [startKey, owner, now]));
  }

  async counts({ now }: CountsOptions): Promise<Record<TrackedState, number>> {
    return this.run('counts', async () => {
      const counts: Record<TrackedState, number> = {
        pending: 0,
        delivering: 0,
        completed: 0,
        expired: 0,
        failed: 0,
      };
      for (const row of await this.db.query(this.sql.counts, [now])) {
        counts[row.state as TrackedState] = Number(row.n);
      }
      return counts;
    });
  }

  async listDeadLetters({ now, limit, cursor }: ListDeadLettersOptions): Promise<DeadLetterPage> {
    const count = Math.max(0, Math.floor(limit));
    const after = cursor === undefined ? { purgeAt: now, key: '' } : decodeDeadLetterCursor(cursor);
    return this.run('listDeadLetters', async () => {
      // One row more than the page tells whether another page follows.
      const rows = await this.db.query(this.sql.listDeadLetters, [
        now,
        after.purgeAt,
        after.key,
        count + 1,
      ]);
      const page = rows.slice(0, count);
      const last = page.at(-1);
      return {
        records: page.map(sessionFromRow),
        ...(last && rows.length > count
          ? {
              cursor: encodeDeadLetterCursor({
                purgeAt: Number(last.purge_at),
                key: last.key as string,
              }),
            }
          : {}),
      };
    });
  }

  async redeliverDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    return this.run('redeliverDeadLetter', async () => {
      return (await this.db.query(this.sql.redeliverDeadLetter, [key, now])).length === 1;
    });
  }

  async discardDeadLetter({ key, now }: DeadLetterOptions): Promise<boolean> {
    return this.run('discardDeadLetter', async () => {
      return (await this.db.query(this.sql.discardDeadLetter, [key, now])).length === 1;
    });
  }

  async dueSummary({ now }: DueSummaryOptions): Promise<DueSummary> {
    return this.run('dueSummary', async () => {
      const [row] = await this.db.query(this.sql.dueSummary, [now]);
      const due = Number(row?.due ?? 0);
      const oldest = row?.oldest;
      return oldest === null || oldest === undefined
        ? { due }
        : { due, oldestDueAt: Number(oldest) };
    });
  }

  /**
   * Erasure, as one `DELETE` of the user's rows (atomic alone, and what a PgBouncer in
   * transaction mode passes as it is). A row a delivery's transaction holds (`settleWith`
   * running a transactional handler) is deleted once that transaction ends: the handler's
   * own writes commit, the record does not outlive the erasure.
   */
  async forgetUser({ externalUserId, now }: ForgetUserOptions): Promise<number> {
    checkStorableUserId(externalUserId, `${this.storeName}.forgetUser`);
    return this.run('forgetUser', async () => {
      // Alone: it waits for the rows a delivery's transaction holds (see above).
      const rows = await this.db.queryAlone(this.forgetUserAndStarts, [externalUserId, now]);
      return rows.filter((row) => Number(row.live) === 1).length;
    });
  }

  /**
   * The retention step: deletes up to `limit` records past their time (closed ones after
   * their retention, open ones a day after both their expiry and due time) and as many
   * expired digests, oldest first, and as many starts and counts of starts past their time.
   * `leaseDue` runs one on every sweep; call it yourself only when nothing sweeps. Readers
   * never see such rows even before they are deleted.
   *
   * @example
   * // From a scheduled job of an app that never calls receiver.start() or sweep():
   * const { sessions, digests } = await store.prune({ now: Date.now() });
   */
  async prune({ now, limit = this.pruneBatch }: PruneOptions): Promise<PruneReport> {
    return this.run('prune', async () => {
      const batch = Math.max(1, Math.floor(limit));
      const [[row]] = await Promise.all([
        this.db.query(this.sql.prune, [now, batch]),
        this.pruneStarts(now, batch),
      ]);
      return { sessions: Number(row?.sessions ?? 0), digests: Number(row?.digests ?? 0) };
    });
  }

  /**
   * Deletes up to `limit` starts whose claim lapsed and whose session can no longer be handed
   * out, and as many counts past their period (see start-statements.ts). `leaseDue` runs it
   * beside its retention step once a minute, `prune` every time.
   */
  private async pruneStarts(now: number, limit: number): Promise<void> {
    await this.db.query(this.starts.pruneStarts, [now, limit]);
    this.startsPrunedUntil = now + PRUNE_STARTS_EVERY_MS;
  }

  private settleStatement({ key, owner, update, now }: SettleOptions): [string, unknown[]] {
    const result = resultText(update.result);
    return 'dueAt' in update
      ? [this.settleOpen, [key, owner, now, result, update.state, update.dueAt, update.attempts]]
      : [
          this.settleClosed,
          [
            key,
            owner,
            now,
            result,
            update.state,
            update.attempts ?? null,
            update.retainMs,
            ...(this.notices ? [this.notices.channel] : []),
          ],
        ];
  }

  private async run<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw storeError(operation, error, this.db.secrets, this.storeName);
    }
  }
}

/** `claimStart`'s outcome from the row of the claim function (migration 0004). */
function claimFromRow(row: Row | undefined): ClaimStartOutcome {
  const counts = (): number[] => {
    const value = row?.counts;
    if (!Array.isArray(value)) throw new MalformedRowError('claimStart counts are not a list');
    return value.map(Number);
  };
  switch (row?.claim) {
    case 'reuse':
      return { claim: 'reuse', record: sessionFromRow(row.found_record as Row) };
    case 'busy':
      return { claim: 'busy', until: Number(row.claim_until) };
    case 'limited':
      return { claim: 'limited', counter: Number(row.counter), counts: counts() };
    case 'granted':
      return { claim: 'granted', counts: counts() };
    default:
      throw new MalformedRowError('claimStart came back without an outcome');
  }
}

/** Runs a migration file's statements one by one (extended protocol takes one at a time). */
async function execScript(queryable: SqlQueryable, script: string): Promise<void> {
  const withoutComments = script
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n');
  let statement = '';
  for (const part of withoutComments.split(/;\s*\n/)) {
    statement = statement === '' ? part : `${statement};\n${part}`;
    // A function's body (between $$ and $$) holds statements of its own: it ends at its $$.
    if ((statement.match(/\$\$/g)?.length ?? 0) % 2 === 1) continue;
    if (statement.trim()) await queryable.query(statement, []);
    statement = '';
  }
}
