#!/usr/bin/env node
// Cost of one `receiver.sweep()` as the number of tracked and due sessions grows, on
// MemoryStore, RedisStore, PostgresStore, PGliteStore and D1Store (D1 in workerd through
// Miniflare), against the naive approach of scanning every tracked session; and, on the
// transactional stores, the deliveries per second of one instance whose handler writes a row
// inside the store's transaction, against the same write outside it.
//
// The due sessions are `delivering`: their result is already stored (a webhook whose handler
// failed, due for a retry), so a sweep leases them, runs the handler and settles them — store
// work and handler calls only. Polling pending sessions over HTTP would measure the emulator
// and the API client rather than the store, so no client is configured (`client: false`).
// The other tracked sessions are `pending` and due in an hour: a sweep must not touch them.
// The sweeping Receiver lists two token keys, and the due sessions are stored sealed as a
// Receiver with those keys writes them (see sealedDueSessions), so a sweep opens each one.
//
// usage: node --import tsx bench/tracker.bench.mjs [--quick] [--rounds=N]
//          [--stores=memory,redis,postgres,pglite,d1]
//        node --import tsx bench/tracker.bench.mjs --against=<revision> [--rounds=N]
//          [--stores=memory,redis,postgres]
//
// `--against` measures only the headline cell, at that revision (checked out and built beside
// this one, or already built at `--against-dir`) and at this checkout, round by round in one
// process (bench/lib/sweep-against.mjs): issue 45's goal is a sweep per due session within
// 1.5x of `043fa8f`, before sealing.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support/servers';
import { Redis } from 'ioredis';
import pg from 'pg';
import { machineInfo, median, packageVersions, table, writeResults } from './harness.mjs';
import { builtRevision } from './lib/revision-checkout.mjs';
import { AGAINST_FACTOR, measureAgainst } from './lib/sweep-against.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const entry = (name, file = 'index') =>
  pathToFileURL(fileURLToPath(new URL(`../packages/${name}/dist/${file}.js`, import.meta.url)))
    .href;

const SECRET = 'whsec_bench_tracker_2c8e4a6f0b1d';
/**
 * Two token keys, as a rotation has them (issue 45's condition for the sweep's cost): every
 * record the sweep reads is sealed as the Receiver writes it, and opened with the first.
 */
const TOKEN_KEYS = [
  'bench-tracker-token-key-2027-6f1c9e3a7d4b8e2f',
  'bench-tracker-token-key-2026-0a5d2c7e9b3f1d6a',
];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TRACKED = [10_000, 100_000];
const DUE = [100, 1000];
const CONCURRENCY = 4; // the Receiver's default sweepConcurrency; the naive sweep uses it too
// The cell the goals and the handler comparison are read at.
const HEADLINE = { tracked: 100_000, due: 1000 };
// Above this growth with tracked x10 (due fixed), the sweep is taken to follow the tracked count.
const TRACKED_GROWTH_LIMIT = 1.5;
const POSTGRES_OVER_REDIS_GOAL = 2;
const D1_SWEEP_GOAL_MS = 1000;
const D1_CONCURRENCY = 32;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      stores: { type: 'string' },
      against: { type: 'string' },
      'against-dir': { type: 'string' },
    },
    strict: false,
  });
  return {
    against: values.against === undefined ? undefined : String(values.against),
    againstDir: values['against-dir'] === undefined ? undefined : String(values['against-dir']),
    rounds: values.rounds === undefined ? (values.quick ? 3 : 7) : Number(values.rounds),
    stores: values.stores
      ? String(values.stores).split(',')
      : ['memory', 'redis', 'postgres', 'pglite', 'd1'],
  };
}

function payload(userId) {
  return {
    event: 'verification.completed',
    status: 'verified',
    external_user_id: userId,
    confidence: 0.97,
    livenessPassed: true,
    duplicate: false,
    risk: 'low',
    reason: null,
    frontImageUrl: 'https://files.example.com/sessions/3f9a1c0e/front.jpg',
  };
}

/** A tracked session not due for an hour. */
function pendingSession(i, now) {
  return {
    key: `tok_p_${i}`,
    token: `tok_p_${i}`,
    externalUserId: `user_p_${i}`,
    createdAt: now,
    expiresAt: now + 2 * HOUR,
    state: 'pending',
    dueAt: now + HOUR + (i % 1000),
    attempts: 0,
  };
}

/** A session due now whose result is stored: the sweep delivers it (in clear, for the naive side). */
function dueSession(tag, i, now) {
  const userId = `user_d_${tag}_${i}`;
  return {
    key: `tok_d_${tag}_${i}`,
    token: `tok_d_${tag}_${i}`,
    externalUserId: userId,
    createdAt: now - MINUTE,
    expiresAt: now + HOUR,
    state: 'delivering',
    dueAt: now - 1000 - i,
    attempts: 1,
    result: { payload: payload(userId), source: 'webhook', receivedAt: now - MINUTE },
  };
}

