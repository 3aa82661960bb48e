import { randomBytes } from 'node:crypto';
import { counted, type StoreAlarmListeners } from '@faceverify/core/store';
import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './client.js';
import { RedisStoreError, storeError } from './errors.js';

/** What the store learnt of the server's eviction policy on first use. */
type Policy = { readable: true; evicting: string[] } | { readable: false };

// Every key of the store has a TTL, so the volatile-* policies may evict them as well as the
// allkeys-* ones: only this policy never deletes a key on its own.
const SAFE_POLICY = 'noeviction';

const FIX =
  "Set it to noeviction (`CONFIG SET maxmemory-policy noeviction`, and `maxmemory-policy noeviction` in redis.conf or your provider's parameter group) and give Redis enough memory: a full Redis then refuses writes loudly (OOM) instead of deleting tracked sessions, stored results and replay digests.";

/** The store_reset alarm's message when Redis evicted `evicted` keys since the last look. */
export function evictionMessage(evicted: number): string {
  return `RedisStore: Redis evicted ${counted(evicted, 'key')} under memory pressure; keys of this store (tracked sessions, stored results, replay digests) may be among them, and the store can no longer vouch for them. Sessions whose records are gone are no longer polled, and results already handled may arrive again as untracked webhooks. ${FIX}`;
}

function nodesOf(redis: RedisClient): Redis[] {
  // Any master may come to hold the store's slot after a resharding.
  return redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis];
}

async function policyOf(node: Redis): Promise<string> {
  const reply = await node.config('GET', 'maxmemory-policy');
  const value = Array.isArray(reply) ? reply[1] : undefined;
  if (typeof value !== 'string') throw new TypeError('CONFIG GET maxmemory-policy gave no value');
  return value;
}

async function evictedKeys(redis: RedisClient): Promise<number> {
  let total = 0;
  for (const node of nodesOf(redis)) {
    const match = /^evicted_keys:(\d+)/m.exec(await node.info('stats'));
    if (match) total += Number(match[1]);
  }
  return total;
}

function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

/**
 * Keeps a RedisStore honest about Redis' memory: on first use it checks the eviction policy
 * and arms the marker key; afterwards it re-arms the marker when a script finds it gone and,
 * where Redis may evict, watches Redis' count of evicted keys. Each finding is raised once as
 * an alarm, with the fix.
 */
