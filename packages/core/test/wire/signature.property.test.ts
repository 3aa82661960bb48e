import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sign, verify } from '../../src/index.js';

const secret = fc.string({ minLength: 1, maxLength: 64 });
const body = fc.uint8Array({ minLength: 0, maxLength: 4096 });

describe('sign/verify properties', () => {
  it('any body signed with a secret verifies with it', async () => {
    await fc.assert(
      fc.asyncProperty(body, secret, async (bytes, key) => {
        expect(await verify(bytes, await sign(bytes, key), key)).toBe(true);
      }),
    );
  });

  it('flipping any single bit of the body fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 2048 }),
        secret,
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (bytes, key, position, bit) => {
          const signature = await sign(bytes, key);
          const tampered = bytes.slice();
          const index = position % tampered.length;
          tampered[index] = tampered[index]! ^ (1 << bit);
          expect(await verify(tampered, signature, key)).toBe(false);
        },
      ),
    );
  });

  it('changing any single hex digit of the signature fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        body,
        secret,
        fc.nat(63),
        fc.integer({ min: 1, max: 15 }),
        async (bytes, key, index, delta) => {
          const signature = await sign(bytes, key);
          const digit = (Number.parseInt(signature[index]!, 16) + delta) % 16;
          const changed =
            signature.slice(0, index) + digit.toString(16) + signature.slice(index + 1);
          expect(await verify(bytes, changed, key)).toBe(false);
        },
      ),
    );
  });

  it('any other secret fails', async () => {
    await fc.assert(
      fc.asyncProperty(body, secret, secret, async (bytes, key, other) => {
        fc.pre(key !== other);
        expect(await verify(bytes, await sign(bytes, key), other)).toBe(false);
      }),
    );
  });

  it('a re-serialized JSON body fails when its bytes changed', async () => {
    const json = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      { minKeys: 1, maxKeys: 8 },
    );
    await fc.assert(
      fc.asyncProperty(json, secret, async (object, key) => {
        const original = JSON.stringify(object, null, 2);
        const reserialized = JSON.stringify(JSON.parse(original));
        fc.pre(original !== reserialized);
        expect(await verify(reserialized, await sign(original, key), key)).toBe(false);
      }),
    );
  });

  it('arbitrary header strings never throw', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.string({ maxLength: 200 }), async (bytes, header) => {
        await expect(verify(bytes, header, 'k')).resolves.toBeTypeOf('boolean');
      }),
    );
  });
});