/**
 * Due sessions as a Receiver with TOKEN_KEYS stores them: keyed by the token's keyed hash, the
 * token and user id sealed, the result sealed. Made by a Receiver of their own on a MemoryStore,
 * which tracks each session and delivers its webhook to a handler that fails, so that the
 * result is stored for a retry; the records are then read back from that MemoryStore as they
 * are stored, and made due at `now`. The same records serve every cell (each on a store of its
 * own), `round` telling the rounds of a cell apart.
 */
function sealedDueSessions(core, testing) {
  const made = new Map();
  const make = async (round, count) => {
    const inner = new core.MemoryStore();
    const writer = core.createReceiver({
      secret: SECRET,
      tokenKeys: TOKEN_KEYS,
      // track() needs a client; nothing asks it: the webhooks are taken as they come.
      client: {
        createSession: () => Promise.reject(new Error('not asked')),
        getSession: () => Promise.reject(new Error('not asked')),
        check: () => Promise.resolve(),
      },
      confirmWebhooks: false,
      store: inner,
      logger: false,
    });
    writer.on('verification.completed', () => {
      throw new Error('kept for a retry');
    });
    await inChunks(count, 100, async (i) => {
      const token = `tok_d_${round}_${i}`;
      const userId = `user_d_${round}_${i}`;
      await writer.track(token, userId);
      const answer = await writer.receive(
        await testing.signedDelivery(payload(userId), { secret: SECRET }),
      );
      // 500: the handler failed, the result is stored for a retry.
      if (answer.status !== 500) {
        throw new Error(`writing a sealed due session: answered ${answer.status}`);
      }
    });
    const stored = await inner.leaseDue({
      now: Date.now() + HOUR,
      limit: count,
      owner: 'bench-writer',
      leaseMs: MINUTE,
    });
    if (stored.length !== count)
      throw new Error(`${stored.length} of ${count} due sessions sealed`);
    return stored;
  };
  return async (round, count, now) => {
    const key = `${round}:${count}`;
    if (!made.has(key)) made.set(key, await make(round, count));
    return made.get(key).map(({ lease: _lease, ...record }, i) => ({
      ...record,
      state: 'delivering',
      createdAt: now - MINUTE,
      expiresAt: now + HOUR,
      dueAt: now - 1000 - i,
      attempts: 1,
    }));
  };
}

/** Sealed due sessions for a round of a cell (`sealedDueSessions`), set once core is loaded. */
let sealedDue;

async function inChunks(count, size, fn) {
  for (let start = 0; start < count; start += size) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + size); i++) batch.push(fn(i));
    await Promise.all(batch);
  }
}

/** Runs `work` over `items` with `CONCURRENCY` workers, as the Receiver's sweep does. */
async function withConcurrency(items, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

// ---- the naive approach: every tracked session in one collection, scanned in full ----------

/** A Map of every tracked session; a sweep scans all of them for due ones. */
function naiveMemory() {
  const sessions = new Map();
  return {
    label: 'Map scan',
    async add(session) {
      sessions.set(session.key, { ...session });
    },
    select(now) {
      const due = [];
      for (const session of sessions.values()) {
        const open = session.state === 'pending' || session.state === 'delivering';
        if (open && session.dueAt <= now) due.push(session);
      }
      return due;
    },
    async close(selected) {
      for (const session of selected) session.state = 'completed';
    },
    async sweep(now, handler) {
      const due = this.select(now);
      await withConcurrency(due, async (session) => {
        await handler(session.result.payload);
        session.state = 'completed';
      });
      return due.length;
    },
  };
}

/** One hash per session in Redis; a sweep SCANs every hash and reads its state and due time. */
function naiveRedis(redis) {
  const prefix = 'naive:s:';
  return {
    label: 'SCAN + HMGET of every session',
    async add(session) {
      await redis.hset(
        prefix + session.key,
        'state',
        session.state,
        'dueAt',
        String(session.dueAt),
        'result',
        session.result ? JSON.stringify(session.result) : '',
      );
    },
    async select(now) {
      const due = [];
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length === 0) continue;
        const pipeline = redis.pipeline();
        for (const key of keys) pipeline.hmget(key, 'state', 'dueAt');
        const replies = await pipeline.exec();
        replies.forEach(([error, [state, dueAt]], index) => {
          if (error) throw error;
          const open = state === 'pending' || state === 'delivering';
          if (open && Number(dueAt) <= now) due.push(keys[index]);
        });
      } while (cursor !== '0');
      return due;
    },
    async close(selected) {
      const pipeline = redis.pipeline();
      for (const key of selected) pipeline.hset(key, 'state', 'completed');
      await pipeline.exec();
    },
    async sweep(now, handler) {
      const due = await this.select(now);
      await withConcurrency(due, async (key) => {
        const result = JSON.parse(await redis.hget(key, 'result'));
        await handler(result.payload);
        await redis.hset(key, 'state', 'completed');
      });
      return due.length;
    },
  };
}

