import { createHmac } from 'node:crypto';

/** A header as sent on the wire: name and value exactly as given (no normalisation). */
export type RawHeader = readonly [name: string, value: string];

export const WEBHOOK_PATH = '/webhooks/verification';
export const SECRET = 'whsec_fuzz_3e71c9a4b2d8f605';

const latin1 = (text: string): Uint8Array => Buffer.from(text, 'latin1');

/** Lowercase hex HMAC-SHA256, computed here with node:crypto, not with the code under test. */
export function signHex(body: Uint8Array, secret: string = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export interface RequestParts {
  method?: string;
  target?: string;
  version?: string;
  headers: readonly RawHeader[];
  body?: Uint8Array;
  /**
   * `auto`: `Content-Length` of the body (none when there is no body); `none`: no length
   * header at all; `chunked`: `Transfer-Encoding: chunked` with the body cut in pieces of
   * `chunkSizes`; a string: this exact `Content-Length` value.
   */
  length?: 'auto' | 'none' | 'chunked' | string;
  chunkSizes?: readonly number[];
}

/** The body in chunked transfer coding, cut at the given sizes (repeating the last one). */
function chunked(body: Uint8Array, sizes: readonly number[]): Uint8Array {
  const pieces: Uint8Array[] = [];
  let offset = 0;
  let index = 0;
  while (offset < body.length) {
    const size = Math.max(1, sizes[Math.min(index, sizes.length - 1)] ?? body.length);
    const piece = body.subarray(offset, offset + size);
    pieces.push(latin1(`${piece.length.toString(16)}\r\n`), piece, latin1('\r\n'));
    offset += piece.length;
    index++;
  }
  pieces.push(latin1('0\r\n\r\n'));
  return Buffer.concat(pieces);
}

/**
 * The exact bytes of one HTTP/1.1 request. `Host` and `Connection: close` come first unless
 * the headers already name them, so every request is answered on its own connection.
 */
export function buildRequest(parts: RequestParts): Uint8Array {
  const method = parts.method ?? 'POST';
  const target = parts.target ?? WEBHOOK_PATH;
  const version = parts.version ?? 'HTTP/1.1';
  const named = (name: string) => parts.headers.some(([n]) => n.toLowerCase() === name);
  const lines: string[] = [`${method} ${target} ${version}`];
  if (!named('host')) lines.push('Host: 127.0.0.1');
  if (!named('connection')) lines.push('Connection: close');
  for (const [name, value] of parts.headers) lines.push(`${name}: ${value}`);
  const body = parts.body ?? new Uint8Array(0);
  const length = parts.length ?? 'auto';
  let payload = body;
  if (length === 'auto') {
    if (parts.body !== undefined) lines.push(`Content-Length: ${body.length}`);
  } else if (length === 'chunked') {
    lines.push('Transfer-Encoding: chunked');
    payload = chunked(body, parts.chunkSizes ?? [body.length]);
  } else if (length !== 'none') {
    lines.push(`Content-Length: ${length}`);
  }
  return Buffer.concat([latin1(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

/** Cuts bytes into `count` pieces of roughly equal size (at least one byte each). */
export function split(bytes: Uint8Array, count: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  const size = Math.max(1, Math.ceil(bytes.length / Math.max(1, count)));
  for (let offset = 0; offset < bytes.length; offset += size) {
    pieces.push(bytes.subarray(offset, offset + size));
  }
  return pieces.length > 0 ? pieces : [bytes];
}
