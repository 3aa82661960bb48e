// Node and Bun have Buffer, whose base64url codec is native: a result sealed on every webhook is
// encoded and decoded here, and the portable loop below costs tens of microseconds per result.
// Workers and Deno without Node compatibility take the loop.
const NodeBuffer = (
  globalThis as {
    Buffer?: {
      from(
        data: ArrayBufferLike,
        offset: number,
        length: number,
      ): { toString(enc: string): string };
      from(text: string, encoding: string): Uint8Array;
    };
  }
).Buffer;

/** Bytes as unpadded base64url, the alphabet that survives URLs, keys and logs unescaped. */
export function toBase64Url(bytes: Uint8Array): string {
  if (NodeBuffer) {
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  }
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The bytes of unpadded base64url text, to be read at once (a sealed text opened): on Node a
 * view into a pool shared with other Buffers, not a copy of its own.
 */
export function fromBase64Url(text: string): Uint8Array {
  if (NodeBuffer) return NodeBuffer.from(text, 'base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
