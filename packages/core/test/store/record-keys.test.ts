import { expect, it } from 'vitest';
import { digestOfUnmatched, isUnmatchedKey, unmatchedKey } from '../../src/store/record-keys.js';

it('the key of a delivery matched to no session is built, recognised and read in one place', () => {
  const digest = 'acme.0123456789abcdef0123456789abcdef';
  const key = unmatchedKey(digest);
  expect(key).toBe(`webhook:${digest}`);
  expect(isUnmatchedKey(key)).toBe(true);
  expect(digestOfUnmatched(key)).toBe(digest);
  // A session token, and the keyed hash the token protection stores it under, are not.
  expect(isUnmatchedKey('tok_0123456789abcdef')).toBe(false);
  expect(isUnmatchedKey('t1:0123456789abcdef')).toBe(false);
});
