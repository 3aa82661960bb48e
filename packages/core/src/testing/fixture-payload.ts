import type { VerificationPayload } from '../wire/payload/types.js';

/**
 * A valid `verification.completed` payload for tests; override any field.
 *
 * @example
 * const failed = fixturePayload({ status: 'failed', livenessPassed: false, reason: 'liveness_check_failed' });
 */
export function fixturePayload(overrides: Partial<VerificationPayload> = {}): VerificationPayload {
  return {
    event: 'verification.completed',
    status: 'verified',
    external_user_id: 'user_123',
    confidence: 0.987,
    livenessPassed: true,
    duplicate: false,
    risk: 'low',
    reason: null,
    frontImageUrl: 'https://files.example.test/front/abc.jpg?sig=x&exp=1763776000',
    extra: {},
    ...overrides,
  };
}
