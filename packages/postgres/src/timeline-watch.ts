import type { StoreAlarmListeners } from '@faceverify/core/store';
import type { Row, SqlQueryable } from './sql-database.js';

/**
 * Columns a statement adds to tell where in PostgreSQL's history it ran: the WAL position at
 * the statement (a lower bound of its commit's) and the WAL file name, whose first eight hex
 * digits are the timeline. A promoted replica starts a new timeline.
 */
export const WAL_POSITION_COLUMNS =
  'pg_current_wal_lsn()::text AS wal_lsn, pg_walfile_name(pg_current_wal_lsn()) AS wal_file';

/** How often `leaseDue` looks at the timeline when no settle has shown it (ms of `now`). */
const CHECK_EVERY_MS = 5_000;

/** A WAL position (`X/Y`, hex) as a number. */
function lsnValue(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

function positionOf(row: Row | undefined): { timeline: number; lsn: string } | undefined {
  const file = row?.wal_file;
  const lsn = row?.wal_lsn;
  if (typeof file !== 'string' || typeof lsn !== 'string' || !/^[0-9A-F]{24}$/i.test(file)) {
    return undefined;
  }
  return { timeline: Number.parseInt(file.slice(0, 8), 16), lsn };
}

/**
 * Tells a PostgreSQL that failed over to a replica, and whether writes it had acknowledged to
 * this instance were lost with it. Every settle returns the WAL position it ran at and its
 * timeline (no statement of its own), and `leaseDue` looks at the timeline every few
 * seconds. When the timeline changes, the new one's history file says where the old one
 * ended: a settle of this instance acknowledged past that point was lost, and
 * `store_rewound` says so. Reading the history needs `pg_read_server_files` (or superuser);
 * without it the alarm says that a failover happened after acknowledged writes, and that
 * they may have been lost.
 */
export class TimelineWatch {
  private timeline: number | undefined;
  /** The furthest WAL position a settle of this instance ran at on `timeline`. */
  private acknowledged: { lsn: string; value: bigint } | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SqlQueryable,
    private readonly alarms: StoreAlarmListeners,
  ) {}

  /** A settle of this instance came back (its row carries `WAL_POSITION_COLUMNS`). */
  settled(row: Row | undefined): void {
    const position = positionOf(row);
    if (!position) return;
    this.observe(position.timeline);
    const value = lsnValue(position.lsn);
    if (!this.acknowledged || value > this.acknowledged.value) {
      this.acknowledged = { lsn: position.lsn, value };
    }
  }

  /** Looks at the timeline when it was not seen for a while; never fails the caller. */
  async check(now: number): Promise<void> {
    if (now - this.checkedAt < CHECK_EVERY_MS && now >= this.checkedAt) return;
    this.checkedAt = now;
    try {
      const [row] = await this.db.query(`SELECT ${WAL_POSITION_COLUMNS}`, []);
      const position = positionOf(row);
      if (position) this.observe(position.timeline);
    } catch {
      // A standby (read-only) or a connection lost: the operation itself reports it.
    }
  }

  private observe(timeline: number): void {
    const previous = this.timeline;
    if (previous === timeline) return;
    this.timeline = timeline;
    const acknowledged = this.acknowledged;
    this.acknowledged = undefined;
    // Nothing this instance wrote can have been lost: nothing to say.
    if (previous === undefined || !acknowledged) return;
    this.judge(previous, timeline, acknowledged).catch(() => undefined);
  }

  /** Raises `store_rewound`, reading the new timeline's history to say whether writes were lost. */
  private async judge(
    from: number,
    to: number,
    acknowledged: { lsn: string; value: bigint },
  ): Promise<void> {
    const file = `${to.toString(16).toUpperCase().padStart(8, '0')}.history`;
    let history: string | undefined;
    try {
      const [row] = await this.db.query('SELECT pg_read_file($1::text) AS history', [
        `pg_wal/${file}`,
      ]);
      if (typeof row?.history === 'string') history = row.history;
    } catch {
      // Not permitted (pg_read_server_files) or not there: what is known is said below.
    }
    const end = history && switchPoint(history, from);
    const advice =
      "Ordinary handlers of results whose recorded success was lost run again, with the same event.id (make them idempotent by it); transactional handlers do not: their writes were lost with the record, in the same transaction, so the redelivery is their first. Sessions started and results stored in the lost writes are no longer known. To keep acknowledged writes across a failover, run synchronous replication (synchronous_standby_names, synchronous_commit = on or remote_apply; see the store's replication()).";
    if (end === undefined) {
      this.alarms.raise(
        'store_rewound',
        `PostgresStore: PostgreSQL failed over (timeline ${from} → ${to}) after acknowledging writes of this instance, the last at WAL position ${acknowledged.lsn} or later. Whether the new primary has them cannot be told here: the timeline history (pg_wal/${file}) needs pg_read_server_files or superuser to read; check it, or the server log, for where timeline ${from} ended. If the new primary was a replica that had not received them (asynchronous replication), they were lost. ${advice}`,
      );
      return;
    }
    if (acknowledged.value <= lsnValue(end)) return;
    this.alarms.raise(
      'store_rewound',
      `PostgresStore: PostgreSQL went back in time: it failed over from timeline ${from} to ${to} at WAL position ${end}, and this instance had writes acknowledged after it (the last at ${acknowledged.lsn} or later). The new primary was a replica that had not received them: they were lost. ${advice}`,
    );
  }
}

/** Where `timeline` ended, as a timeline history file tells it. */
function switchPoint(history: string, timeline: number): string | undefined {
  for (const line of history.split('\n')) {
    const [tli, lsn] = line.trim().split(/\s+/);
    if (Number(tli) === timeline && lsn && /^[0-9A-F]+\/[0-9A-F]+$/i.test(lsn)) return lsn;
  }
  return undefined;
}
