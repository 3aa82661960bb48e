import {
  type AttachAndLeaseOutcome,
  type AttachOutcome,
  type ClaimStartOutcome,
  type ClosedRecordListener,
  checkStorableUserId,
  type DeadLetterPage,
  type DueSummary,
  decodeDeadLetterCursor,
  encodeDeadLetterCursor,
  type SettleUpdate,
  type Store,
  type StoreAlarmListener,
  StoreAlarmListeners,
  type TrackedSession,
  type TrackedState,
} from '@faceverify/core/store';
import { clientKeyPrefix, clientSecrets, type RedisClient } from './client.js';
import { ClosedNotices } from './closed-notices.js';
import { storeError } from './errors.js';
import { type StoreKeys, storeKeys } from './keys.js';
import type { LuaScript } from './lua-script.js';
import { MemoryWatch } from './memory-watch.js';
import { type RedisStoreOptions, resolveRedisStoreOptions } from './options.js';
import { PerUserQueue } from './per-user-queue.js';
import { ReplicaWait } from './replica-wait.js';
import { RewindWatch } from './rewind-watch.js';
import { ATTACH_AND_LEASE } from './scripts/attach-and-lease.js';
import { ATTACH_RESULT } from './scripts/attach-result.js';
import { COUNTS } from './scripts/counts.js';
import { DISCARD_DEAD_LETTER, DUE_SUMMARY, REDELIVER_DEAD_LETTER } from './scripts/dead-letters.js';
import { NEEDS_KEYS } from './scripts/declared-keys.js';
import { FIND_BY_USER } from './scripts/find-by-user.js';
import { FORGET_USER } from './scripts/forget-user.js';
import { HAS_NEWER_SESSION } from './scripts/has-newer-session.js';
import { INSERT } from './scripts/insert.js';
import { LEASE } from './scripts/lease.js';
import { LEASE_DUE } from './scripts/lease-due.js';
import { isMarkerMismatch, rewoundTo } from './scripts/marker.js';
import { OPEN_RECORD_GRACE_MS } from './scripts/record-lifetime.js';
import { digestTtlMs, REMEMBER } from './scripts/remember.js';
import { SETTLE } from './scripts/settle.js';
import { CLAIM_START, END_START } from './scripts/starts.js';
import {
  formatNumber,
  fromFields,
  isPurged,
  recordFromReply,
  recordsFromReply,
  serializeResult,
  toFields,
} from './serialize.js';

// The option and outcome types of the Store methods, as core declares them.
type Options<Method extends keyof Store> = Parameters<NonNullable<Store[Method]>>[0];
type InsertOutcome = Awaited<ReturnType<Store['insert']>>;

const ATTACH_OUTCOMES: readonly AttachOutcome[] = [
  'attached',
  'already-attached',
  'closed',
  'missing',
];

function isAttachOutcome(value: unknown): value is AttachOutcome {
  return ATTACH_OUTCOMES.some((outcome) => outcome === value);
}

const OPEN_STATES: readonly TrackedState[] = ['pending', 'delivering'];

/**
 * A `Store` in Redis, shared by every instance of the application: tracked sessions,
 * stored results, leases and the replay window survive restarts and deploys (with Redis
 * persistence), and each session is leased and delivered by one instance at a time.
 *
 * Every operation that reads and then writes is one Lua script, so it is atomic across all
 * instances. Time is only the `now` each call passes in: a closed record is gone, and a
 * digest forgotten, at exactly the `now` its retention ends, whatever Redis' clock says.
 * Every key the store writes has a TTL, so nothing is kept forever. `leaseDue` reads only
 * the due part of a sorted set, `findByUser` and the per-user bound only the user's own
 * records. Works with a single node, Sentinel, or a Cluster when `prefix` holds a hash tag.
 *
 * Operations reject with a `RedisStoreError` when Redis cannot be reached; how long that
 * takes is set on the ioredis client (`maxRetriesPerRequest`, `commandTimeout`). Once
 * ioredis has reconnected, the store works again without any action.
 *
 * @example
 * import { createReceiver } from '@faceverify/core';
 * import { RedisStore } from '@faceverify/redis';
 * import { Redis } from 'ioredis';
 *
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 2 });
 * const receiver = createReceiver({ store: new RedisStore({ redis }) });
 */
