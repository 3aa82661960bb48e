import { describe, expect, it } from 'vitest';
import { firstSealedKeyId, recordKeying } from '../src/record-keying.js';

describe('firstSealedKeyId: the public layout of sealed texts', () => {
  it.each([
    ['a sealed token', 'fvt1.AbC-_12x.Zm9v', 'AbC-_12x'],
    ['a token sealed under two keys', 'fvt1.first.Zm9v.second.YmFy', 'first'],
    ['a sealed result, as a store holds it', '{"sealed":"fvr1.resKey1.Zm9v', 'resKey1'],
    ['a version to come, of the same layout', 'fvr2.nextKey.Zm9v', 'nextKey'],
    ['a token in clear', 'tok_live_123', undefined],
    ['a result in clear', '{"payload":{"status":"verified"}}', undefined],
    ['nothing', undefined, undefined],
  ])('%s', (_name, text, id) => {
    expect(firstSealedKeyId(text)).toBe(id);
  });
});

describe('recordKeying: what keyed a stored record', () => {
  it('the token first, then the result; a user in clear needs no key; else it cannot tell', () => {
    const hashed = 'u1:aGFzaA.acme';
    expect(recordKeying({ user: hashed, token: 'fvt1.tk.x', result: '{"sealed":"fvr1.rk.y' })).toBe(
      'key:tk',
    );
    expect(recordKeying({ user: hashed, token: undefined, result: '{"sealed":"fvr1.rk.y' })).toBe(
      'key:rk',
    );
    expect(recordKeying({ user: 'alice', token: 'fvt1.tk.x', result: undefined })).toBe('clear');
    expect(recordKeying({ user: hashed, token: undefined, result: undefined })).toBe('unsealed');
  });
});
