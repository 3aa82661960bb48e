import { decodeJson } from '../payload/decode-json.js';
import { COMPLETED_EVENT } from '../payload/parse.js';
import type { ActivityKind, ActivityWindow } from './activity-window.js';

/** Why a body was refused without its signature being known to hold. */
export type RefusalReason = 'signature_invalid' | 'raw_body_unverified';

// Users remembered at once: a flood of refused bodies cannot grow this past a few kilobytes.
const MAX_REMEMBERED = 1_000;

const RECOVERED: Record<RefusalReason, ActivityKind> = {
  signature_invalid: 'signature_invalid_recovered',
  raw_body_unverified: 'raw_body_unverified_recovered',
};

/**
 * Evidence that refused requests were the service's own webhooks, not a stranger's: a refused
 * body that reads as a `verification.completed` of a user whose result polling then recovers
 * was that result's webhook. Anyone can send a badly signed or compressed body; only the
 * service sends one naming a user whose session then completes. An alarm about the secret or
 * the mount order waits for this evidence (see alarms.ts).
 *
 * The user ids stay in this process's memory for the alarms' window at most, never in a log
 * or the store.
 */
export class RefusedBodies {
  private readonly byUser = new Map<string, { at: number; reason: RefusalReason }>();

  constructor(
    private readonly activity: ActivityWindow,
    private readonly now: () => number,
  ) {}

  /**
   * Remembers the user a refused body names, if it reads as a `verification.completed`; on a
   * Receiver of several accounts, as a user of the account the request named.
   */
  note(body: Uint8Array, reason: RefusalReason, account?: string): void {
    let user: unknown;
    try {
      const json = decodeJson(body) as { event?: unknown; external_user_id?: unknown } | null;
      if (json?.event !== COMPLETED_EVENT) return;
      user = json.external_user_id;
    } catch {
      return;
    }
    if (typeof user !== 'string') return;
    const key = keyOf(user, account);
    this.byUser.delete(key);
    this.byUser.set(key, { at: this.now(), reason });
    if (this.byUser.size > MAX_REMEMBERED) {
      this.byUser.delete(this.byUser.keys().next().value!);
    }
  }

  /** Erasure (`receiver.forgetUser`): the user is no longer remembered by this process. */
  forget(user: string, account?: string): void {
    this.byUser.delete(keyOf(user, account));
  }

  /** A result of `user` was recovered by polling: a refused body of that user was its webhook. */
  recovered(user: string, account?: string): void {
    if (this.byUser.size === 0) return;
    const key = keyOf(user, account);
    const refused = this.byUser.get(key);
    if (!refused) return;
    this.byUser.delete(key);
    if (this.now() - refused.at <= this.activity.windowMs) {
      this.activity.record(RECOVERED[refused.reason], undefined, account);
    }
  }
}

/** The same user id in two accounts is two users. */
const keyOf = (user: string, account: string | undefined) =>
  account === undefined ? user : `${account}\u0000${user}`;