/**
 * One table of every session with no index on the due time: a sweep's query reads the whole
 * table (`db` is a pg Pool or a PGlite instance; both answer `query(sql, params)`).
 */
async function naiveSql(db) {
  await db.query('DROP TABLE IF EXISTS naive_sessions');
  await db.query(
    'CREATE TABLE naive_sessions (key text PRIMARY KEY, state text, due_at bigint, result jsonb)',
  );
  const select = async (now) =>
    (
      await db.query(
        `SELECT key FROM naive_sessions WHERE state IN ('pending', 'delivering') AND due_at <= $1`,
        [now],
      )
    ).rows.map((row) => row.key);
  return {
    label: 'full table scan',
    async add(session) {
      await db.query('INSERT INTO naive_sessions VALUES ($1, $2, $3, $4)', [
        session.key,
        session.state,
        session.dueAt,
        session.result ? JSON.stringify(session.result) : null,
      ]);
    },
    select,
    async close(selected) {
      await db.query(`UPDATE naive_sessions SET state = 'completed' WHERE key = ANY($1)`, [
        selected,
      ]);
    },
    async sweep(now, handler) {
      const due = await select(now);
      await withConcurrency(due, async (key) => {
        const { rows } = await db.query('SELECT result FROM naive_sessions WHERE key = $1', [key]);
        await handler(rows[0].result.payload);
        await db.query(`UPDATE naive_sessions SET state = 'completed' WHERE key = $1`, [key]);
      });
      return due.length;
    },
  };
}

// ---- the measurement ---------------------------------------------------------------------

/**
 * Runs the four phases in unrecorded-then-recorded rounds: `leaseDue` against `naiveSelect`
 * (selection alone), `sweep` against `naive` (select, handle, settle). Each phase starts with
 * `due` fresh due sessions, which `phases[name]()` adds itself, untimed. Returns each phase's
 * samples (`{ ms, ...extra }`) and the naive/sweep ratio of each round.
 */
async function runRounds(phases, rounds) {
  const samples = { sweep: [], naive: [], leaseDue: [], naiveSelect: [] };
  const roundRatios = [];
  // One unrecorded round first: JIT and connection warm-up fall on neither side.
  for (let round = -1; round < rounds; round++) {
    const result = {};
    for (const pair of [
      ['leaseDue', 'naiveSelect'],
      ['sweep', 'naive'],
    ]) {
      // The two sides of a pair go in alternating order.
      const order = round % 2 === 0 ? pair : [...pair].reverse();
      for (const phase of order) {
        result[phase] = await phases[phase]();
        if (round >= 0) samples[phase].push(result[phase]);
      }
    }
    if (round >= 0) roundRatios.push(result.naive.ms / result.sweep.ms);
  }
  return { samples, roundRatios };
}

/** One row of the results: medians of the samples, their ratios, and the samples. */
function summarize({ storeName, tracked, due, naiveLabel, setupMs, samples, roundRatios }) {
  const ms = (phase) => median(samples[phase].map((sample) => sample.ms));
  const sweepMs = ms('sweep');
  const naiveMs = ms('naive');
  const leaseDueMs = ms('leaseDue');
  const naiveSelectMs = ms('naiveSelect');
  // The D1 cells count their round trips to D1; the others have none to count.
  const roundTrips =
    samples.sweep[0]?.roundTrips === undefined
      ? {}
      : {
          roundTrips: Object.fromEntries(
            Object.entries(samples).map(([phase, list]) => [
              phase,
              median(list.map((sample) => sample.roundTrips)),
            ]),
          ),
        };
  const row = {
    store: storeName,
    tracked,
    due,
    sweepMs: Number(sweepMs.toFixed(2)),
    sweepMicrosPerDue: Number(((sweepMs * 1000) / due).toFixed(1)),
    deliveriesPerSecond: Math.round((due * 1000) / sweepMs),
    naive: naiveLabel,
    naiveMs: Number(naiveMs.toFixed(2)),
    naiveOverSweep: Number((naiveMs / sweepMs).toFixed(2)),
    roundRatioRange: [
      Number(Math.min(...roundRatios).toFixed(2)),
      Number(Math.max(...roundRatios).toFixed(2)),
    ],
    leaseDueMs: Number(leaseDueMs.toFixed(3)),
    naiveSelectMs: Number(naiveSelectMs.toFixed(3)),
    naiveSelectOverLeaseDue: Number((naiveSelectMs / leaseDueMs).toFixed(2)),
    ...roundTrips,
    setupSeconds: Number((setupMs / 1000).toFixed(1)),
    samples: Object.fromEntries(
      Object.entries(samples).map(([k, v]) => [`${k}Ms`, v.map((x) => Number(x.ms.toFixed(3)))]),
    ),
  };
  console.log(
    `  ${storeName.padEnd(8)} tracked ${String(tracked).padStart(6)} due ${String(due).padStart(4)}: ` +
      `sweep ${row.sweepMs} ms vs naive ${row.naiveMs} ms; selection: leaseDue ${row.leaseDueMs} ms vs scan ${row.naiveSelectMs} ms` +
      (row.roundTrips ? `; sweep round trips ${row.roundTrips.sweep}` : ''),
  );
  return row;
}

