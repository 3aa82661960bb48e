import { decodeJson } from '../payload/decode-json.js';
import { COMPLETED_EVENT } from '../payload/parse.js';
import type { VerificationPayload } from '../payload/types.js';
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
  private readonly byUser = new Map<
    string,
    { at: number; reason: RefusalReason; result: string }
  >();

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
    let result: string | undefined;
    try {
      const json = decodeJson(body) as Record<string, unknown> | null;
      if (json?.event !== COMPLETED_EVENT) return;
      user = json.external_user_id;
      result = resultOf(json);
    } catch {
      return;
    }
    if (typeof user !== 'string' || result === undefined) return;
    const key = keyOf(user, account);
    this.byUser.delete(key);
    this.byUser.set(key, { at: this.now(), reason, result });
    if (this.byUser.size > MAX_REMEMBERED) {
      this.byUser.delete(this.byUser.keys().next().value!);
    }
  }

  /** Erasure (`receiver.forgetUser`): the user is no longer remembered by this process. */
  forget(user: string, account?: string): void {
    this.byUser.delete(keyOf(user, account));
  }

  /**
   * A result was recovered by polling: a refused body of its user that carries that result was
   * its webhook. One that carries another result of the user was not: an earlier result sent
   * again, such as a webhook signed with a secret a finished rotation removed.
   */
  recovered(payload: VerificationPayload, account?: string): void {
    if (this.byUser.size === 0) return;
    const key = keyOf(payload.external_user_id, account);
    const refused = this.byUser.get(key);
    if (!refused || refused.result !== resultOf(payload)) return;
    this.byUser.delete(key);
    if (this.now() - refused.at <= this.activity.windowMs) {
      this.activity.record(RECOVERED[refused.reason], undefined, account);
    }
  }
}

// What tells one result of a user from another: the outcome, as correlate.ts compares it.
const OUTCOME_FIELDS = ['status', 'confidence', 'livenessPassed', 'duplicate', 'risk', 'reason'];
// A field longer than this is no result the service sends: such a body is no evidence.
const MAX_FIELD_LENGTH = 200;

/** The outcome a body or payload carries, to compare; `undefined` when it is not one. */
function resultOf(json: object): string | undefined {
  const fields = OUTCOME_FIELDS.map((field) => (json as Record<string, unknown>)[field]);
  const kept = fields.every(
    (value) =>
      value === null ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (typeof value === 'string' && value.length <= MAX_FIELD_LENGTH),
  );
  return kept ? JSON.stringify(fields) : undefined;
}

/** The same user id in two accounts is two users. */
const keyOf = (user: string, account: string | undefined) =>
  account === undefined ? user : `${account}\u0000${user}`;
