import type { VerificationPayload } from '@faceverify/core';
import type { HandlerBehaviour } from './schedule.js';

/** A handler run that wrote its effect: what the application's own database received. */
export interface Commit {
  at: number;
  instance: number;
  token: string | undefined;
  eventId: string;
  confirmed: boolean;
  source: 'webhook' | 'poll';
  data: VerificationPayload;
}

/**
 * What the application saw, and what the simulation knows happened to it: the evidence the
 * invariants are checked against.
 */
export class Ledger {
  readonly commits: Commit[] = [];
  readonly expired: Array<{ at: number; token: string; reason: string }> = [];
  readonly undeliverable: Array<{ at: number; token: string | undefined }> = [];
  readonly alerts: Array<{ at: number; instance: number; code: string; message: string }> = [];
  /** When each tracked session's record was written: its lifetime counts from then. */
  readonly tracked = new Map<string, number>();
  /** What each webhook the service sent (not a replay) was answered, by its answer's name. */
  readonly webhookAnswers: Array<{ at: number; instance: number; token: string; answer: string }> =
    [];
  /** Looks at a session that failed (the `error` handlers' `stage: 'poll'`), by `tokenId`. */
  readonly pollErrors: Array<{ at: number; instance: number; tokenId: string }> = [];
  readonly unhandled: string[] = [];
  /** Each handler run as it began: where, when, and how the schedule had it behave. */
  readonly handlerRuns: Array<{ at: number; instance: number; behaviour: HandlerBehaviour }> = [];
  /**
   * Sessions whose handler may run again, as "Who may run twice" lists it: its process died
   * (or lost the store) after the handler began and before the success was recorded.
   */
  readonly mayRunTwice = new Set<string>();
  /** Faults of the store that lose what it acknowledged; each must raise an alarm. */
  readonly storeLosses: Array<{
    at: number;
    /** The first write lost: `-Infinity` when the store was emptied. */
    since: number;
    kind: 'emptied' | 'rewound';
    /** What was lost: `everything`, `12 calls`, `3371 bytes of writes`. */
    lost: string;
    /**
     * Whether an instance ran when it happened. A process that starts after the loss cannot
     * tell it from a new store (docs/assumptions.md, 25): no alarm is owed for one nobody saw.
     */
    witnessed: boolean;
  }> = [];
  /**
   * Each `verification.completed` handler run as it began, with what the event said of its
   * session: whose user, when it started, whether a newer one was known.
   */
  readonly seen: Array<{
    at: number;
    instance: number;
    user: string;
    token: string | undefined;
    sessionStartedAt: number | undefined;
    superseded: boolean;
  }> = [];
  /** Results settled without the handlers (`verification.superseded`). */
  readonly skipped: Array<{
    at: number;
    instance: number;
    user: string;
    token: string | undefined;
    sessionStartedAt: number | undefined;
  }> = [];
  /** The user each tracked session was started for. */
  readonly users = new Map<string, string>();
  readonly trace: string[] = [];

  note(at: number, line: string): void {
    this.trace.push(`${(at / 1000).toFixed(3).padStart(10)} s  ${line}`);
  }
}
