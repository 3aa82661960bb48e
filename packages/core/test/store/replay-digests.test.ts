import { describe, expect, it } from 'vitest';
import { ReplayDigests } from '../../src/store/replay-digests.js';

const T0 = Date.UTC(2026, 0, 1);
const hex = (n: number) => n.toString(16).padStart(32, '0');

describe('ReplayDigests (the replay window of MemoryStore)', () => {
  it('remembers a digest until exactly its expiry, then accepts it again', () => {
    const digests = new ReplayDigests();
    expect(digests.remember(hex(1), 1000, T0)).toBe(true);
    expect(digests.remember(hex(1), 1000, T0 + 999)).toBe(false);
    expect(digests.remember(hex(1), 1000, T0 + 1000)).toBe(true);
    expect(digests.remember(hex(1), 1000, T0 + 1999)).toBe(false);
  });

  it('keeps digests that are not lowercase hex apart from every other digest', () => {
    const digests = new ReplayDigests();
    const distinct = [
      'ab'.repeat(16),
      'AB'.repeat(16),
      '\u00ab'.repeat(16),
      `\u0100${'\u00ab'.repeat(16)}`,
      'abc',
      '',
      'zz'.repeat(16),
      'ab'.repeat(80),
    ];
    for (const digest of distinct) expect(digests.remember(digest, 1000, T0), digest).toBe(true);
    for (const digest of distinct) expect(digests.remember(digest, 1000, T0), digest).toBe(false);
    expect(digests.size).toBe(distinct.length);
  });

  it('expires a shorter TTL given after a longer one on time (out of arrival order)', () => {
    const digests = new ReplayDigests();
    expect(digests.remember(hex(1), 10_000, T0)).toBe(true);
    expect(digests.remember(hex(2), 100, T0 + 1)).toBe(true);
    digests.purge(T0 + 101);
    expect(digests.size).toBe(1);
    expect(digests.remember(hex(2), 100, T0 + 101)).toBe(true);
    expect(digests.remember(hex(1), 100, T0 + 101)).toBe(false);
  });

  it('a digest forgotten and remembered again keeps its new expiry past the old one', () => {
    const digests = new ReplayDigests();
    expect(digests.remember(hex(7), 100, T0)).toBe(true);
    digests.forget(hex(7));
    expect(digests.remember(hex(7), 1000, T0 + 50)).toBe(true);
    digests.purge(T0 + 100);
    expect(digests.remember(hex(7), 1000, T0 + 100)).toBe(false);
    digests.purge(T0 + 1050);
    expect(digests.size).toBe(0);
  });

  it('drops every expired digest of a long queue, and keeps every live one', () => {
    const digests = new ReplayDigests();
    for (let i = 0; i < 5000; i++) expect(digests.remember(hex(i), 1000 + i, T0)).toBe(true);
    digests.purge(T0 + 3999);
    expect(digests.size).toBe(2000);
    for (let i = 3000; i < 5000; i++) expect(digests.remember(hex(i), 1000, T0 + 3999)).toBe(false);
    expect(digests.remember(hex(2999), 1000, T0 + 3999)).toBe(true);
    for (let i = 5000; i < 6000; i++)
      expect(digests.remember(hex(i), 1000 + i, T0 + 4000)).toBe(true);
    digests.purge(T0 + 4999);
    expect(digests.remember(hex(2999), 1000, T0 + 4999)).toBe(true);
    expect(digests.remember(hex(5000), 1000, T0 + 4999)).toBe(false);
    digests.purge(T0 + 20_000);
    expect(digests.size).toBe(0);
  });

  it('forgets and remembers again through many rebuilds of its table', () => {
    const digests = new ReplayDigests();
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 3000; i++) {
        expect(digests.remember(hex(round * 10_000 + i), 60_000, T0)).toBe(true);
      }
      for (let i = 0; i < 3000; i += 2) digests.forget(hex(round * 10_000 + i));
    }
    expect(digests.size).toBe(4 * 1500);
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 3000; i++) {
        const again = digests.remember(hex(round * 10_000 + i), 60_000, T0 + 1);
        expect(again, `digest ${round}/${i}`).toBe(i % 2 === 0);
      }
    }
    digests.purge(T0 + 60_000);
    expect(digests.size).toBe(4 * 1500);
    digests.purge(T0 + 60_001);
    expect(digests.size).toBe(0);
  });

  it('reclaims expired digests as the table fills: with 1,000 live at a time it never holds more than 1,501, whatever passed through', () => {
    const digests = new ReplayDigests();
    // 200,000 deliveries, one per millisecond, each remembered for 1 s: never more than
    // 1,000 live at once. A table rebuilt to two slots per live digest holds at most three
    // quarters of its slots: 1,501 of 2,002.
    let largest = 0;
    let refused = 0;
    for (let i = 0; i < 200_000; i++) {
      if (!digests.remember(hex(i), 1000, T0 + i)) refused += 1;
      largest = Math.max(largest, digests.size);
    }
    expect(refused).toBe(0);
    expect(largest).toBeLessThanOrEqual(1501);
    expect(digests.remember(hex(199_500), 1000, T0 + 200_000)).toBe(false);
    expect(digests.remember(hex(198_000), 1000, T0 + 200_000)).toBe(true);
  });
});
