/** Outcome of a completed verification session. */
export type VerificationStatus = 'verified' | 'failed';

/**
 * Body of the `verification.completed` webhook, with its wire names. Only these fields are
 * typed, so a misspelt name (`externalUserId`) is a compile error; fields the service adds
 * later are kept in `extra`.
 */
export interface VerificationPayload {
  event: 'verification.completed';
  status: VerificationStatus;
  /** Identifier of the user on the integrator's side, as given when the session was created. */
  external_user_id: string;
  /** Decimal confidence; the service does not state its scale or bounds. */
  confidence: number;
  livenessPassed: boolean;
  duplicate: boolean;
  /** Risk level; the service does not list its values. */
  risk: string;
  /** Reason for the outcome, or `null`. */
  reason: string | null;
  /** Signed URL of the front image; it expires 15 minutes after it was issued. */
  frontImageUrl: string;
  /**
   * Fields of the body this version does not know, by their wire names (`{}` when there are
   * none). A body field that is itself named `extra` and holds an object is merged in here.
   *
   * @example
   * const attempts = event.data.extra.attempts; // unknown: check it before use
   */
  extra: Readonly<Record<string, unknown>>;
}
