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
}

/**
 * The app's verification results by user: a stand-in for your database table. Writing by
 * user id keeps the handler idempotent, so a delivery retried after a failure changes nothing.
 */
export class UserVerifications {
  private readonly byUser = new Map<string, UserVerification>();

  record({ id, source, data }: VerificationCompletedEvent): void {
    this.byUser.set(data.external_user_id, {
      status: data.status,
      eventId: id,
      source,
      livenessPassed: data.livenessPassed,
      duplicate: data.duplicate,
      risk: data.risk,
      reason: data.reason,
      recordedAt: new Date().toISOString(),
    });
  }

  get(userId: string): UserVerification | undefined {
    return this.byUser.get(userId);
  }
}
