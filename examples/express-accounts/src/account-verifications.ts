import type { VerificationCompletedEvent } from '@faceverify/core';

/** What the app keeps about a user's latest verification result in one account. */
export interface AccountVerification {
  account: string;
  userId: string;
  status: 'verified' | 'failed';
  /** Stable across delivery attempts of one result, so it can be a unique key in a database. */
  eventId: string;
  /** How the result arrived: the signed webhook, or polling when the webhook was lost. */
  source: 'webhook' | 'poll';
  recordedAt: string;
}

/**
 * The app's verification results by account and user: a stand-in for your database table,
 * whose key is the pair. The same user id in two accounts is two users (two customers' users
 * who happen to share an id), and each result arrives with its own account.
 */
export class AccountVerifications {
  private readonly byUser = new Map<string, AccountVerification>();

  record({ account, id, source, data }: VerificationCompletedEvent): void {
    // Every event of a Receiver of several accounts says whose it is.
    if (account === undefined) throw new Error('A result without an account.');
    this.byUser.set(keyOf(account, data.external_user_id), {
      account,
      userId: data.external_user_id,
      status: data.status,
      eventId: id,
      source,
      recordedAt: new Date().toISOString(),
    });
  }

  get(account: string, userId: string): AccountVerification | undefined {
    return this.byUser.get(keyOf(account, userId));
  }
}

const keyOf = (account: string, userId: string) => JSON.stringify([account, userId]);
