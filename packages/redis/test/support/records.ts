import type { StoredResult, TrackedSession } from '@faceverify/core/store';
import { fixturePayload } from '@faceverify/core/testing';

let sequence = 0;

/** A pending session due now, unless overridden. */
export function trackedSession(overrides: Partial<TrackedSession> = {}): TrackedSession {
  const now = Date.now();
  const key = overrides.key ?? `tok_${++sequence}_${Math.random().toString(36).slice(2)}`;
  return {
    key,
    token: key,
    externalUserId: `user_${sequence}`,
    createdAt: now,
    expiresAt: now + 30 * 60_000,
    state: 'pending',
    dueAt: now,
    attempts: 0,
    ...overrides,
  };
}

export function storedResult(overrides: Partial<StoredResult> = {}): StoredResult {
  return { payload: fixturePayload(), source: 'webhook', receivedAt: Date.now(), ...overrides };
}
