import type { Pool, PoolClient } from 'pg';
import type { Row } from './sql-database.js';

/** A pooled connection as node-postgres 8.23 and later has it: pipeline mode is a flag. */
type PipelinedClient = PoolClient & { pipeline?: boolean };

/**
 * A pooled connection checked out to carry statements side by side, and how many are on it.
 * `ready` is the connection once checked out, or `undefined` when the driver has no pipeline
 * mode (the statements then go through the pool one by one).
 */
interface Lane {
  ready: Promise<PipelinedClient | undefined>;
  client?: PipelinedClient | undefined;
  /** The client's pipeline mode when checked out (the pool's own setting), given back with it. */
  pipelined: boolean;
  inFlight: number;
  /** The first failure on it: it takes no more statements and is destroyed once drained. */
  failed?: Error;
}

/**
 * The store's single statements, sent on at most `maxLanes` of the pool's connections in
 * node-postgres's pipeline mode: each lane carries as many statements at once as are made,
 * each its own protocol Sync (its own implicit transaction, failing alone), answered in turn.
 * A store far away then costs a round trip per statement, not a round trip per statement
 * *and connection*: with `pool.query`, a burst of webhooks queued for the pool's few
 * connections, each held one round trip per statement (issue 45: 158 callers waiting per
 * instance, p50 4.3 s, with the store 50-200 ms away).
 *
 * A statement goes on an idle lane if there is one, else on a new lane while there are fewer
 * than `maxLanes` and the pool has a connection to spare, else on the least busy lane. So at
 * low concurrency each statement has a connection of its own as before, and the other
 * connections stay free for transactions and the application. A lane goes back to the pool
 * as soon as it carries nothing. Only statements that never wait for a lock held across
 * round trips (a delivery's transaction) go on a lane: one that waited would hold up every
 * statement behind it (see `SqlDatabase.queryAlone`).
 *
 * A failed statement retires its lane (no statement is added to it; it is destroyed once the
 * others on it are answered), as `pool.query` destroys a connection whose statement failed.
 * A driver without pipeline mode (node-postgres before 8.23) gets every statement through
 * `pool.query`.
 */
export class StatementLanes {
  private readonly lanes: Lane[] = [];
  private pipelining = true;

  constructor(
    private readonly pool: Pool,
    private readonly maxLanes: number,
  ) {}

  query(sql: string, params: readonly unknown[]): Promise<Row[]> {
    if (!this.pipelining || this.maxLanes < 1) return this.alone(sql, params);
    const lane = this.pick();
    lane.inFlight++;
    const sent = lane.client
      ? this.send(lane, lane.client, sql, params)
      : this.sendWhenReady(lane, sql, params);
    return sent.finally(() => this.answered(lane));
  }

  private async sendWhenReady(lane: Lane, sql: string, params: readonly unknown[]): Promise<Row[]> {
    const client = await lane.ready;
    return client ? this.send(lane, client, sql, params) : this.alone(sql, params);
  }

  private async send(
    lane: Lane,
    client: PipelinedClient,
    sql: string,
    params: readonly unknown[],
  ): Promise<Row[]> {
    try {
      return (await client.query<Row>(sql, params as unknown[])).rows;
    } catch (error) {
      this.retire(lane, error as Error);
      throw error;
    }
  }

  private async alone(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return (await this.pool.query<Row>(sql, params as unknown[])).rows;
  }

  private pick(): Lane {
    let least: Lane | undefined;
    for (const lane of this.lanes) {
      if (!least || lane.inFlight < least.inFlight) least = lane;
    }
    if (least && least.inFlight === 0) return least;
    if (!least || (this.lanes.length < this.maxLanes && this.poolHasRoom())) return this.open();
    return least;
  }

  /** Whether a checkout would be answered without waiting for another caller's connection. */
  private poolHasRoom(): boolean {
    const max = (this.pool as { options?: { max?: number } }).options?.max ?? 10;
    return this.pool.idleCount > 0 || this.pool.totalCount < max;
  }

  private open(): Lane {
    const lane: Lane = { inFlight: 0, pipelined: false, ready: Promise.resolve(undefined) };
    lane.ready = this.pool.connect().then(
      (client: PipelinedClient) => {
        if (typeof client.pipeline !== 'boolean') {
          this.pipelining = false;
          this.remove(lane);
          client.release();
          return undefined;
        }
        lane.pipelined = client.pipeline;
        client.pipeline = true;
        lane.client = client;
        return client;
      },
      (error: Error) => {
        this.retire(lane, error);
        throw error;
      },
    );
    this.lanes.push(lane);
    return lane;
  }

  private retire(lane: Lane, error: Error): void {
    lane.failed ??= error;
    this.remove(lane);
  }

  private remove(lane: Lane): void {
    const at = this.lanes.indexOf(lane);
    if (at >= 0) this.lanes.splice(at, 1);
  }

  /** One statement of `lane` answered: the lane goes back to the pool once it carries none. */
  private answered(lane: Lane): void {
    if (lane.inFlight > 0) lane.inFlight--;
    const client = lane.client;
    if (lane.inFlight > 0 || !client) return;
    this.remove(lane);
    lane.client = undefined;
    client.pipeline = lane.pipelined;
    client.release(lane.failed);
  }
}
