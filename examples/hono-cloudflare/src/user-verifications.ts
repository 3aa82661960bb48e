import type { D1Database } from '@faceverify/cloudflare';
import type { VerificationCompletedEvent } from '@faceverify/core';

/** What the app keeps about a user's latest verification result. */
export interface UserVerification {
  status: 'verified' | 'failed';
  /** Stable across delivery attempts of one result, so it can be a unique key in a database. */
  eventId: string;
  /** How the result arrived: the signed webhook, or polling when the webhook was lost. */
  source: 'webhook' | 'poll';
  livenessPassed: boolean;
  duplicate: boolean;
  risk: string;
  reason: string | null;
  recordedAt: string;
  /** How many times a result was recorded for this user. */
  deliveries: number;
}

interface Row {
  status: 'verified' | 'failed';
  event_id: string;
  source: 'webhook' | 'poll';
  liveness_passed: number;
  duplicate: number;
  risk: string;
  reason: string | null;
  recorded_at: string;
  deliveries: number;
}

/**
 * The app's verification results by user, in the `user_verifications` table of the same D1
 * database (migrations/0002). One row per user keeps the handler's effect idempotent; the
 * `deliveries` column counts how often a handler ran, which shows a result is delivered once.
 */
export class UserVerifications {
  constructor(private readonly db: D1Database) {}

  async record({ id, source, data }: VerificationCompletedEvent): Promise<void> {
    await this.db
      .prepare(
        `INSERT INTO user_verifications (user_id, status, event_id, source, liveness_passed,
           duplicate, risk, reason, recorded_at, deliveries)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1)
         ON CONFLICT (user_id) DO UPDATE SET status = excluded.status,
           event_id = excluded.event_id, source = excluded.source,
           liveness_passed = excluded.liveness_passed, duplicate = excluded.duplicate,
           risk = excluded.risk, reason = excluded.reason, recorded_at = excluded.recorded_at,
           deliveries = deliveries + 1`,
      )
      .bind(
        data.external_user_id,
        data.status,
        id,
        source,
        data.livenessPassed ? 1 : 0,
        data.duplicate ? 1 : 0,
        data.risk,
        data.reason,
        new Date().toISOString(),
      )
      .run();
  }

  async get(userId: string): Promise<UserVerification | undefined> {
    const { results } = await this.db
      .prepare(
        `SELECT status, event_id, source, liveness_passed, duplicate, risk, reason, recorded_at,
           deliveries FROM user_verifications WHERE user_id = ?1`,
      )
      .bind(userId)
      .all<Row>();
    const row = results[0];
    return (
      row && {
        status: row.status,
        eventId: row.event_id,
        source: row.source,
        livenessPassed: row.liveness_passed === 1,
        duplicate: row.duplicate === 1,
        risk: row.risk,
        reason: row.reason,
        recordedAt: row.recorded_at,
        deliveries: row.deliveries,
      }
    );
  }
}
