const HEX_DIGITS = '0123456789abcdef';
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE[HEX_DIGITS.charCodeAt(i)] = i;
  NIBBLE[HEX_DIGITS.toUpperCase().charCodeAt(i)] = i;
}

/** Lowercase hex of the bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  }
  return out;
}

/**
 * Decodes hex of exactly `byteLength` bytes, either case. Returns `undefined` for anything
 * else (wrong length, a prefix such as `sha256=`, any non-hex character), so a malformed
 * header becomes a plain mismatch rather than an exception.
 */
export function fromHex(text: string, byteLength: number): Uint8Array | undefined {
  if (text.length !== byteLength * 2) return undefined;
  const out = new Uint8Array(byteLength);
  for (let i = 0; i < byteLength; i++) {
    const hi = NIBBLE[text.charCodeAt(2 * i)] ?? -1;
    const lo = NIBBLE[text.charCodeAt(2 * i + 1)] ?? -1;
    if ((hi | lo) < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}
