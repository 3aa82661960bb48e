import type { SessionRecord, SessionStatus, SimulatedResult } from './session-record.js';

/** The result as `GET /v1/sessions/:token` shows it. */
export interface SessionResultView extends SimulatedResult {
  frontImageUrl: string;
}

/** The body of `GET /v1/sessions/:token`. */
export interface SessionView {
  token: string;
  status: SessionStatus;
  external_user_id: string;
  created_at: string;
  completed_at: string | null;
  result: SessionResultView | null;
}

/**
 * A session as the API shows it. The token is the one the caller sent: the emulator does not
 * keep it, only its hash.
 */
export function toSessionView(
  record: SessionRecord,
  token: string,
  status: SessionStatus,
  frontImageUrl: string | null,
): SessionView {
  return {
    token,
    status,
    external_user_id: record.externalUserId,
    created_at: new Date(record.createdAt).toISOString(),
    completed_at: record.completedAt === null ? null : new Date(record.completedAt).toISOString(),
    result: record.result && frontImageUrl !== null ? { ...record.result, frontImageUrl } : null,
  };
}