export class RedisStore implements Store {
  private readonly redis: RedisClient;
  private readonly keys: StoreKeys;
  private readonly secrets: readonly string[];
  private readonly alarms = new StoreAlarmListeners();
  private readonly memory: MemoryWatch;
  private readonly insertQueue = new PerUserQueue();
  private readonly closed: ClosedNotices;
  private readonly rewind: RewindWatch;
  private readonly replicaWait: ReplicaWait | undefined;
  /**
   * The record each start named when this instance last saw it (an insert with the start, a
   * claim that reused it), so `claimStart` declares it up front and runs once; a start not
   * known here costs a second run that learns it (see scripts/declared-keys.ts).
   */
  private readonly startRecords = new Map<string, string>();

  constructor(options: RedisStoreOptions) {
    const { redis, prefix, allowEviction, waitForReplicas, watchRewinds } =
      resolveRedisStoreOptions(options);
    this.redis = redis;
    this.keys = storeKeys(prefix, clientKeyPrefix(redis));
    this.secrets = clientSecrets(redis);
    this.rewind = new RewindWatch(prefix, clientKeyPrefix(redis), this.alarms, watchRewinds);
    this.replicaWait = waitForReplicas && new ReplicaWait(redis, waitForReplicas, this.alarms);
    this.memory = new MemoryWatch(
      redis,
      this.keys.marker,
      allowEviction,
      this.alarms,
      this.secrets,
    );
    this.closed = new ClosedNotices(redis, `${this.keys.scriptPrefix}closed`);
  }

  /**
   * Checks Redis before first use: rejects with a `RedisStoreError` (`failure:
   * 'misconfigured'`) when its `maxmemory-policy` may evict keys and `allowEviction` is not
   * set, and arms the marker that lets the store tell a Redis that lost its data from a new
   * one. Every operation does this first; await it at startup to fail fast.
   */
  check(): Promise<void> {
    return this.memory.ready('check');
  }

  /**
   * Calls `listener` with a `StoreAlarm` when Redis lost data of this store (`store_reset`:
   * a restart without persistence, a flush, evicted keys), may evict it
   * (`store_eviction_risk`), went back in time and lost writes it had acknowledged to this
   * instance (`store_rewound`: a failover to a replica that was behind), or gave a closing
   * write to fewer replicas than `waitForReplicas` asks (`store_unreplicated`). The Receiver
   * subscribes itself; with no listener, alarms go to the console at error level.
   */
  onAlarm(listener: StoreAlarmListener): () => void {
    return this.alarms.subscribe(listener);
  }

  /**
   * Calls `listener` with the key of each record any instance sharing this store closes
   * (Redis pub/sub on the store's prefix). The first listener opens one subscriber
   * connection (`redis.duplicate()`); removing the last closes it. `waitForResult` uses it.
   */
  watchClosed(listener: ClosedRecordListener): () => void {
    return this.closed.watch(listener);
  }

