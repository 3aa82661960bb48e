import type { StoreAlarmListeners } from '@faceverify/core/store';
import type { RedisClient } from './client.js';

/** `RedisStore`'s `waitForReplicas`: how many replicas must have a closing write, how soon. */
export interface WaitForReplicasOptions {
  /** At least this many replicas acknowledge each closing write (`WAIT <replicas> ...`). */
  replicas: number;
  /**
   * At most this long is waited for them (ms). Past it the write stands on the primary
   * alone: the store raises `store_unreplicated` and goes on.
   */
  timeoutMs: number;
}

interface SentWait {
  /** Every script sent on the connection up to this mark is covered by this WAIT. */
  covers: number;
  acknowledged: Promise<number>;
}

/**
 * Closing writes made durable on replicas: they run on a connection of their own (a
 * `duplicate()` of the store's client, opened at the first one), each followed by `WAIT`,
 * which Redis answers once that many replicas have every write made on the connection so
 * far. A WAIT blocks its connection, so the store's other operations never queue behind it;
 * closing writes that finish while a WAIT covering them is on its way share it (one WAIT
 * for a burst, not one per write).
 */
export class ReplicaWait {
  private connection: RedisClient | undefined;
  private sent = 0;
  private latest: SentWait | undefined;
  /** Whether the last WAIT fell short: `store_unreplicated` is raised once per shortfall. */
  private short = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: WaitForReplicasOptions,
    private readonly alarms: StoreAlarmListeners,
  ) {}

  /** The connection closing writes run on. */
  client(): RedisClient {
    if (this.connection) return this.connection;
    const connection = this.redis.duplicate();
    // ioredis reconnects it; a dropped connection must not become an unhandled 'error'.
    connection.on('error', () => undefined);
    // Closed with the application's client, so that quitting it lets the process end.
    this.redis.once('end', () => connection.disconnect());
    this.connection = connection;
    return connection;
  }

  /** Marks a script about to be sent on `client()`; pass the mark to `replicated`. */
  mark(): number {
    return ++this.sent;
  }

  /**
   * Resolves once `options.replicas` replicas hold every write up to `mark`, or the timeout
   * passed (then `store_unreplicated` is raised). Never rejects: the write is made either way.
   */
  async replicated(mark: number): Promise<void> {
    const { replicas, timeoutMs } = this.options;
    let wait = this.latest;
    if (!wait || wait.covers < mark) {
      wait = { covers: this.sent, acknowledged: this.client().wait(replicas, timeoutMs) };
      this.latest = wait;
    }
    let acknowledged: number;
    let failure = '';
    try {
      acknowledged = await wait.acknowledged;
    } catch (error) {
      acknowledged = 0;
      failure = ` (WAIT failed: ${error instanceof Error ? error.name : 'error'})`;
    }
    if (acknowledged >= replicas) {
      this.short = false;
      return;
    }
    if (this.short) return;
    this.short = true;
    this.alarms.raise(
      'store_unreplicated',
      `RedisStore: a recorded success reached ${acknowledged} of the ${replicas} replicas asked for within ${timeoutMs} ms${failure}. It is recorded on the primary only: if the primary fails before its replicas catch up, it is lost and the result handled again. Check the replicas' health and lag (INFO replication); raise waitForReplicas.timeoutMs if they are only slow. Raised once until a WAIT succeeds again.`,
    );
  }
}