/**
 * One cell on a store in this process. `afterCell(store, addDue)`, when given, runs on the
 * same store (still holding its tracked sessions) once the cell is measured.
 */
async function measureCell({
  storeName,
  makeStore,
  makeNaive,
  tracked,
  due,
  rounds,
  core,
  afterCell = undefined,
}) {
  const store = await makeStore();
  const naive = await makeNaive();
  let handled = 0;
  const receiver = sweepingReceiver(core, store, due);
  receiver.on('verification.completed', () => {
    handled++;
  });
  const naiveHandler = async () => {
    handled++;
  };
  const now = Date.now();
  const notDue = tracked - due;
  const setupStart = performance.now();
  await inChunks(notDue, 2000, async (i) => {
    const session = pendingSession(i, now);
    await store.insert({ record: session, now });
    await naive.add(session);
  });
  const setupMs = performance.now() - setupStart;

  let tag = 0;
  const storeTarget = { add: (session) => store.insert({ record: session, now: Date.now() }) };
  /**
   * Adds `due` fresh due sessions to the store (sealed, as the Receiver writes them) or to the
   * naive collection (in clear).
   */
  const addDue = async (target) => {
    const at = Date.now();
    const round = tag++;
    const sessions =
      target === storeTarget
        ? await sealedDue(round, due, at)
        : Array.from({ length: due }, (_, i) => dueSession(round, i, at));
    await inChunks(due, 500, (i) => target.add(sessions[i]));
  };
  const owner = 'bench-owner';
  const phases = {
    // Selection alone: the store's leaseDue against the naive scan for due sessions. What
    // was selected is then closed, untimed, so the next phase starts from the same state.
    async leaseDue() {
      await addDue(storeTarget);
      const start = performance.now();
      const leased = await store.leaseDue({ now: Date.now(), limit: due, owner, leaseMs: MINUTE });
      const ms = performance.now() - start;
      if (leased.length !== due) throw new Error(`leaseDue gave ${leased.length} of ${due}`);
      const now = Date.now();
      await Promise.all(
        leased.map((s) =>
          store.settle({ key: s.key, owner, update: { state: 'completed', retainMs: HOUR }, now }),
        ),
      );
      return { ms };
    },
    async naiveSelect() {
      await addDue(naive);
      const start = performance.now();
      const selected = await naive.select(Date.now());
      const ms = performance.now() - start;
      if (selected.length !== due)
        throw new Error(`naive select gave ${selected.length} of ${due}`);
      await naive.close(selected);
      return { ms };
    },
    // The whole sweep: select, run the handler, settle.
    async sweep() {
      await addDue(storeTarget);
      const before = handled;
      const start = performance.now();
      const { delivered } = await receiver.sweep();
      const ms = performance.now() - start;
      if (delivered !== due || handled - before !== due) {
        throw new Error(
          `${storeName} sweep: delivered ${delivered}, handled ${handled - before} of ${due}`,
        );
      }
      return { ms };
    },
    async naive() {
      await addDue(naive);
      const before = handled;
      const start = performance.now();
      const delivered = await naive.sweep(Date.now(), naiveHandler);
      const ms = performance.now() - start;
      if (delivered !== due || handled - before !== due) {
        throw new Error(
          `${storeName} naive: delivered ${delivered}, handled ${handled - before} of ${due}`,
        );
      }
      return { ms };
    },
  };
  const { samples, roundRatios } = await runRounds(phases, rounds);
  const row = summarize({
    storeName,
    tracked,
    due,
    naiveLabel: naive.label,
    setupMs,
    samples,
    roundRatios,
  });
  const extra = afterCell ? await afterCell(store, () => addDue(storeTarget)) : undefined;
  return { row, extra };
}

/**
 * Deliveries per second of one instance whose handler writes one row per result: inside the
 * store's transaction (`{ transactional: true }`, the write and the completed record commit
 * together), against a plain handler doing the same INSERT on its own connection. Both sweep
 * `due` fresh due sessions of the same store, in alternating order.
 */
