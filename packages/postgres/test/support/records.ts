import type { StoredResult, TrackedSession } from '@faceverify/core/store';
import { fixturePayload } from '@faceverify/core/testing';

let sequence = 0;

export function trackedSession(overrides: Partial<TrackedSession> = {}): TrackedSession {
  const key = overrides.key ?? `tok_pg_${process.pid}_${++sequence}`;
  return {
    key,
    token: key,
    externalUserId: `user_${sequence}`,
    createdAt: 1_000,
    expiresAt: 61_000,
    state: 'pending',
    dueAt: 1_000,
    attempts: 0,
    ...overrides,
  };
}

export function storedResult(externalUserId = 'user'): StoredResult {
  return {
    payload: fixturePayload({ external_user_id: externalUserId }),
    source: 'webhook',
    receivedAt: 1_000,
  };
}
