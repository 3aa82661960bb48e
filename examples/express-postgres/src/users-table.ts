import type { VerificationCompletedEvent } from '@faceverify/core';
import type { Pool, PoolClient } from 'pg';

/** What the app keeps about a user's latest verification result. */
export interface UserVerification {
  userId: string;
  status: 'verified' | 'failed';
  /** Stable across delivery attempts of one result. */
  eventId: string;
  /** How the result arrived: the signed webhook, or polling when the webhook was lost. */
  source: 'webhook' | 'poll';
  /** How many results were written for this user: each one exactly once. */
  results: number;
}

/**
 * The app's own `users` table. The verification handler writes it through the store's
 * transaction, so a result's write commits exactly when the delivery is recorded.
 */
export class UsersTable {
  constructor(
    private readonly pool: Pool,
    readonly name = 'users',
  ) {}

  /** Creates the table when missing (an app would use its own migrations). */
  async create(): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS ${this.name} (
      id text PRIMARY KEY,
      verification_status text NOT NULL,
      verification_event_id text NOT NULL,
      verification_source text NOT NULL,
      verification_results integer NOT NULL DEFAULT 1,
      verified_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  /**
   * Records a result, in the delivery's transaction. `verification_results` counts writes:
   * with a transactional handler it is 1 per result, however the process was interrupted.
   */
  async record(transaction: PoolClient, { id, source, data }: VerificationCompletedEvent) {
    await transaction.query(
      `INSERT INTO ${this.name} (id, verification_status, verification_event_id, verification_source)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET verification_status = EXCLUDED.verification_status,
         verification_event_id = EXCLUDED.verification_event_id,
         verification_source = EXCLUDED.verification_source,
         verification_results = ${this.name}.verification_results + 1,
         verified_at = now()`,
      [data.external_user_id, data.status, id, source],
    );
  }

  async get(userId: string): Promise<UserVerification | undefined> {
    const { rows } = await this.pool.query(
      `SELECT id, verification_status, verification_event_id, verification_source,
         verification_results FROM ${this.name} WHERE id = $1`,
      [userId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      userId: row.id,
      status: row.verification_status,
      eventId: row.verification_event_id,
      source: row.verification_source,
      results: row.verification_results,
    };
  }
}