async function measureHandlers({ storeName, store, addDue, query, core, due, rounds }) {
  await query('DROP TABLE IF EXISTS bench_deliveries');
  await query('CREATE TABLE bench_deliveries (user_id text PRIMARY KEY, status text)');
  const insert = 'INSERT INTO bench_deliveries (user_id, status) VALUES ($1, $2)';
  const receiverWith = (register) => {
    const receiver = sweepingReceiver(core, store, due);
    register(receiver);
    return receiver;
  };
  const receivers = {
    transactional: receiverWith((receiver) =>
      receiver.on(
        'verification.completed',
        async (event, { transaction }) => {
          await transaction.query(insert, [event.data.external_user_id, event.data.status]);
        },
        { transactional: true },
      ),
    ),
    plain: receiverWith((receiver) =>
      receiver.on('verification.completed', async (event) => {
        await query(insert, [event.data.external_user_id, event.data.status]);
      }),
    ),
  };
  const samples = { transactional: [], plain: [] };
  for (let round = -1; round < rounds; round++) {
    const order = round % 2 === 0 ? ['transactional', 'plain'] : ['plain', 'transactional'];
    for (const kind of order) {
      await addDue();
      const start = performance.now();
      const { delivered } = await receivers[kind].sweep();
      const ms = performance.now() - start;
      if (delivered !== due) throw new Error(`${storeName} ${kind}: delivered ${delivered}`);
      if (round >= 0) samples[kind].push(ms);
    }
  }
  const { rows } = await query('SELECT count(*)::int AS n FROM bench_deliveries');
  if (rows[0].n !== (rounds + 1) * 2 * due) {
    throw new Error(`${storeName}: ${rows[0].n} rows written for ${(rounds + 1) * 2 * due}`);
  }
  const result = { store: storeName, due, concurrency: CONCURRENCY };
  for (const kind of ['transactional', 'plain']) {
    const ms = median(samples[kind]);
    result[kind] = {
      sweepMs: Number(ms.toFixed(2)),
      deliveriesPerSecond: Math.round((due * 1000) / ms),
      samplesMs: samples[kind].map((x) => Number(x.toFixed(3))),
    };
  }
  result.transactionalOverPlain = Number(
    (result.transactional.sweepMs / result.plain.sweepMs).toFixed(2),
  );
  console.log(
    `  ${storeName.padEnd(8)} handler INSERT, ${due} due: transactional ${result.transactional.deliveriesPerSecond} deliveries/s (${result.transactional.sweepMs} ms), plain ${result.plain.deliveriesPerSecond}/s (${result.plain.sweepMs} ms)`,
  );
  return result;
}

/**
 * One cell on D1Store in workerd: the test Worker of packages/cloudflare (its `/tracker/`
 * routes) seeds the sessions and times each phase inside the Worker, where D1 is local;
 * timing from here would add this process's HTTP to the Worker to every phase.
 */
async function measureD1Cell({ worker, tracked, due, rounds, concurrency = CONCURRENCY }) {
  const setup = await worker.call(
    `/tracker/setup?tracked=${tracked}&due=${due}&concurrency=${concurrency}`,
  );
  const phase = (name) => async () => {
    const sample = await worker.call(`/tracker/phase?name=${name}&concurrency=${concurrency}`);
    if (sample.selected !== due) throw new Error(`d1 ${name}: ${sample.selected} of ${due}`);
    if ((name === 'sweep' || name === 'naive') && sample.handled !== due) {
      throw new Error(`d1 ${name}: handled ${sample.handled} of ${due}`);
    }
    return sample;
  };
  const { samples, roundRatios } = await runRounds(
    {
      leaseDue: phase('leaseDue'),
      naiveSelect: phase('naiveSelect'),
      sweep: phase('sweep'),
      naive: phase('naive'),
    },
    rounds,
  );
  const row = summarize({
    storeName: concurrency === CONCURRENCY ? 'd1' : `d1, ${concurrency} at once`,
    tracked,
    due,
    naiveLabel: 'full table scan (SQLite)',
    setupMs: setup.setupMs,
    samples,
    roundRatios,
  });
  return { ...row, sweepConcurrency: concurrency };
}

/** How the sweep time follows the due count and not the tracked count, per store. */
function scaling(rows) {
  const at = (store, tracked, due) =>
    rows.find((r) => r.store === store && r.tracked === tracked && r.due === due);
  const result = {};
  for (const store of new Set(rows.map((r) => r.store))) {
    if (rows.filter((r) => r.store === store).length < TRACKED.length * DUE.length) continue;
    const [smallT, bigT] = TRACKED;
    const [fewD, manyD] = DUE;
    const ratio = (a, b, key) => Number((a[key] / b[key]).toFixed(2));
    result[store] = {
      [`sweep: tracked x${bigT / smallT} (due ${manyD})`]: ratio(
        at(store, bigT, manyD),
        at(store, smallT, manyD),
        'sweepMs',
      ),
      [`sweep: due x${manyD / fewD} (tracked ${bigT})`]: ratio(
        at(store, bigT, manyD),
        at(store, bigT, fewD),
        'sweepMs',
      ),
      [`naive: tracked x${bigT / smallT} (due ${manyD})`]: ratio(
        at(store, bigT, manyD),
        at(store, smallT, manyD),
        'naiveMs',
      ),
      [`naive: due x${manyD / fewD} (tracked ${bigT})`]: ratio(
        at(store, bigT, manyD),
        at(store, bigT, fewD),
        'naiveMs',
      ),
    };
  }
  return result;
}

