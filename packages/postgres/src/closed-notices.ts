import type { ClosedRecordListener } from '@faceverify/core/store';
import type { Pool, PoolClient } from 'pg';

/** What a SQL store needs to tell other processes which records closed. */
export interface ClosedNoticeChannel {
  /** Tells every listener that `key` closed; never fails the operation that closed it. */
  publish(key: string): void;
  watch(listener: ClosedRecordListener): () => void;
}

const RETRY_MS = 1_000;

/**
 * PostgreSQL's LISTEN/NOTIFY for closed records: `pg_notify` after each close, and, while
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

  constructor(
    private readonly pool: Pool,
    /** A plain identifier (see `closedChannel`): it is written into LISTEN as it is. */
    private readonly channel: string,
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
      client.on('notification', (message) => {
        if (message.channel !== this.channel || message.payload === undefined) return;
        for (const listener of this.listeners) listener(message.payload);
      });
      const held = client;
      // A dropped connection must not become an unhandled 'error': listen again later.
      client.on('error', () => this.lost(held));
      await client.query(`LISTEN ${this.channel}`);
      this.client = client;
      if (this.listeners.size === 0) this.stop();
    } catch {
      if (client) this.lost(client);
      else this.retryLater();
    }
  }

  private lost(client: PoolClient): void {
    if (this.client === client) this.client = undefined;
    client.release(true);
    this.retryLater();
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
      () => client.release(),
      () => client.release(true),
    );
  }
}
