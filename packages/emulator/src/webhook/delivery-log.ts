/** One webhook the emulator sent, or decided not to send, for the inspector. */
export interface DeliveryAttempt {
  /** When it was sent (or dropped), ms since the epoch. */
  at: number;
  /** `dropped` and `no-callback-url` were never sent. */
  outcome: 'answered' | 'failed' | 'dropped' | 'no-callback-url';
  url: string | null;
  status: number | null;
  latencyMs: number | null;
  /** The start of the receiver's answer, or why there was none. */
  answer: string;
  faults: { delayedMs: number; corrupted: boolean; duplicate: boolean };
}

const SESSIONS_KEPT = 500;
const ATTEMPTS_KEPT = 20;

/**
 * The last webhook attempts of each session, by session id (never the token), bounded so a
 * long-running emulator keeps a constant amount of it.
 */
export class DeliveryLog {
  private readonly bySession = new Map<string, DeliveryAttempt[]>();

  add(sessionId: string, attempt: DeliveryAttempt): void {
    const attempts = this.bySession.get(sessionId) ?? [];
    this.bySession.delete(sessionId);
    attempts.push(attempt);
    if (attempts.length > ATTEMPTS_KEPT) attempts.shift();
    this.bySession.set(sessionId, attempts);
    if (this.bySession.size > SESSIONS_KEPT) {
      const oldest = this.bySession.keys().next().value;
      if (oldest !== undefined) this.bySession.delete(oldest);
    }
  }

  of(sessionId: string): readonly DeliveryAttempt[] {
    return this.bySession.get(sessionId) ?? [];
  }
}
