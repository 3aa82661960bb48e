// Random bytes are drawn from a buffer filled 4 KiB at a time: one getRandomValues call costs
// about as much for 4 KiB as for 12 bytes, and a webhook seals several texts. A new buffer
// replaces a used one, so no byte is ever drawn twice (no IV repeats).
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let offset = 0;

/** `length` (at most 4096) fresh random bytes, a view of their own no later draw overlaps. */
export function randomBytes(length: number): Uint8Array {
  if (offset + length > pool.byteLength) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}
