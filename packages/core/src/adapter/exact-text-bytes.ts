import { type HeadersLike, readHeader } from '../receiver/webhook/headers.js';

/** The exact bytes of a body known only as text, or why they cannot be known. */
export type TextProof = { bytes: Uint8Array } | { reason: string };

const encoder = new TextEncoder();

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * Recovers the bytes a body parser decoded to text, but only when they provably are the
 * bytes received: nothing was decompressed, the text was UTF-8, no invalid byte was
 * replaced (U+FFFD), and re-encoding gives exactly Content-Length bytes (which also
 * catches a stripped byte-order mark). Otherwise says why not. Adapters reach it through
 * `textAsSent`.
 *
 * Reasons are fixed sentences, never header values: the Receiver logs each distinct hint
 * once, and a sender must not be able to fill that log or inject text into it.
 */
export function exactTextBytes(text: string, headers: HeadersLike): TextProof {
  const encoding = readHeader(headers, 'content-encoding')?.trim().toLowerCase() ?? '';
  if (encoding !== '' && encoding !== 'identity') {
    return { reason: 'the request had a Content-Encoding, so the text was decompressed' };
  }
  const charset = charsetOf(readHeader(headers, 'content-type'));
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return { reason: 'the request declared a charset other than UTF-8' };
  }
  const declared = readHeader(headers, 'content-length');
  if (declared === undefined) {
    return { reason: 'the request had no Content-Length (it was chunked) to compare with' };
  }
  if (text.includes('\uFFFD')) {
    return { reason: 'the body was not valid UTF-8, so decoding replaced bytes' };
  }
  const bytes = encoder.encode(text);
  if (String(bytes.byteLength) !== declared.trim()) {
    return { reason: 'the text, encoded again, is not as long as Content-Length says' };
  }
  return { bytes };
}
