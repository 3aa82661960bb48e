import { createHash, randomBytes } from 'node:crypto';

/** Numbers in `[0, 1)`. A seeded source repeats its sequence, so simulated runs can be replayed. */
export interface RandomSource {
  next(): number;
}

const BYTES_PER_NUMBER = 4;

/**
 * A random source in counter mode over SHA-256: block `n` is `sha256(seed:n)`, cut into 32-bit
 * numbers. Without a seed, the seed itself is random. It decides fault injection, simulated
 * confidence values and webhook formatting; credentials never come from it.
 */
export function createRandomSource(seed?: string | number): RandomSource {
  const key = seed === undefined ? randomBytes(32).toString('hex') : String(seed);
  let counter = 0;
  let block = Buffer.alloc(0);
  let offset = 0;
  return {
    next() {
      if (offset + BYTES_PER_NUMBER > block.length) {
        block = createHash('sha256').update(`${key}:${counter}`).digest();
        counter += 1;
        offset = 0;
      }
      const value = block.readUInt32BE(offset);
      offset += BYTES_PER_NUMBER;
      return value / 2 ** 32;
    },
  };
}