  async insert({
    record,
    now,
    maxOpenPerUser,
    displacedRetainMs = 0,
    start,
  }: Options<'insert'>): Promise<InsertOutcome> {
    checkStorableUserId(record.externalUserId, 'RedisStore.insert');
    const displacedPurgeAt = now + retention(displacedRetainMs, 'insert', 'displacedRetainMs');
    const open = OPEN_STATES.includes(record.state);
    // A record inserted with a live lease becomes due when the lease ends, as leasing would.
    const session: TrackedSession = open
      ? { ...record, dueAt: Math.max(record.dueAt, record.lease?.until ?? record.dueAt) }
      : record;
    // Inserted closed, a record was given no retention: it is kept as an open one would be.
    const closedPurgeAt =
      Math.max(now, session.dueAt, Number.isFinite(session.expiresAt) ? session.expiresAt : now) +
      OPEN_RECORD_GRACE_MS;
    const insert = () =>
      this.script(
        'insert',
        INSERT,
        [
          this.keys.record(session.key),
          this.keys.openIndex(session.externalUserId),
          this.keys.closedIndex(session.externalUserId),
          ...(start
            ? [this.keys.start(start.startKey), this.keys.startIndex(session.externalUserId)]
            : []),
        ],
        [
          this.keys.scriptPrefix,
          session.key,
          session.externalUserId,
          session.state,
          formatNumber(session.createdAt),
          formatNumber(session.dueAt),
          formatNumber(now),
          maxOpenPerUser === undefined ? '' : String(Math.max(0, Math.floor(maxOpenPerUser))),
          formatNumber(displacedPurgeAt),
          formatNumber(closedPurgeAt),
          start?.startKey ?? '',
          start?.owner ?? '',
          ...toFields(session),
        ],
      );
    // Under a bound, inserts of one user are queued in this process (see per-user-queue.ts).
    const reply = await (maxOpenPerUser === undefined || !open
      ? insert()
      : this.insertQueue.run(session.externalUserId, insert));
    const outcome = this.read('insert', () => {
      if (!Array.isArray(reply) || (reply[0] !== 0 && reply[0] !== 1)) {
        throw new TypeError('insert came back malformed');
      }
      return { inserted: reply[0] === 1, displaced: recordsFromReply(reply[1]) };
    });
    for (const record of outcome.displaced) this.closed.publish(record.key);
    if (start && outcome.inserted) this.learnStart(start.startKey, session.key);
    return outcome;
  }

  async get({ key, now }: Options<'get'>): Promise<TrackedSession | undefined> {
    const fields = await this.run('get', () => this.redis.hgetall(this.keys.record(key)));
    if (Object.keys(fields).length === 0 || isPurged(fields, now)) return undefined;
    return this.read('get', () => fromFields(key, fields));
  }

