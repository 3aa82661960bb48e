import type { VerificationCompletedEvent, VerificationExpiredEvent } from '@faceverify/core';

/** Every handler call of a run, to count what was delivered once, twice or never. */
export class DeliveryLedger {
  readonly completed: VerificationCompletedEvent[] = [];
  readonly expired: VerificationExpiredEvent[] = [];

  recordCompleted = (event: VerificationCompletedEvent): void => {
    this.completed.push(event);
  };

  recordExpired = (event: VerificationExpiredEvent): void => {
    this.expired.push(event);
  };

  /** How many times each session token was delivered. */
  countsByToken(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const event of this.completed) {
      const key = event.sessionToken ?? `uncorrelated:${event.id}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  /** Tokens delivered more than once. */
  duplicates(): string[] {
    return [...this.countsByToken()].filter(([, count]) => count > 1).map(([token]) => token);
  }

  /** Tokens in `expected` never delivered. */
  missing(expected: Iterable<string>): string[] {
    const counts = this.countsByToken();
    return [...expected].filter((token) => !counts.has(token));
  }
}
