import { createReceiver, type Receiver } from '@faceverify/core';
import { applyMigrations, type D1Database, D1Store } from '../../src/index.js';
import { countingDatabase, type D1Traffic } from './counting-database.js';

// The D1 cells of bench/tracker.bench.mjs: the same sessions and phases as the other stores
// there, run inside workerd, so that the times are D1's and not the host's HTTP to the Worker.

const SECRET = 'whsec_bench_tracker_2c8e4a6f0b1d';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Cell {
  due: number;
  /** The counting binding: the naive phases' round trips are counted too. */
  db: D1Database;
  store: D1Store;
  receiver: Receiver;
  traffic: D1Traffic;
  handled: number;
  tag: number;
}

// One cell per isolate at a time, made by /tracker/setup: the host drives its phases.
let cell: Cell | undefined;

const PAYLOAD = JSON.stringify({
  event: 'verification.completed',
  status: 'verified',
  confidence: 0.97,
  livenessPassed: true,
  duplicate: false,
  risk: 'low',
  reason: null,
  frontImageUrl: 'https://files.example.com/sessions/3f9a1c0e/front.jpg',
});

/** `count` pending sessions due in an hour, in one statement: a sweep must not touch them. */
async function seedPending(db: D1Database, count: number, now: number): Promise<void> {
  await db.batch([
    db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO faceverify_records (key, token, external_user_id, created_at, expires_at,
           state, due_at, attempts, purge_at)
         SELECT 'tok_p_' || i, 'tok_p_' || i, 'user_p_' || i, ?2, ?2 + ?3, 'pending',
           ?2 + ?4 + i % 1000, 0, ?2 + ?3 + ?5 FROM n`,
      )
      .bind(count, now, 2 * HOUR, HOUR, DAY),
    db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO naive_sessions SELECT 'tok_p_' || i, 'pending', ?2 + ?3 + i % 1000, NULL
         FROM n`,
      )
      .bind(count, now, HOUR),
  ]);
}

/**
 * `count` sessions due now whose result is stored (a handler failed, due for a retry), in the
 * store's table or the naive one: the phase that follows delivers them.
 */
async function seedDue(db: D1Database, target: 'store' | 'naive', tag: number, count: number) {
  const now = Date.now();
  // The payload's user id is spliced into the stored result, as each session's own.
  const result = `json_object('payload', json_patch(?3, json_object('external_user_id', 'user_d_' || ?2 || '_' || i)), 'source', 'webhook', 'receivedAt', ?4 - ?5)`;
  const sql =
    target === 'store'
      ? `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO faceverify_records (key, token, external_user_id, created_at, expires_at,
           state, due_at, attempts, result, purge_at)
         SELECT 'tok_d_' || ?2 || '_' || i, 'tok_d_' || ?2 || '_' || i, 'user_d_' || ?2 || '_' || i,
           ?4 - ?5, ?4 + ?6, 'delivering', ?4 - 1000 - i, 1, ${result}, ?4 + ?6 + ?7 FROM n`
      : `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
         INSERT INTO naive_sessions SELECT 'tok_d_' || ?2 || '_' || i, 'delivering',
           ?4 - 1000 - i, ${result} FROM n`;
  const values = [count, tag, PAYLOAD, now, MINUTE, HOUR, DAY];
  // D1 refuses values bound to no parameter: the naive table has no expiry or purge time.
  await db
    .prepare(sql)
    .bind(...(target === 'store' ? values : values.slice(0, 5)))
    .run();
}