  /**
   * One script over the user's indexes and the records they name. The records are named to
   * Redis before the script runs (Cluster): those of `keys` (the records the caller expects)
   * in the first run; any other the indexes hold makes the script ask for them and run again.
   */
  async findByUser({
    externalUserId,
    now,
    limit,
    keys,
  }: Options<'findByUser'>): Promise<TrackedSession[]> {
    checkStorableUserId(externalUserId, 'RedisStore.findByUser');
    const count = Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER);
    if (!(count >= 1)) return [];
    const reply = await this.script(
      'findByUser',
      FIND_BY_USER,
      [
        this.keys.openIndex(externalUserId),
        this.keys.closedIndex(externalUserId),
        ...this.expectedRecords(keys, count),
      ],
      [this.keys.scriptPrefix, externalUserId, formatNumber(now), count],
    );
    return this.read('findByUser', () => recordsFromReply(reply));
  }

  /**
   * One script over every user's two indexes (one slot: the keys share the prefix's hash
   * tag), reading only records that may be newer. A user with no record started after
   * `createdAfter` and none closed is answered from the indexes alone; a record read that
   * this instance did not name is asked for, and the script run again (see `script`).
   */
  async hasNewerSession({
    externalUserIds,
    createdAfter,
    now,
  }: Options<'hasNewerSession'>): Promise<boolean> {
    const users = [...new Set(externalUserIds)];
    for (const user of users) checkStorableUserId(user, 'RedisStore.hasNewerSession');
    if (users.length === 0) return false;
    const reply = await this.script(
      'hasNewerSession',
      HAS_NEWER_SESSION,
      users.flatMap((user) => [this.keys.openIndex(user), this.keys.closedIndex(user)]),
      [this.keys.scriptPrefix, formatNumber(createdAfter), formatNumber(now), ...users],
    );
    return reply === 1;
  }

  async remember({ digest, ttlMs, now }: Options<'remember'>): Promise<boolean> {
    const windowMs = retention(ttlMs, 'remember', 'ttlMs');
    const reply = await this.script(
      'remember',
      REMEMBER,
      [this.keys.digest(digest)],
      [formatNumber(now), formatNumber(now + windowMs), digestTtlMs(windowMs)],
    );
    return reply === 1;
  }

  async forget({ digest }: Options<'forget'>): Promise<void> {
    await this.run('forget', () => this.redis.del(this.keys.digest(digest)));
  }

  async attachResult({ key, result, now, user }: Options<'attachResult'>): Promise<AttachOutcome> {
    const reply = await this.script('attachResult', ATTACH_RESULT, this.recordKeys(key, user), [
      this.keys.scriptPrefix,
      key,
      serializeResult(result),
      formatNumber(now),
    ]);
    return this.read('attachResult', () => {
      if (!isAttachOutcome(reply)) throw new TypeError(`unexpected outcome ${String(reply)}`);
      return reply;
    });
  }

  /** `attachResult` and, when it attached, `lease`: one script, one round trip with `user`. */
  async attachAndLease({
    key,
    result,
    now,
    owner,
    leaseMs,
    user,
  }: Options<'attachAndLease'>): Promise<AttachAndLeaseOutcome> {
    const until = leaseEnd(now, leaseMs, 'attachAndLease');
    const reply = await this.script(
      'attachAndLease',
      ATTACH_AND_LEASE,
      this.recordKeys(key, user),
      [
        this.keys.scriptPrefix,
        key,
        serializeResult(result),
        formatNumber(now),
        owner,
        formatNumber(until),
      ],
    );
    return this.read('attachAndLease', () => {
      const [attached, fields] = Array.isArray(reply) ? reply : [];
      if (!isAttachOutcome(attached)) throw new TypeError(`unexpected outcome ${String(reply)}`);
      if (fields === undefined || fields === null) return { attached };
      return { attached, leased: recordFromReply(key, fields) };
    });
  }

  async lease({
    key,
    owner,
    now,
    leaseMs,
    user,
  }: Options<'lease'>): Promise<TrackedSession | undefined> {
    const until = leaseEnd(now, leaseMs, 'lease');
    const reply = await this.script('lease', LEASE, this.recordKeys(key, user), [
      this.keys.scriptPrefix,
      key,
      owner,
      formatNumber(now),
      formatNumber(until),
    ]);
    if (reply === null) return undefined;
    return this.read('lease', () => recordFromReply(key, reply));
  }

  async leaseDue({ owner, now, leaseMs, limit }: Options<'leaseDue'>): Promise<TrackedSession[]> {
    const until = leaseEnd(now, leaseMs, 'leaseDue');
    const count = Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER);
    if (!(count >= 1)) return [];
    const reply = await this.script(
      'leaseDue',
      LEASE_DUE,
      [this.keys.due],
      [this.keys.scriptPrefix, formatNumber(now), count, owner, formatNumber(until)],
    );
    // Once per sweep: where Redis may evict, a sweep is when evictions are looked for.
    await this.memory.checkEvictions();
    return this.read('leaseDue', () => recordsFromReply(reply));
  }

  /**
   * With `waitForReplicas`, a settle that closes the record (a recorded success, or a record
   * given up) runs on a connection of its own and resolves once the replicas asked for have
   * it, or the timeout passed (then `store_unreplicated` is raised; see the option).
   */
  async settle({ key, owner, update, now, user }: Options<'settle'>): Promise<boolean> {
    const durable = 'dueAt' in update ? undefined : this.replicaWait;
    let mark = 0;
    const reply = await this.script(
      'settle',
      SETTLE,
      this.recordKeys(key, user),
      [
        this.keys.scriptPrefix,
        key,
        owner,
        formatNumber(now),
        ...settleArgs(update, now),
        this.closed.channel,
      ],
      durable && {
        client: durable.client(),
        sending: () => {
          mark = durable.mark();
        },
      },
    );
    if (reply === 1 && durable) await durable.replicated(mark);
    return reply === 1;
  }

  /**
   * One script over the start, its user's start index, every counter and the record the start
   * names (see scripts/starts.ts): one run when this instance knows that record or none is
   * to be reused, two when the start names a record this instance has not seen.
   */
  async claimStart({
    startKey,
    externalUserId,
    owner,
    now,
    claimMs,
    reuseMinLifetimeMs,
    counters,
  }: Options<'claimStart'>): Promise<ClaimStartOutcome> {
    checkStorableUserId(externalUserId, 'RedisStore.claimStart');
    const claimUntil = leaseEnd(now, claimMs, 'claimStart', 'claimMs');
    const known = this.startRecords.get(startKey);
    const reply = await this.script(
      'claimStart',
      CLAIM_START,
      [
        this.keys.start(startKey),
        this.keys.startIndex(externalUserId),
        ...counters.map((counter) => this.keys.startCount(counter.key)),
        ...(known !== undefined && reuseMinLifetimeMs !== undefined
          ? [this.keys.record(known)]
          : []),
      ],
      [
        this.keys.scriptPrefix,
        startKey,
        externalUserId,
        owner,
        formatNumber(now),
        formatNumber(claimUntil),
        reuseMinLifetimeMs === undefined ? '' : formatNumber(Math.max(0, reuseMinLifetimeMs)),
        ...counters.flatMap((counter) => [
          counter.key,
          counter.limit === undefined ? '' : formatNumber(counter.limit),
          counter.readOnly ? '1' : '0',
          retention(counter.ttlMs, 'claimStart', 'ttlMs'),
        ]),
      ],
    );
    const outcome = this.read('claimStart', () => claimFromReply(reply));
    if (outcome.claim === 'reuse') this.learnStart(startKey, outcome.record.key);
    return outcome;
  }

  async endStart({ startKey, owner }: Options<'endStart'>): Promise<void> {
    await this.script(
      'endStart',
      END_START,
      [this.keys.start(startKey)],
      [this.keys.scriptPrefix, startKey, owner],
    );
  }

  async counts({ now }: Options<'counts'>): Promise<Record<TrackedState, number>> {
    const reply = await this.script(
      'counts',
      COUNTS,
      [this.keys.due],
      [this.keys.scriptPrefix, formatNumber(now)],
    );
    return this.read('counts', () => {
      if (!Array.isArray(reply) || !reply.every((n) => typeof n === 'number')) {
        throw new TypeError('counts came back malformed');
      }
      const [pending = 0, delivering = 0, completed = 0, expired = 0, failed = 0] =
        reply as number[];
      return { pending, delivering, completed, expired, failed };
    });
  }

  /**
   * Reads the dead-letter set by score (the end of each one's retention) from the cursor on,
   * then the records themselves; a record reopened or removed between the two reads is left
   * out. Costs in proportion to the page, not to the records kept.
   */
  async listDeadLetters({
    now,
    limit,
    cursor,
  }: Options<'listDeadLetters'>): Promise<DeadLetterPage> {
    const count = Math.max(0, Math.floor(limit));
    const after = cursor === undefined ? undefined : decodeDeadLetterCursor(cursor);
    // Members past their retention are gone at `now`; from the cursor's score on, members of
    // that same score up to its key were on the previous page (Redis orders ties by member).
    const min = after && after.purgeAt > now ? String(after.purgeAt) : `(${formatNumber(now)}`;
    const entries: { key: string; purgeAt: number }[] = [];
    for (let offset = 0; entries.length <= count; ) {
      const batch = count + 1 - entries.length;
      const reply = await this.run('listDeadLetters', () =>
        this.redis.zrangebyscore(
          this.keys.deadLetters,
          min,
          '+inf',
          'WITHSCORES',
          'LIMIT',
          offset,
          batch,
        ),
      );
      for (let i = 0; i + 1 < reply.length; i += 2) {
        const key = reply[i]!;
        const purgeAt = Number(reply[i + 1]);
        if (after && purgeAt === after.purgeAt && key <= after.key) continue;
        entries.push({ key, purgeAt });
      }
      offset += reply.length / 2;
      if (reply.length / 2 < batch) break;
    }
    const page = entries.slice(0, count);
    const records = await Promise.all(page.map(({ key }) => this.get({ key, now })));
    const last = page.at(-1);
    return {
      records: records.filter((record) => record?.state === 'failed') as TrackedSession[],
      ...(last && entries.length > count ? { cursor: encodeDeadLetterCursor(last) } : {}),
    };
  }

  redeliverDeadLetter(options: Options<'redeliverDeadLetter'>): Promise<boolean> {
    return this.onDeadLetter('redeliverDeadLetter', REDELIVER_DEAD_LETTER, options);
  }

  discardDeadLetter(options: Options<'discardDeadLetter'>): Promise<boolean> {
    return this.onDeadLetter('discardDeadLetter', DISCARD_DEAD_LETTER, options);
  }

  async dueSummary({ now }: Options<'dueSummary'>): Promise<DueSummary> {
    const reply = await this.script(
      'dueSummary',
      DUE_SUMMARY,
      [this.keys.due],
      [this.keys.scriptPrefix, formatNumber(now)],
    );
    return this.read('dueSummary', () => {
      if (!Array.isArray(reply) || typeof reply[0] !== 'number') {
        throw new TypeError('dueSummary came back malformed');
      }
      const oldest = reply[1] === null || reply[1] === false ? undefined : Number(reply[1]);
      return oldest === undefined ? { due: reply[0] } : { due: reply[0], oldestDueAt: oldest };
    });
  }

  /**
   * One script over the user's two indexes and the records they list (see
   * scripts/forget-user.ts). With `waitForReplicas`, it resolves once the replicas asked for
   * hold the removal, as a closing settle does: a failover to a replica without it would bring
   * the user's records back.
   */
  async forgetUser({ externalUserId, now }: Options<'forgetUser'>): Promise<number> {
    checkStorableUserId(externalUserId, 'RedisStore.forgetUser');
    const durable = this.replicaWait;
    let mark = 0;
    const reply = await this.script(
      'forgetUser',
      FORGET_USER,
      [
        this.keys.openIndex(externalUserId),
        this.keys.closedIndex(externalUserId),
        this.keys.startIndex(externalUserId),
      ],
      [this.keys.scriptPrefix, externalUserId, formatNumber(now)],
      durable && {
        client: durable.client(),
        sending: () => {
          mark = durable.mark();
        },
      },
    );
    if (durable) await durable.replicated(mark);
    return this.read('forgetUser', () => {
      if (typeof reply !== 'number') throw new TypeError('forgetUser came back malformed');
      return reply;
    });
  }

  /**
   * Redis' clock (`TIME`), in ms since the epoch, with one round trip. Every instance sharing
   * this Redis reads the same clock (on a Cluster, the clock of whichever node answers:
   * keep the nodes' clocks synchronised).
   */
  async readClock(): Promise<number> {
    try {
      const [seconds, micros] = await this.redis.time();
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      if (!Number.isFinite(now)) throw new TypeError('TIME came back malformed');
      return now;
    } catch (error) {
      throw storeError('readClock', error, this.secrets);
    }
  }

  /**
   * The keys a script on one record is given up front: the record, and the indexes of the
   * user the caller says holds it (`RecordUserHint`). The script reads the record's user
   * itself: when it is another, it asks for that user's indexes and runs again; so a wrong
   * hint costs a run, never a key touched undeclared.
   */
  private recordKeys(key: string, user: unknown): string[] {
    const record = this.keys.record(key);
    if (!isUsableId(user)) return [record];
    return [record, this.keys.openIndex(user), this.keys.closedIndex(user)];
  }

  /** The records `findByUser` names up front: those the caller expects, a bounded number. */
  private expectedRecords(keys: unknown, limit: number): string[] {
    if (!Array.isArray(keys)) return [];
    const named = new Set<string>();
    for (const key of keys) {
      if (named.size >= Math.min(limit, MAX_EXPECTED_RECORDS)) break;
      if (isUsableId(key)) named.add(this.keys.record(key));
    }
    return [...named];
  }

  /** Notes the record a start names, forgetting the oldest noted beyond a bound. */
  private learnStart(startKey: string, recordKey: string): void {
    this.startRecords.delete(startKey);
    if (this.startRecords.size >= MAX_KNOWN_STARTS) {
      this.startRecords.delete(this.startRecords.keys().next().value!);
    }
    this.startRecords.set(startKey, recordKey);
  }

  /** Runs a dead-letter script on one record; `true` when it applied. */
  private async onDeadLetter(
    operation: string,
    script: LuaScript,
    { key, now }: Options<'redeliverDeadLetter'>,
  ): Promise<boolean> {
    const keys = [this.keys.record(key)];
    return (
      (await this.script(operation, script, keys, [
        this.keys.scriptPrefix,
        key,
        formatNumber(now),
      ])) === 1
    );
  }

  /**
   * Runs one script with every key it touches in KEYS: the marker first, then `keys`, then
   * `due` and the state sets. A script that must touch more (records found in an index, the
   * indexes of a record's user) changes nothing and names them; it is run again with them.
   * The marker value this instance knows goes first in ARGV: a script that finds another
   * one changed nothing either; the loss is reported, and the script run again. So does
   * this instance's write count (see rewind-watch.ts): a script that finds Redis went back
   * in time changes nothing; that is reported, and the script run again.
   */
  private async script(
    operation: string,
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    via?: { client: RedisClient; sending: () => void },
  ): Promise<unknown> {
    const declared = [this.keys.marker, ...keys, this.rewind.key, ...this.keys.shared];
    return this.run(operation, async () => {
      for (let round = 1; ; round++) {
        // Each round declares at least one more key, or adopts a new marker or write count;
        // records change between rounds only while other instances work on the same ones.
        if (round > MAX_ROUNDS) {
          throw new Error(`the keys to declare kept changing over ${MAX_ROUNDS} rounds`);
        }
        const seen = this.memory.generation;
        const writer = this.rewind.args();
        let wrapped: unknown;
        try {
          via?.sending();
          wrapped = await script.run(via?.client ?? this.redis, declared, [
            seen,
            writer.name,
            writer.seen,
            ...args,
          ]);
        } catch (error) {
          const rewoundCount = rewoundTo(error);
          if (rewoundCount !== undefined) {
            // Where Redis may evict, the write count is a key like any other: look first.
            this.rewind.rewound(rewoundCount, writer, await this.memory.evictionsSeen());
            continue;
          }
          if (!isMarkerMismatch(error)) throw error;
          if (this.memory.generation === seen) this.rewind.reset();
          await this.memory.adopt(seen);
          continue;
        }
        if (!Array.isArray(wrapped)) throw new TypeError('a script came back without its count');
        this.rewind.acknowledged(wrapped[0], writer, this.memory.evictionsReported);
        // Lua drops a nil at the end of a table: the script returned nothing.
        const reply: unknown = wrapped.length > 1 ? wrapped[1] : null;
        const needed = neededKeys(reply);
        if (!needed) return reply;
        const prefix = this.keys.clientPrefix;
        for (const key of needed) declared.push(key.slice(prefix.length));
      }
    });
  }

  /** Runs one Redis call, turning any failure into a RedisStoreError without secrets. */
  private async run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    await this.memory.ready(operation);
    try {
      return await call();
    } catch (error) {
      throw storeError(operation, error, this.secrets);
    }
  }

  /** Reads a reply into records; a record this store cannot read is a RedisStoreError. */
  private read<T>(operation: string, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      throw storeError(operation, error, this.secrets, 'malformed');
    }
  }
}

