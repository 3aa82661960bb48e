import { describe, expect, it } from 'vitest';
import { RecentEntries } from '../../src/base/recent-entries.js';

/** The keys of `all` that `entries` holds, in the order of `all`. */
function keysOf(entries: RecentEntries<string, number>, all: readonly string[]): string[] {
  return all.filter((key) => entries.has(key));
}

describe('RecentEntries', () => {
  it('keeps the most recently set entries, dropping the oldest past its limit', () => {
    const entries = new RecentEntries<string, number>(3);
    for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) entries.set(key, index);
    expect(entries.size).toBe(3);
    expect(keysOf(entries, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
    expect(entries.get('d')).toBe(3);
    expect(entries.get('a')).toBeUndefined();
  });

  it('moves a key set again to the newest place, so the next new key drops another', () => {
    const entries = new RecentEntries<string, number>(3);
    entries.set('a', 1);
    entries.set('b', 2);
    entries.set('c', 3);
    expect(entries.set('a', 10)).toBe(10);
    entries.set('d', 4);
    expect(keysOf(entries, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
    entries.set('e', 5);
    expect(keysOf(entries, ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'd', 'e']);
    expect(entries.get('a')).toBe(10);
  });

  it('drops in the order keys were last set, across deletions and after being emptied', () => {
    const entries = new RecentEntries<string, number>(2);
    entries.set('a', 1);
    expect(entries.delete('a')).toBe(true);
    expect(entries.size).toBe(0);
    entries.set('b', 2);
    entries.set('c', 3);
    entries.set('d', 4);
    expect(keysOf(entries, ['a', 'b', 'c', 'd'])).toEqual(['c', 'd']);
    entries.delete('c');
    entries.delete('d');
    entries.set('e', 5);
    entries.set('f', 6);
    entries.set('g', 7);
    expect(keysOf(entries, ['e', 'f', 'g'])).toEqual(['f', 'g']);
  });

  it('matches a plain model of the same rule over a long random run', () => {
    const limit = 16;
    const entries = new RecentEntries<string, number>(limit);
    // The model: keys oldest first.
    let model: string[] = [];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let step = 0; step < 20_000; step++) {
      const key = `k${Math.floor(random() * 40)}`;
      if (random() < 0.2) {
        expect(entries.delete(key)).toBe(model.includes(key));
        model = model.filter((other) => other !== key);
      } else {
        entries.set(key, step);
        model = model.filter((other) => other !== key);
        model.push(key);
        if (model.length > limit) model.shift();
      }
      expect(entries.size).toBe(model.length);
    }
    const all = Array.from({ length: 40 }, (_, index) => `k${index}`);
    expect(keysOf(entries, all).sort()).toEqual([...model].sort());
  });
});
