import { describe, expect, it } from 'vitest';
import { fixturePayload, signedDelivery, tamperedDelivery } from '../../src/testing/index.js';
import { verify } from '../../src/wire/signature/verify.js';

const SECRET = 'whsec_signed_delivery_kit_0123';

describe('signedDelivery()', () => {
  it('lays the body out unlike JSON.stringify by default, so a re-serialized body fails verification', async () => {
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const parsed = JSON.parse(delivery.text) as Record<string, unknown>;
    expect(parsed).toMatchObject({ event: 'verification.completed', external_user_id: 'user_123' });

    const reserialized = JSON.stringify(parsed);
    expect(reserialized).not.toBe(delivery.text);
    expect(await verify(reserialized, delivery.signature, SECRET)).toBe(false);
    // Rebuilt in the payload's own field order (a typed object), it still fails.
    expect(await verify(JSON.stringify(fixturePayload()), delivery.signature, SECRET)).toBe(false);
    expect(await verify(delivery.body, delivery.signature, SECRET)).toBe(true);
  });

  it("layout: 'compact' is what JSON.stringify writes", async () => {
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET, layout: 'compact' });
    expect(delivery.text).toBe(JSON.stringify(JSON.parse(delivery.text)));
    expect(await verify(delivery.text, delivery.signature, SECRET)).toBe(true);
  });
});

describe('tamperedDelivery()', () => {
  it('changes one letter inside a string: still valid JSON, so only the signature catches it', async () => {
    const delivery = await tamperedDelivery(fixturePayload(), { secret: SECRET });
    expect(() => JSON.parse(delivery.text)).not.toThrow();
    expect(await verify(delivery.body, delivery.signature, SECRET)).toBe(false);
  });
});
