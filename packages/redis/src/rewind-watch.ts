import { randomBytes } from 'node:crypto';
import type { StoreAlarmListeners } from '@faceverify/core/store';
import { WRITER_TTL_MS } from './scripts/marker.js';

/** What a script is sent with: this instance's write count key and the count last acknowledged. */
export interface WriterArgs {
  /**
   * Its full name, the client's `keyPrefix` included (scripts see key names so); `''` where
   * the instance counts nothing (`watchRewinds: false`).
   */
  name: string;
  seen: number;
  /** Which view of Redis' history the call was sent in (see `rewound`). */
  generation: number;
}

// A count that vanished after this long without a script is its TTL, not a lost write.
const EXPIRED_AFTER_MS = WRITER_TTL_MS - 86_400_000;

/**
 * Tells a Redis that went back in time, as after a failover to a replica that had not
 * received the latest writes. Each instance of the store counts its own scripts in a key of
 * its own (`<prefix>w:<random id>`): every script adds one and returns the new count, and
 * checks first that Redis still holds the highest count it acknowledged to this instance.
 * Since no other instance writes the key, Redis holding less can only mean that writes it
 * acknowledged were lost. The store's marker cannot tell this: it was replicated long before.
 */
export class RewindWatch {
  /** The key, as passed in KEYS (ioredis adds the client's `keyPrefix`). */
  readonly key: string;
  private readonly name: string;
  private seen = 0;
  private generation = 0;
  private acknowledgedAt = 0;
  private evictionsAtAcknowledgement = 0;

  constructor(
    prefix: string,
    clientPrefix: string,
    private readonly alarms: StoreAlarmListeners,
    /** Whether this instance counts its scripts; without, nothing is written, nor told. */
    counting = true,
  ) {
    const id = randomBytes(9).toString('base64url');
    this.key = `${prefix}w:${id}`;
    this.name = counting ? `${clientPrefix}${this.key}` : '';
  }

  args(): WriterArgs {
    return { name: this.name, seen: this.seen, generation: this.generation };
  }

  /**
   * Redis acknowledged a script of this instance as its `count`th; `evictionsSeen` is the
   * memory watch's count (see MemoryWatch.evictionsSeen).
   */
  acknowledged(count: unknown, sent: WriterArgs, evictionsSeen: number): void {
    if (typeof count !== 'number' || sent.generation !== this.generation) return;
    if (count > this.seen) this.seen = count;
    this.acknowledgedAt = Date.now();
    this.evictionsAtAcknowledgement = evictionsSeen;
  }

  /**
   * A script found that Redis holds `count`, less than it acknowledged: raises `store_rewound`
   * once per rewind (calls sent before it was seen are run again without a second alarm) and
   * goes on from what Redis holds. Where Redis evicted keys since the count was acknowledged
   * (`evictionsSeen` grew), the count key may be one of them: that loss is raised as
   * `store_reset` with its cause by the sweep, and calling it a failover would send the
   * operator to the wrong place.
   */
  rewound(count: number, sent: WriterArgs, evictionsSeen: number): void {
    if (sent.generation !== this.generation) return;
    this.generation++;
    const lost = this.seen - count;
    const idle = Date.now() - this.acknowledgedAt;
    this.seen = count;
    if (evictionsSeen > this.evictionsAtAcknowledgement) return;
    // The key expired after days without a script: nothing was lost.
    if (count === 0 && idle > EXPIRED_AFTER_MS) return;
    this.alarms.raise(
      'store_rewound',
      `RedisStore: Redis went back in time: the last ${lost} writes that Redis acknowledged to this instance are gone (it counted ${lost + count} of them, Redis now holds ${count}). A failover promoted a replica that had not received them, or Redis was restored from an older file. Successes recorded in those writes are lost: their results will be delivered again (ordinary handlers run twice, with the same event.id), and sessions or webhooks stored in them are no longer known. Make handlers idempotent by event.id. To keep recorded successes across a failover, set the store's waitForReplicas option (WAIT for replicas after each closing write) and Redis' min-replicas-to-write; check your Sentinel or provider's failover settings. The store keeps working.`,
    );
  }

  /** The store's marker was armed again (store_reset): the count starts over, without alarm. */
  reset(): void {
    this.generation++;
    this.seen = 0;
  }
}
