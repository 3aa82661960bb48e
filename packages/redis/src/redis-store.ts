import type {
  AttachOutcome,
  SettleUpdate,
  Store,
  StoredResult,
  TrackedSession,
  TrackedState,
} from '@faceverify/core/store';
import { clientKeyPrefix, clientSecrets, type RedisClient } from './client.js';
import { storeError } from './errors.js';
import { type StoreKeys, storeKeys } from './keys.js';
import { type RedisStoreOptions, resolveRedisStoreOptions } from './options.js';
import { ATTACH_RESULT } from './scripts/attach-result.js';
import { COUNTS } from './scripts/counts.js';
import { FIND_BY_USER } from './scripts/find-by-user.js';
import { INSERT } from './scripts/insert.js';
import { LEASE } from './scripts/lease.js';
import { LEASE_DUE } from './scripts/lease-due.js';
import { SETTLE } from './scripts/settle.js';
import {
  formatNumber,
  fromFields,
  recordFromReply,
  recordsFromReply,
  serializeResult,
  toFields,
} from './serialize.js';

// A user's index outlives its last retained record by this much, so that instances whose
// clocks differ a little never lose a retained record from `findByUser`.
const USER_INDEX_GRACE_MS = 60_000;

const ATTACH_OUTCOMES: readonly AttachOutcome[] = [
  'attached',
  'already-attached',
  'closed',
  'missing',
];

function isAttachOutcome(value: unknown): value is AttachOutcome {
  return ATTACH_OUTCOMES.some((outcome) => outcome === value);
}

