import { describe, expect, it } from 'vitest';
import { privacyCanary } from '../../src/testing/index.js';

describe('privacyCanary', () => {
  it('finds each canary in clear wherever it hides: text, objects, maps, sets and bytes', () => {
    const canary = privacyCanary();
    const payload = canary.payload();
    expect(payload).toMatchObject({
      external_user_id: canary.externalUserId,
      frontImageUrl: canary.frontImageUrl,
      reason: canary.reason,
    });
    expect(canary.foundIn(`log line ${canary.externalUserId}`)).toEqual([canary.externalUserId]);
    const nested = new Map([['k', { rows: [new Set([new TextEncoder().encode(canary.reason)])] }]]);
    expect(canary.foundIn(nested)).toEqual([canary.reason]);
    expect(canary.foundIn(JSON.stringify(payload))).toHaveLength(4);
  });

  it('finds nothing in what names none of them, and another canary never matches', () => {
    const canary = privacyCanary();
    const other = privacyCanary();
    expect(canary.foundIn(other.payload())).toEqual([]);
    expect(canary.foundIn({ user: 'u1:3q2-7w', result: 'fvr1.k1.abc' })).toEqual([]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(canary.foundIn(cyclic)).toEqual([]);
  });
});
