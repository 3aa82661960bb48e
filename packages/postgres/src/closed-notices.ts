import type { ClosedRecordListener } from '@faceverify/core/store';
import type { Notification, Pool, PoolClient } from 'pg';

/** What a SQL store needs to tell other processes which records closed. */
export interface ClosedNoticeChannel {
  /** The channel's name, for a statement that notifies as part of its own work. */
  readonly channel: string;
  /** Tells every listener that `key` closed; never fails the operation that closed it. */
  publish(key: string): void;
  watch(listener: ClosedRecordListener): () => void;
}

const RETRY_MS = 1_000;

const ignore = () => undefined;

/**
 * PostgreSQL's LISTEN/NOTIFY for closed records: `pg_notify` with each close (in the settling
 * statement itself, so it is sent when that commits), and, while
 * anyone in this process listens, one pooled connection held for LISTEN (released when the
 * last listener goes; taken again after a dropped connection). Behind PgBouncer in
 * transaction mode, LISTEN does not survive between transactions: notices then do not
 * arrive, and waiters fall back to reading the store every few seconds.
 */
export class PgClosedNotices implements ClosedNoticeChannel {
  private readonly listeners = new Set<ClosedRecordListener>();
  private client: PoolClient | undefined;
  private connecting = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  // Clients checked out and not given back yet, with this channel's 'error' listener on each.
  // A pooled client comes back as the same object on a later checkout, so "given back" is per
  // checkout, not per client.
  private readonly held = new Map<PoolClient, () => void>();

  constructor(
    private readonly pool: Pool,
    /** A plain identifier (see `closedChannel`): it is written into LISTEN as it is. */
    readonly channel: string,
  ) {}

  publish(key: string): void {
    this.pool
      .query('SELECT pg_notify($1::text, $2::text)', [this.channel, key])
      .catch(() => undefined);
  }

  watch(listener: ClosedRecordListener): () => void {
    const own: ClosedRecordListener = (key) => listener(key);
    this.listeners.add(own);
    this.listen();
    return () => {
      if (this.listeners.delete(own) && this.listeners.size === 0) this.stop();
    };
  }

  private listen(): void {
    if (this.client || this.connecting || this.listeners.size === 0) return;
    this.connecting = true;
    void this.connect().finally(() => {
      this.connecting = false;
    });
  }

  private async connect(): Promise<void> {
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      const held = client;
      // A dropped connection must not become an unhandled 'error': listen again later.
      const onError = () => this.lost(held);
      this.held.set(held, onError);
      held.on('notification', this.notified);
      held.on('error', onError);
      await held.query(`LISTEN ${this.channel}`);
      // Lost while LISTEN was in flight: already given back, and a retry is scheduled.
      if (!this.held.has(held)) return;
      this.client = held;
      if (this.listeners.size === 0) this.stop();
    } catch {
      if (client) this.lost(client);
      else this.retryLater();
    }
  }

  private readonly notified = (message: Notification) => {
    if (message.channel !== this.channel || message.payload === undefined) return;
    for (const listener of this.listeners) listener(message.payload);
  };

  private lost(client: PoolClient): void {
    if (this.client === client) this.client = undefined;
    this.release(client, true);
    this.retryLater();
  }

  /**
   * Gives the client back once, whichever of its error, a failed query or `stop` comes first
   * (pg throws on a second release), without this channel's listeners: a client back in the
   * pool serves others, and its later errors are theirs. A client destroyed keeps a listener
   * that ignores what it may still emit while it closes, so that is never unhandled.
   */
  private release(client: PoolClient, destroy: boolean): void {
    const onError = this.held.get(client);
    if (!onError) return;
    this.held.delete(client);
    client.off('notification', this.notified);
    client.off('error', onError);
    if (destroy) client.on('error', ignore);
    client.release(destroy);
  }

  private retryLater(): void {
    if (this.listeners.size === 0 || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.listen();
    }, RETRY_MS);
    this.retry.unref?.();
  }

  private stop(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    client.query(`UNLISTEN ${this.channel}`).then(
      () => this.release(client, false),
      () => this.release(client, true),
    );
  }
}
