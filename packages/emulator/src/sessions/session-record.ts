/** The outcome a person picks on the hosted page, standing in for a real face check. */
export type Outcome = 'verified' | 'liveness_failed' | 'duplicate' | 'high_risk';

/** Every outcome, in the order the hosted page offers them. */
export const OUTCOMES: readonly Outcome[] = [
  'verified',
  'liveness_failed',
  'duplicate',
  'high_risk',
];

/** State of a session: `pending` until completed, or `expired` when its token ran out unused. */
export type SessionStatus = 'pending' | 'verified' | 'failed' | 'expired';

/** The verification result of a completed session, without its time-limited image link. */
export interface SimulatedResult {
  status: 'verified' | 'failed';
  confidence: number;
  livenessPassed: boolean;
  duplicate: boolean;
  risk: 'low' | 'medium' | 'high';
  reason: string | null;
}

/** A session as the emulator keeps it: keyed and identified by its token's hash only. */
export interface SessionRecord {
  tokenHash: string;
  /** The account whose API key created it: its webhook goes to that account only. */
  accountId: string;
  externalUserId: string;
  redirectUrl: string | null;
  createdAt: number;
  expiresAt: number;
  completedAt: number | null;
  result: SimulatedResult | null;
  /** Identifies the front image served for this session once it is completed. */
  frontImageId: string | null;
}