/**
 * A `Store` in Redis, shared by every instance of the application: tracked sessions,
 * stored results, leases and the replay window survive restarts and deploys (with Redis
 * persistence), and each session is leased and delivered by one instance at a time.
 *
 * Every operation that reads and then writes is one Lua script, so it is atomic across all
 * instances. `leaseDue` reads only the due part of a sorted set. Works with a single node,
 * Sentinel, or a Cluster when `prefix` holds a hash tag.
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

  constructor(options: RedisStoreOptions) {
    const { redis, prefix } = resolveRedisStoreOptions(options);
    this.redis = redis;
    this.keys = storeKeys(prefix, clientKeyPrefix(redis));
    this.secrets = clientSecrets(redis);
  }

  async insert(session: TrackedSession): Promise<boolean> {
    const k = this.keys;
    const reply = await this.run('insert', () =>
      INSERT.run(
        this.redis,
        [
          k.record(session.key),
          k.userIndex(session.externalUserId),
          k.due,
          k.counts,
          k.closed('completed'),
          k.closed('expired'),
        ],
        [session.key, session.state, formatNumber(session.dueAt), ...toFields(session)],
      ),
    );
    return reply === 1;
  }

  async get(key: string): Promise<TrackedSession | undefined> {
    const fields = await this.run('get', () => this.redis.hgetall(this.keys.record(key)));
    if (Object.keys(fields).length === 0) return undefined;
    return this.read('get', () => fromFields(key, fields));
  }

  async findByUser(externalUserId: string): Promise<TrackedSession[]> {
    const reply = await this.run('findByUser', () =>
      FIND_BY_USER.run(
        this.redis,
        [this.keys.userIndex(externalUserId)],
        [this.keys.scriptRecordPrefix, externalUserId],
      ),
    );
    return this.read('findByUser', () => recordsFromReply(reply));
  }

  async remember(digest: string, ttlMs: number, now: number): Promise<boolean> {
    // PX takes whole milliseconds above zero; a shorter window still admits the first caller.
    const px = Math.max(1, Math.ceil(ttlMs));
    const reply = await this.run('remember', () =>
      this.redis.set(this.keys.digest(digest), formatNumber(now), 'PX', px, 'NX'),
    );
    return reply === 'OK';
  }

  async forget(digest: string): Promise<void> {
    await this.run('forget', () => this.redis.del(this.keys.digest(digest)));
  }

  async attachResult(key: string, result: StoredResult, now: number): Promise<AttachOutcome> {
    const k = this.keys;
    const reply = await this.run('attachResult', () =>
      ATTACH_RESULT.run(
        this.redis,
        [k.record(key), k.due, k.counts],
        [key, serializeResult(result), formatNumber(now)],
      ),
    );
    return this.read('attachResult', () => {
      if (!isAttachOutcome(reply)) throw new TypeError(`unexpected outcome ${String(reply)}`);
      return reply;
    });
  }

  async lease(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<TrackedSession | undefined> {
    const until = leaseEnd(now, leaseMs, 'lease');
    const reply = await this.run('lease', () =>
      LEASE.run(
        this.redis,
        [this.keys.record(key), this.keys.due],
        [key, owner, formatNumber(now), formatNumber(until)],
      ),
    );
    if (reply === null) return undefined;
    return this.read('lease', () => recordFromReply(key, reply));
  }

  async leaseDue(
    now: number,
    limit: number,
    owner: string,
    leaseMs: number,
  ): Promise<TrackedSession[]> {
    const until = leaseEnd(now, leaseMs, 'leaseDue');
    const count = Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER);
    if (!(count >= 1)) return [];
    const reply = await this.run('leaseDue', () =>
      LEASE_DUE.run(
        this.redis,
        [this.keys.due],
        [this.keys.scriptRecordPrefix, formatNumber(now), count, owner, formatNumber(until)],
      ),
    );
    return this.read('leaseDue', () => recordsFromReply(reply));
  }

  async settle(key: string, owner: string, update: SettleUpdate, now: number): Promise<boolean> {
    const k = this.keys;
    const reply = await this.run('settle', () =>
      SETTLE.run(
        this.redis,
        [k.record(key), k.due, k.counts, k.closed('completed'), k.closed('expired')],
        [key, owner, formatNumber(now), k.scriptUserIndexPrefix, ...settleArgs(update, now)],
      ),
    );
    return reply === 1;
  }

  async counts(): Promise<Record<TrackedState, number>> {
    const k = this.keys;
    const reply = await this.run('counts', () =>
      COUNTS.run(
        this.redis,
        [k.counts, k.closed('completed'), k.closed('expired')],
        [formatNumber(Date.now())],
      ),
    );
    return this.read('counts', () => {
      if (!Array.isArray(reply) || !reply.every((n) => typeof n === 'number')) {
        throw new TypeError('counts came back malformed');
      }
      const [pending = 0, delivering = 0, completed = 0, expired = 0] = reply as number[];
      return { pending, delivering, completed, expired };
    });
  }

  /** Runs one Redis call, turning any failure into a RedisStoreError without secrets. */
  private async run<T>(operation: string, call: () => Promise<T>): Promise<T> {
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

/**
 * When a lease granted at `now` ends. A lease must end after `now`: a record granted
 * until `now` would still be due and could be granted twice in one `leaseDue`.
 */
function leaseEnd(now: number, leaseMs: number, operation: string): number {
  if (!(leaseMs >= 1)) {
    throw new RangeError(`RedisStore.${operation}: leaseMs must be at least 1, got ${leaseMs}`);
  }
  return now + leaseMs;
}

/** The script arguments that describe a settle update (see scripts/settle.ts). */
function settleArgs(update: SettleUpdate, now: number): string[] {
  const result = update.result ? serializeResult(update.result) : '';
  if ('dueAt' in update) {
    return [update.state, result, formatNumber(update.dueAt), formatNumber(update.attempts)];
  }
  if (!Number.isFinite(update.retainMs)) return [update.state, result, '', 'inf', '0'];
  const retainMs = Math.max(0, Math.ceil(update.retainMs));
  return [
    update.state,
    result,
    String(retainMs),
    formatNumber(now + retainMs),
    String(USER_INDEX_GRACE_MS),
  ];
}
