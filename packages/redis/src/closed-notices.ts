import type { ClosedRecordListener } from '@faceverify/core/store';
import type { RedisClient } from './client.js';

/**
 * Tells every process sharing the store which records closed, over Redis pub/sub: one
 * PUBLISH with each close, and, while anyone in this process listens, one subscriber
 * connection (a `duplicate()` of the store's client, which ioredis reconnects and
 * resubscribes by itself). Notices are hints: one lost while a connection was down is made
 * up for by the listener's own rereads.
 */
export class ClosedNotices {
  private readonly listeners = new Set<ClosedRecordListener>();
  private subscriber: RedisClient | undefined;

  constructor(
    private readonly redis: RedisClient,
    /**
     * ioredis adds `keyPrefix` to keys, not to channels: the store's full prefix is in it.
     * The settle script publishes on it too.
     */
    readonly channel: string,
  ) {}

  /** Publishes that `key` closed; never fails the operation that closed it. */
  publish(key: string): void {
    this.redis.publish(this.channel, key).catch(() => undefined);
  }

  watch(listener: ClosedRecordListener): () => void {
    const own: ClosedRecordListener = (key) => listener(key);
    this.listeners.add(own);
    this.subscriber ??= this.subscribe();
    return () => {
      if (!this.listeners.delete(own) || this.listeners.size > 0) return;
      const subscriber = this.subscriber;
      this.subscriber = undefined;
      subscriber?.disconnect();
    };
  }

  private subscribe(): RedisClient {
    const subscriber = this.redis.duplicate();
    // A dropped connection is reconnected by ioredis; its error must not become unhandled.
    subscriber.on('error', () => undefined);
    subscriber.on('message', (channel: string, key: string) => {
      if (channel !== this.channel) return;
      for (const listener of this.listeners) listener(key);
    });
    subscriber.subscribe(this.channel).catch(() => undefined);
    return subscriber;
  }
}