/** The goals, each with what was measured; a goal whose stores were not run is left out. */
function goals(rows, growth) {
  const at = (store) =>
    rows.find((r) => r.store === store && r.tracked === HEADLINE.tracked && r.due === HEADLINE.due);
  const result = {};
  const grown = Object.entries(growth);
  if (grown.length > 0) {
    const trackedKey = (factors) =>
      Object.keys(factors).find((k) => k.startsWith('sweep: tracked'));
    const dueKey = (factors) => Object.keys(factors).find((k) => k.startsWith('sweep: due'));
    result.followsDue = {
      description: `sweep cost follows the due sessions, not the tracked ones, on every store: with due fixed, tracked x10 grows the sweep by less than ${TRACKED_GROWTH_LIMIT}x (due x10 shown beside it)`,
      limit: TRACKED_GROWTH_LIMIT,
      measured: Object.fromEntries(
        grown.flatMap(([store, factors]) => [
          [`${store} tracked x10`, factors[trackedKey(factors)]],
          [`${store} due x10`, factors[dueKey(factors)]],
        ]),
      ),
      met: grown.every(([, factors]) => factors[trackedKey(factors)] < TRACKED_GROWTH_LIMIT),
    };
  }
  const postgres = at('postgres');
  const redis = at('redis');
  if (postgres && redis) {
    const ratio = Number((postgres.sweepMs / redis.sweepMs).toFixed(2));
    result.postgresVsRedis = {
      description: `PostgreSQL's sweep within ${POSTGRES_OVER_REDIS_GOAL}x Redis's (${HEADLINE.tracked.toLocaleString('en-US')} tracked, ${HEADLINE.due.toLocaleString('en-US')} due)`,
      factor: POSTGRES_OVER_REDIS_GOAL,
      measured: { 'postgres ms': postgres.sweepMs, 'redis ms': redis.sweepMs, ratio },
      met: ratio <= POSTGRES_OVER_REDIS_GOAL,
    };
  }
  const d1 = at('d1');
  if (d1) {
    const faster = rows.filter(
      (r) => r.store.startsWith('d1, ') && r.tracked === HEADLINE.tracked && r.due === HEADLINE.due,
    );
    result.d1Sweep = {
      description: `a D1 sweep of ${HEADLINE.due.toLocaleString('en-US')} due sessions in under ${D1_SWEEP_GOAL_MS / 1000} s in Miniflare (sweepConcurrency ${CONCURRENCY}, the default)`,
      limitMs: D1_SWEEP_GOAL_MS,
      measured: {
        'd1 ms': d1.sweepMs,
        'round trips': d1.roundTrips.sweep,
        ...Object.fromEntries(faster.map((r) => [`${r.store}: ms`, r.sweepMs])),
      },
      met: d1.sweepMs < D1_SWEEP_GOAL_MS,
    };
  }
  return result;
}

/**
 * A Receiver that only sweeps (no client): all `due` sessions in one sweep, `CONCURRENCY` at
 * once, with two token keys.
 */
function sweepingReceiver(core, store, due) {
  return core.createReceiver({
    secret: SECRET,
    tokenKeys: TOKEN_KEYS,
    client: false,
    store,
    sweepBatchSize: due,
    sweepConcurrency: CONCURRENCY,
  });
}

/** The cell whose figures lead the report (100k tracked, 1k due). */
const isHeadline = (tracked, due) => tracked === HEADLINE.tracked && due === HEADLINE.due;

/**
 * Every cell on a SQL store (PostgreSQL or PGlite), and at the headline cell the handlers that
 * write. `database()` gives a cell its store factory, what the naive table and the handlers
 * query through, and how to let it go.
 */
async function measureSqlCells({ storeName, database, settings, core, rows, handlers }) {
  for (const tracked of TRACKED) {
    for (const due of DUE) {
      const { makeStore, sql, close } = await database();
      try {
        const { row, extra } = await measureCell({
          storeName,
          makeStore,
          makeNaive: () => naiveSql(sql),
          tracked,
          due,
          rounds: settings.rounds,
          core,
          afterCell: isHeadline(tracked, due)
            ? (store, addDue) =>
                measureHandlers({
                  storeName,
                  store,
                  addDue,
                  query: (text, params) => sql.query(text, params),
                  core,
                  due,
                  rounds: settings.rounds,
                })
            : undefined,
        });
        rows.push(row);
        if (extra) handlers.push(extra);
      } finally {
        await close();
      }
    }
  }
}