const MAX_ROUNDS = 64;

/** At most this many records a caller expects are named to `findByUser`'s first run. */
const MAX_EXPECTED_RECORDS = 64;

/** At most this many starts' records are noted (`startRecords`): a few hundred kB. */
const MAX_KNOWN_STARTS = 4096;

/** A hint's id or key usable in a key name: text a store could hold (see checkStorableUserId). */
function isUsableId(value: unknown): value is string {
  if (typeof value !== 'string' || value === '') return false;
  try {
    checkStorableUserId(value, 'RedisStore');
    return true;
  } catch {
    return false;
  }
}

/** The keys a script asked to be given (see scripts/declared-keys.ts), or undefined. */
function neededKeys(reply: unknown): string[] | undefined {
  if (!Array.isArray(reply) || reply[0] !== NEEDS_KEYS) return undefined;
  const keys: unknown = reply[1];
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
    throw new TypeError('a script asked for keys without naming them');
  }
  return keys;
}

/** `claimStart`'s outcome from its script's reply (see scripts/starts.ts). */
function claimFromReply(reply: unknown): ClaimStartOutcome {
  if (!Array.isArray(reply)) throw new TypeError('claimStart came back malformed');
  const counts = (value: unknown): number[] => {
    if (!Array.isArray(value) || !value.every((n) => typeof n === 'number')) {
      throw new TypeError('claimStart counts came back malformed');
    }
    return value;
  };
  switch (reply[0]) {
    case 'reuse':
      if (typeof reply[1] !== 'string') throw new TypeError('claimStart reuse names no record');
      return { claim: 'reuse', record: recordFromReply(reply[1], reply[2]) };
    case 'busy': {
      const until = Number(reply[1]);
      if (!Number.isFinite(until)) throw new TypeError('claimStart busy has no end');
      return { claim: 'busy', until };
    }
    case 'limited':
      if (typeof reply[1] !== 'number') throw new TypeError('claimStart limited names no counter');
      return { claim: 'limited', counter: reply[1], counts: counts(reply[2]) };
    case 'granted':
      return { claim: 'granted', counts: counts(reply[1]) };
    default:
      throw new TypeError(`unexpected claimStart outcome ${String(reply[0])}`);
  }
}