/** Runs `work` over `items`, `concurrency` at a time, as the Receiver's sweep does. */
async function withConcurrency<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function naiveSelect(db: D1Database, now: number): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT key FROM naive_sessions WHERE state IN ('pending', 'delivering') AND due_at <= ?1`,
    )
    .bind(now)
    .all<{ key: string }>();
  return results.map((row) => row.key);
}

/** Times one phase of the cell after `due` fresh due sessions were added (not timed). */
async function phase(name: string, concurrency: number) {
  if (!cell) throw new Error('call /tracker/setup first');
  const current = cell;
  const db = current.db;
  const tag = current.tag++;
  const onStore = name === 'leaseDue' || name === 'sweep';
  await seedDue(db, onStore ? 'store' : 'naive', tag, current.due);
  Object.assign(current.traffic, { statements: 0, roundTrips: 0, rowsRead: 0 });
  const owner = 'bench-owner';
  const before = current.handled;
  let ms = 0;
  let selected = 0;
  let traffic: D1Traffic = { ...current.traffic };
  // Date.now() moves on at each I/O in workerd, which every D1 call is: whole milliseconds.
  const start = Date.now();
  const stop = () => {
    ms = Date.now() - start;
    traffic = { ...current.traffic };
  };
  switch (name) {
    case 'leaseDue': {
      const leased = await current.store.leaseDue({
        now: Date.now(),
        limit: current.due,
        owner,
        leaseMs: MINUTE,
      });
      stop();
      selected = leased.length;
      // Closed again, untimed, so that the next phase starts from the same state.
      const now = Date.now();
      await Promise.all(
        leased.map((record) =>
          current.store.settle({
            key: record.key,
            owner,
            update: { state: 'completed', retainMs: HOUR },
            now,
          }),
        ),
      );
      break;
    }
    case 'naiveSelect': {
      const keys = await naiveSelect(db, Date.now());
      stop();
      selected = keys.length;
      await db
        .prepare(
          `UPDATE naive_sessions SET state = 'completed' WHERE key IN (SELECT value FROM json_each(?1))`,
        )
        .bind(JSON.stringify(keys))
        .run();
      break;
    }
    case 'sweep': {
      const { delivered } = await current.receiver.sweep();
      stop();
      selected = delivered;
      break;
    }
    case 'naive': {
      const keys = await naiveSelect(db, Date.now());
      await withConcurrency(keys, concurrency, async (key) => {
        const { results } = await db
          .prepare('SELECT result FROM naive_sessions WHERE key = ?1')
          .bind(key)
          .all<{ result: string }>();
        JSON.parse(results[0]!.result);
        current.handled++;
        await db
          .prepare(`UPDATE naive_sessions SET state = 'completed' WHERE key = ?1`)
          .bind(key)
          .run();
      });
      stop();
      selected = keys.length;
      break;
    }
    default:
      throw new Error(`no phase named ${name}`);
  }
  const handled = current.handled - before;
  return { ms, selected, handled, ...traffic };
}

/**
 * `/tracker/setup?tracked=&due=&concurrency=`: empty tables, `tracked - due` pending sessions
 * in D1Store's table and in a naive table of the same sessions with no index on the due time,
 * and a Receiver (client: false) on a counting D1Store. `/tracker/phase?name=`: one phase,
 * timed: `leaseDue` / `sweep` on the store, `naiveSelect` / `naive` on the naive table.
 */
export async function trackerBench(url: URL, db: D1Database): Promise<unknown> {
  const concurrency = Number(url.searchParams.get('concurrency') ?? 4);
  switch (url.pathname) {
    case '/tracker/setup': {
      const tracked = Number(url.searchParams.get('tracked'));
      const due = Number(url.searchParams.get('due'));
      const started = Date.now();
      await applyMigrations(db);
      await db.batch([
        db.prepare('DELETE FROM faceverify_records'),
        db.prepare('DELETE FROM faceverify_digests'),
        db.prepare('DROP TABLE IF EXISTS naive_sessions'),
        db.prepare(
          'CREATE TABLE naive_sessions (key TEXT PRIMARY KEY, state TEXT, due_at INTEGER, result TEXT)',
        ),
      ]);
      await seedPending(db, tracked - due, Date.now());
      const counter = countingDatabase(db);
      const store = new D1Store({ db: counter.db });
      const receiver = createReceiver({
        secret: SECRET,
        client: false,
        store,
        sweepBatchSize: due,
        sweepConcurrency: concurrency,
      });
      const next: Cell = {
        due,
        db: counter.db,
        store,
        receiver,
        traffic: counter.traffic,
        handled: 0,
        tag: 0,
      };
      receiver.on('verification.completed', () => {
        next.handled++;
      });
      cell = next;
      return { setupMs: Date.now() - started };
    }
    case '/tracker/phase':
      return phase(url.searchParams.get('name') ?? '', concurrency);
    default:
      return undefined;
  }
}