/** The headline cell at another revision and here, side by side (`--against`). */
async function compareAgainst(settings, core, machine) {
  const revision = settings.againstDir ? undefined : builtRevision(ROOT, settings.against);
  const root = settings.againstDir ?? dirname(revision.packages);
  // `--against` names the revision; `--against-dir` says where it is already built.
  const against = settings.against ?? 'the checkout given by --against-dir';
  const stores = settings.stores.filter((store) => ['memory', 'redis', 'postgres'].includes(store));
  console.log(
    `tracker: one receiver.sweep() of ${HEADLINE.due.toLocaleString('en-US')} due among ${HEADLINE.tracked.toLocaleString('en-US')} tracked, at ${against} (no token keys, sessions in clear) and here (${TOKEN_KEYS.length} token keys, sessions sealed), alternating\n` +
      `${machine.cpu} x${machine.cpuCount}, Node ${machine.node}; ${settings.rounds} rounds per side\n`,
  );
  const rows = await measureAgainst({
    root,
    stores,
    tracked: HEADLINE.tracked,
    due: HEADLINE.due,
    rounds: settings.rounds,
    bench: {
      root: ROOT,
      core,
      secret: SECRET,
      tokenKeys: TOKEN_KEYS,
      concurrency: CONCURRENCY,
      inChunks,
      pendingSession,
      dueSession,
      sealedDue,
    },
  });
  const met = rows.every((row) => row.ratio <= AGAINST_FACTOR);
  console.log(
    `\ngoal: a sweep per due session within ${AGAINST_FACTOR}x of ${against}, with ${TOKEN_KEYS.length} token keys: ${met ? 'met' : 'NOT met'}`,
  );
  const file = writeResults(BENCH_DIR, 'tracker-against', {
    benchmark: 'tracker-against',
    description: `ms of one receiver.sweep() (built dist, client: false) delivering ${HEADLINE.due} due sessions among ${HEADLINE.tracked} tracked, at ${against} (no token keys, due sessions in clear, as its tracker bench stored them) and at this checkout (${TOKEN_KEYS.length} token keys, due sessions sealed as a Receiver writes them), sides alternating round by round in one process; ratio: median of the rounds' after / before.`,
    machine,
    loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
    against: { revision: settings.against ?? null, sha: revision?.sha ?? null },
    settings: { rounds: settings.rounds, concurrency: CONCURRENCY, tokenKeys: TOKEN_KEYS.length },
    rows,
    goal: { factor: AGAINST_FACTOR, met },
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

async function main() {
  const settings = options();
  const packages = ['core', ...(settings.stores.includes('redis') ? ['redis'] : [])];
  if (settings.stores.some((store) => store === 'postgres' || store === 'pglite')) {
    packages.push('postgres');
  }
  for (const name of packages) {
    if (!existsSync(new URL(`../packages/${name}/dist/index.js`, import.meta.url))) {
      console.error(
        `packages/${name}/dist is missing: run \`pnpm build\` first (\`pnpm bench:tracker\` does).`,
      );
      process.exit(1);
    }
  }
  const machine = machineInfo(ROOT);
  const core = await import(entry('core'));
  sealedDue = sealedDueSessions(core, await import(entry('core', 'testing/index')));
  if (settings.against !== undefined || settings.againstDir !== undefined) {
    await compareAgainst(settings, core, machine);
    return;
  }
  console.log(
    `tracker: one receiver.sweep() vs a naive scan of every tracked session\n` +
      `${machine.cpu} x${machine.cpuCount}, Node ${machine.node}; ${settings.rounds} rounds per cell, ` +
      `due sessions hold a stored result (the sweep delivers them), concurrency ${CONCURRENCY}\n`,
  );
  const rows = [];
  const handlers = [];
  if (settings.stores.includes('memory')) {
    for (const tracked of TRACKED) {
      for (const due of DUE) {
        const { row } = await measureCell({
          storeName: 'memory',
          makeStore: () => new core.MemoryStore(),
          makeNaive: () => naiveMemory(),
          tracked,
          due,
          rounds: settings.rounds,
          core,
        });
        rows.push(row);
      }
    }
  }
  let redisVersion = null;
  if (settings.stores.includes('redis')) {
    const { RedisStore } = await import(entry('redis'));
    const server = await startRedisServer();
    const clients = [];
    const client = (db) => {
      const redis = new Redis(server.url, { db, lazyConnect: false, maxRetriesPerRequest: 2 });
      clients.push(redis);
      return redis;
    };
    try {
      const admin = client(0);
      redisVersion = (await admin.info('server')).match(/redis_version:(\S+)/)?.[1] ?? null;
      for (const tracked of TRACKED) {
        for (const due of DUE) {
          await admin.flushall();
          const { row } = await measureCell({
            storeName: 'redis',
            // The naive sessions live in another database, so SCAN walks only them.
            makeStore: () => new RedisStore({ redis: client(0) }),
            makeNaive: () => naiveRedis(client(1)),
            tracked,
            due,
            rounds: settings.rounds,
            core,
          });
          rows.push(row);
        }
      }
    } finally {
      await Promise.all(clients.map((redis) => redis.quit().catch(() => redis.disconnect())));
      await server.stop();
    }
  }

  let postgresVersion = null;
  if (settings.stores.includes('postgres')) {
    const { PostgresStore } = await import(entry('postgres'));
    const server = await startPostgresServer();
    const pool = new pg.Pool({ connectionString: server.url(), max: 10 });
    // Connections still idle when the server stops end with an error nobody needs to see.
    pool.on('error', () => {});
    try {
      postgresVersion = (await pool.query('SHOW server_version')).rows[0].server_version;
      let cell = 0;
      await measureSqlCells({
        storeName: 'postgres',
        // One cluster for every cell: each gets tables of its own.
        database: async () => ({
          makeStore: async () => {
            const store = new PostgresStore({ pool, prefix: `bench${++cell}_` });
            await store.migrate();
            return store;
          },
          sql: pool,
          close: async () => undefined,
        }),
        settings,
        core,
        rows,
        handlers,
      });
    } finally {
      await pool.end();
      await server.stop();
    }
  }
  if (settings.stores.includes('pglite')) {
    const { PGliteStore } = await import(entry('postgres', 'pglite'));
    await measureSqlCells({
      storeName: 'pglite',
      // A new in-memory database per cell: PGlite holds everything in this process.
      database: async () => {
        const db = new PGlite();
        return {
          makeStore: async () => {
            const store = new PGliteStore({ db });
            await store.migrate();
            return store;
          },
          sql: db,
          close: () => db.close(),
        };
      },
      settings,
      core,
      rows,
      handlers,
    });
  }

  let workerd = null;
  if (settings.stores.includes('d1')) {
    // Miniflare needs Node 22: the test Worker runs in workerd under the Node 22 the script
    // installs once into node_modules/.cache (as `pnpm test` does).
    const { ensureMiniflare } = await import(
      pathToFileURL(`${ROOT}scripts/ensure-miniflare.mjs`).href
    );
    // "v22.x.y, workerd 2026-mm-dd": the Node that runs Miniflare, and workerd.
    const versions = (await ensureMiniflare()).versions;
    workerd = versions.match(/workerd (\S+)/)?.[1] ?? versions;
    const { startContractWorker } = await import(
      pathToFileURL(`${ROOT}packages/cloudflare/test/support-worker.ts`).href
    );
    const worker = await startContractWorker();
    try {
      for (const tracked of TRACKED) {
        for (const due of DUE) {
          rows.push(await measureD1Cell({ worker, tracked, due, rounds: settings.rounds }));
        }
      }
      // Settles in flight together share a D1 round trip, so the sweep's concurrency sets
      // how many round trips a sweep takes: the headline cell again with more at once.
      rows.push(
        await measureD1Cell({
          worker,
          ...HEADLINE,
          rounds: settings.rounds,
          concurrency: D1_CONCURRENCY,
        }),
      );
    } finally {
      await worker.close();
    }
  }

  console.log(
    `\n${table(
      [
        'store',
        'tracked',
        'due',
        'sweep ms',
        'naive ms',
        'naive/sweep',
        'leaseDue ms',
        'scan ms',
        'scan/leaseDue',
        'deliveries/s',
      ],
      rows.map((r) => [
        r.store,
        r.tracked.toLocaleString('en-US'),
        r.due.toLocaleString('en-US'),
        r.sweepMs.toFixed(2),
        r.naiveMs.toFixed(2),
        r.naiveOverSweep.toFixed(2),
        r.leaseDueMs.toFixed(2),
        r.naiveSelectMs.toFixed(2),
        r.naiveSelectOverLeaseDue.toFixed(2),
        r.deliveriesPerSecond.toLocaleString('en-US'),
      ]),
    )}`,
  );
  const growth = scaling(rows);
  for (const [store, factors] of Object.entries(growth)) {
    console.log(`\n${store}:`);
    for (const [what, factor] of Object.entries(factors)) {
      console.log(`  ${what.padEnd(34)} time x${factor.toFixed(2)}`);
    }
  }
  const goalList = goals(rows, growth);
  console.log('');
  for (const goal of Object.values(goalList)) {
    console.log(`goal: ${goal.description}: ${goal.met ? 'met' : 'NOT met'}`);
  }
  const file = writeResults(BENCH_DIR, 'tracker', {
    benchmark: 'tracker',
    description:
      'ms of one receiver.sweep() (built dist, client: false; D1 from source in workerd) delivering the due sessions (state delivering, result stored) among tracked pending ones not due, vs a naive sweep that scans every tracked session (Map scan; Redis SCAN + HMGET in its own database; a SQL table without a due-time index); medians of alternating rounds. handlers: deliveries/s of one instance whose handler INSERTs one row inside the store transaction vs on its own connection.',
    machine,
    loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
    versions: {
      ...packageVersions(ROOT, ['ioredis', '@faceverify/redis', 'pg', '@electric-sql/pglite']),
      redis: redisVersion,
      postgres: postgresVersion,
      workerd,
    },
    settings: { ...settings, concurrency: CONCURRENCY, tokenKeys: TOKEN_KEYS.length },
    rows,
    scaling: growth,
    handlers,
    goals: goalList,
  });
  console.log(`results: ${file.slice(ROOT.length)}`);
}

await main();