export class MemoryWatch {
  /** The marker value this instance knows; every script checks Redis still holds it. */
  generation = '';
  private checked = false;
  private checking: Promise<void> | undefined;
  /** Evicted keys counted by Redis when last looked at; undefined when not watched. */
  private evictedSeen: number | undefined;
  /**
   * How many times this instance has reported evictions: `evictionsSeen` without the look at
   * Redis, for each acknowledged script (a look costs a round trip).
   */
  evictionsReported = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly markerKey: string,
    private readonly allowEviction: boolean,
    private readonly alarms: StoreAlarmListeners,
    private readonly secrets: readonly string[],
  ) {}

  /**
   * Resolves once the first-use check has passed; rejects with a RedisStoreError when Redis
   * cannot be reached (the next operation tries again) or may evict keys and eviction was
   * not allowed (`failure: 'misconfigured'`, until the policy is fixed).
   */
  ready(operation: string): Promise<void> {
    if (this.checked) return Promise.resolve();
    this.checking ??= this.check(operation).then(
      () => {
        this.checked = true;
      },
      (error: unknown) => {
        this.checking = undefined;
        throw error instanceof RedisStoreError ? error : storeError(operation, error, this.secrets);
      },
    );
    return this.checking;
  }

  /**
   * Called when a script found a marker other than `seen`: arms a new one unless another
   * instance already did, and raises `store_reset` once per loss this instance saw. Resolves
   * with the marker value to run scripts with from now on.
   */
  async adopt(seen: string): Promise<string> {
    const current = await this.arm();
    if (this.generation !== seen) return this.generation;
    this.generation = current;
    // This alarm covers the evictions so far (the marker may be one of them): the next
    // sweep's check reports only what Redis evicts after it, not the same loss again.
    if (this.evictedSeen !== undefined) {
      this.evictedSeen = await evictedKeys(this.redis).catch(() => this.evictedSeen);
    }
    this.alarms.raise(
      'store_reset',
      'RedisStore: Redis lost the data of this store (its marker key is gone or was armed again: Redis restarted without persistence, was flushed, or evicted keys). Sessions tracked before are no longer polled, and results already handled may arrive again as untracked webhooks; check what your handlers did meanwhile. To keep data across restarts, enable persistence (appendonly yes) or use a managed Redis with durability, and set maxmemory-policy to noeviction. The store has armed a new marker and keeps working.',
    );
    return current;
  }

  /** Writes a new marker unless one exists, and returns the one Redis holds. */
  private async arm(): Promise<string> {
    // SET NX GET would be one call, but needs Redis 7; a marker lost between the two calls
    // is simply armed on the next round.
    for (;;) {
      const fresh = randomBytes(12).toString('hex');
      if ((await this.redis.set(this.markerKey, fresh, 'NX')) === 'OK') return fresh;
      const current = await this.redis.get(this.markerKey);
      if (current !== null) return current;
    }
  }

  /**
   * A count that grows whenever Redis has evicted keys, reported already or to be reported by
   * the next sweep. The rewind watch compares it with its value when a write count was last
   * acknowledged: that key has a TTL, so it may be evicted too, and then reads as a rewind.
   */
  async evictionsSeen(): Promise<number> {
    if (this.evictedSeen === undefined) return this.evictionsReported;
    const evicted = await evictedKeys(this.redis).catch(() => this.evictedSeen ?? 0);
    return this.evictionsReported + (evicted > this.evictedSeen ? 1 : 0);
  }

  /** Raises `store_reset` when Redis evicted keys since the last look (only where it may). */
  async checkEvictions(): Promise<void> {
    if (this.evictedSeen === undefined) return;
    let evicted: number;
    try {
      evicted = await evictedKeys(this.redis);
    } catch {
      // Failing to read a statistic must not fail the sweep that asked for it.
      return;
    }
    const since = evicted - this.evictedSeen;
    this.evictedSeen = evicted;
    // A smaller count means Redis restarted or its statistics were reset: the marker tells.
    if (since <= 0) return;
    this.evictionsReported++;
    this.alarms.raise('store_reset', evictionMessage(since));
  }

  private async check(operation: string): Promise<void> {
    // First, as it also connects a Cluster client, which knows its masters only then. A
    // marker missing now cannot be told from a fresh install: it is armed without alarm.
    this.generation = await this.arm();
    const policy = await this.readPolicy();
    if (policy.readable && policy.evicting.length > 0 && !this.allowEviction) {
      throw new RedisStoreError(
        operation,
        'misconfigured',
        `RedisStore refuses to run: Redis' maxmemory-policy is ${policy.evicting.join(', ')}, under which Redis deletes keys when memory runs short; every key of this store has a TTL, so volatile-* policies delete them too, and a result whose record is gone is lost or handled twice. ${FIX} To run anyway, pass \`allowEviction: true\`: the store then raises a store_reset alarm whenever Redis evicts keys.`,
      );
    }
    if (policy.readable && policy.evicting.length === 0) return;
    this.evictedSeen = await evictedKeys(this.redis).catch(() => undefined);
    this.alarms.raise(
      'store_eviction_risk',
      policy.readable
        ? `RedisStore: Redis' maxmemory-policy is ${policy.evicting.join(', ')}, so Redis may delete keys of this store when memory runs short (allowEviction is set). ${FIX}`
        : `RedisStore could not read Redis' maxmemory-policy (CONFIG is disabled, as on many managed services). Check in your provider's settings that it is noeviction: every key of this store has a TTL, so volatile-* policies (a common default) delete them too when memory runs short. ${FIX}`,
    );
  }

  private async readPolicy(): Promise<Policy> {
    const evicting = new Set<string>();
    for (const node of nodesOf(this.redis)) {
      try {
        const policy = await policyOf(node);
        if (policy !== SAFE_POLICY) evicting.add(policy);
      } catch (error) {
        // CONFIG renamed or disabled answers with an error; no answer at all is an outage.
        if (isReplyError(error)) return { readable: false };
        throw error;
      }
    }
    return { readable: true, evicting: [...evicting] };
  }
}
