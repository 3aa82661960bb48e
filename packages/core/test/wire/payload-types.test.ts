import { describe, expectTypeOf, it } from 'vitest';
import type { VerificationPayload } from '../../src/index.js';
import { fixturePayload } from '../../src/testing/index.js';

// Checked by `pnpm typecheck` (tsc over test/): a misspelt field must not type-check.
describe('VerificationPayload types', () => {
  it('refuses a misspelt field name', () => {
    const payload: VerificationPayload = fixturePayload();
    // @ts-expect-error the wire name is external_user_id; a typo must be a compile error
    const typo = payload.externalUserId;
    expectTypeOf(payload.external_user_id).toEqualTypeOf<string>();
    expectTypeOf(payload).not.toHaveProperty('externalUserId');
    void typo;
  });

  it('keeps unknown fields reachable, as unknown, through extra', () => {
    const payload = fixturePayload();
    expectTypeOf(payload.extra).toEqualTypeOf<Readonly<Record<string, unknown>>>();
    expectTypeOf(payload.extra.attempts).toEqualTypeOf<unknown>();
  });
});
