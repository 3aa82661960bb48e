import type { Pool, PoolClient } from 'pg';
import type { Row } from './sql-database.js';

/** A pooled connection as node-postgres 8.23 and later has it: pipeline mode is a flag. */
type PipelinedClient = PoolClient & { pipeline?: boolean };

/**
 * Sends one statement once its lane is ready: on the lane's connection, or through the pool
 * when the driver has no pipeline mode (`undefined`), or fails it with the checkout's error.
 */
type Send = (on: PipelinedClient | Error | undefined) => void;

/** A pooled connection checked out to carry statements side by side, and how many are on it. */
interface Lane {
  client?: PipelinedClient | undefined;
  /** Statements made while the connection is being checked out; `undefined` once it is. */
  waiting: Send[] | undefined;
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
 * With `pool.query` each statement holds a connection for its whole round trip, so a burst of
 * webhooks on a database far away queued for the pool's few connections (issue 45: 158
 * callers waiting per instance, p50 4.3 s, the database 50-200 ms away); on lanes it waits
 * for its round trip alone.
 *
 * A statement goes on a new lane while there are fewer than `maxLanes` and the pool has a
 * connection to spare, else on the least busy lane: at low concurrency each statement has a
 * connection of its own, as before. A lane goes back to the pool as soon as it carries
 * nothing, so the connections beyond `maxLanes` stay free for transactions and the
 * application. Only statements that never wait for a lock held across round trips (a
 * delivery's transaction) go on a lane: one that waited would hold up every statement behind
 * it (see `SqlDatabase.queryAlone`).
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
    // Callbacks, not promises, between the caller and the driver: at a sweep's few
    // statements at once, each promise step of ours showed against `pool.query`'s.
    return new Promise<Row[]>((resolve, reject) => {
      const send: Send = (on) => {
        if (on === undefined || on instanceof Error) {
          this.answered(lane);
          if (on) reject(on);
          else this.alone(sql, params).then(resolve, reject);
          return;
        }
        on.query<Row>(sql, params as unknown[], (error, result) => {
          if (error) this.retire(lane, error);
          this.answered(lane);
          if (error) reject(error);
          else resolve(result.rows);
        });
      };
      if (lane.waiting) lane.waiting.push(send);
      else send(lane.client ?? lane.failed);
    });
  }

  private async alone(sql: string, params: readonly unknown[]): Promise<Row[]> {
    return (await this.pool.query<Row>(sql, params as unknown[])).rows;
  }

  /** A lane carries statements only while some are in flight: none of these is idle. */
  private pick(): Lane {
    let least: Lane | undefined;
    for (const lane of this.lanes) {
      if (!least || lane.inFlight < least.inFlight) least = lane;
    }
    if (!least || (this.lanes.length < this.maxLanes && this.poolHasRoom())) return this.open();
    return least;
  }

  /** Whether a checkout would be answered without waiting for another caller's connection. */
  private poolHasRoom(): boolean {
    const max = (this.pool as { options?: { max?: number } }).options?.max ?? 10;
    return this.pool.idleCount > 0 || this.pool.totalCount < max;
  }

  private open(): Lane {
    const lane: Lane = { inFlight: 0, pipelined: false, waiting: [] };
    this.lanes.push(lane);
    this.pool.connect((error: Error | undefined, connected: PoolClient | undefined) => {
      const waiting = lane.waiting ?? [];
      lane.waiting = undefined;
      const client = connected as PipelinedClient | undefined;
      if (error || !client) {
        this.retire(lane, error ?? new Error('the pool gave no connection'));
      } else if (typeof client.pipeline !== 'boolean') {
        this.pipelining = false;
        this.remove(lane);
        client.release();
      } else {
        lane.pipelined = client.pipeline;
        client.pipeline = true;
        lane.client = client;
      }
      for (const send of waiting) send(lane.client ?? lane.failed);
    });
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