/**
 * When a lease (or a start's claim, `name` 'claimMs') granted at `now` ends. A lease must end
 * after `now`: a record granted until `now` would still be due and could be granted twice in
 * one `leaseDue`; a claim ending at `now` would have lapsed as it was granted.
 */
function leaseEnd(now: number, leaseMs: number, operation: string, name = 'leaseMs'): number {
  if (!(leaseMs >= 1)) {
    throw new RangeError(`RedisStore.${operation}: ${name} must be at least 1, got ${leaseMs}`);
  }
  return now + leaseMs;
}

/** A retention in whole ms; a store that keeps nothing forever refuses an endless one. */
function retention(ms: number, operation: string, name: string): number {
  if (Number.isNaN(ms) || ms === Number.POSITIVE_INFINITY) {
    throw new RangeError(
      `RedisStore.${operation}: ${name} must be a finite number of ms, got ${ms}; ` +
        'RedisStore keeps nothing forever, so pass how long to keep it.',
    );
  }
  return Math.max(0, Math.ceil(ms));
}

/** The script arguments that describe a settle update (see scripts/settle.ts). */
function settleArgs(update: SettleUpdate, now: number): string[] {
  const result = update.result ? serializeResult(update.result) : '';
  if ('dueAt' in update) {
    return [update.state, result, formatNumber(update.dueAt), formatNumber(update.attempts)];
  }
  const purgeAt = now + retention(update.retainMs, 'settle', 'retainMs');
  const attempts = update.attempts === undefined ? '' : formatNumber(update.attempts);
  return [update.state, result, formatNumber(purgeAt), attempts];
}
