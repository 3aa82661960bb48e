import type { VerificationPayload } from '../wire/payload/types.js';
import { sign } from '../wire/signature/verify.js';
import { fixturePayload } from './fixture-payload.js';

/** A webhook request as the service sends it, ready for `receiver.receive` or `fetch`. */
export interface TestDelivery {
  method: 'POST';
  headers: Record<string, string>;
  /** The exact bytes that were signed. */
  body: Uint8Array;
  /** The same bytes as text, for HTTP clients that take a string. */
  text: string;
  signature: string;
}

export interface SignedDeliveryOptions {
  /** Secret to sign with. */
  secret: string;
  /** A body to send as is instead of the serialized payload (e.g. pretty-printed JSON). */
  rawBody?: string | Uint8Array;
  /**
   * How the payload is written. `'varied'` (the default) writes its fields in reverse order
   * and indented, as `JSON.stringify` never would: a handler that verifies a re-serialized
   * body (`JSON.stringify(req.body)`) fails its tests, as it would in production.
   * `'compact'` is `JSON.stringify(payload)`.
   */
  layout?: 'varied' | 'compact';
}

const encoder = new TextEncoder();

/** The fields as the service sends them: a payload's `extra` fields back at the top level. */
function wireFields(
  payload: VerificationPayload | Record<string, unknown>,
): Record<string, unknown> {
  const { extra, ...fields } = payload as Record<string, unknown>;
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    return payload as Record<string, unknown>;
  }
  return { ...fields, ...extra };
}

function wireText(
  payload: VerificationPayload | Record<string, unknown>,
  layout: 'varied' | 'compact',
): string {
  const fields = wireFields(payload);
  if (layout === 'compact') return JSON.stringify(fields);
  const reversed = Object.fromEntries(Object.entries(fields).reverse());
  return `${JSON.stringify(reversed, null, 2)}\n`;
}
const decoder = new TextDecoder();

/**
 * Builds a correctly signed webhook delivery for a payload (or a fixture payload). Its body
 * is laid out unlike `JSON.stringify` (see `layout`), so only a handler that verifies the
 * exact bytes accepts it. Send `delivery.text` from HTTP clients that take a string (with
 * supertest, `.send(delivery.text)`: superagent JSON-encodes a Buffer or Uint8Array), or
 * `delivery.body` where bytes are sent as they are (`fetch`).
 *
 * @example
 * const delivery = await signedDelivery(fixturePayload({ status: 'failed' }), { secret });
 * await fetch(`${url}/webhooks/verification`, { method: 'POST', headers: delivery.headers, body: delivery.text });
 *
 * @example
 * // supertest (Express, Koa, NestJS)
 * await request(app).post('/webhooks/verification').set(delivery.headers).send(delivery.text);
 */
export async function signedDelivery(
  payload: VerificationPayload | Record<string, unknown> = fixturePayload(),
  options: SignedDeliveryOptions,
): Promise<TestDelivery> {
  const raw = options.rawBody ?? wireText(payload, options.layout ?? 'varied');
  const body = typeof raw === 'string' ? encoder.encode(raw) : raw;
  const signature = await sign(body, options.secret);
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    body,
    text: decoder.decode(body),
    signature,
  };
}

/**
 * A delivery whose body was changed by one byte after signing: a receiver must reject it
 * with `401 signature_invalid`.
 */
export async function tamperedDelivery(
  payload: VerificationPayload | Record<string, unknown> = fixturePayload(),
  options: SignedDeliveryOptions,
): Promise<TestDelivery> {
  const delivery = await signedDelivery(payload, options);
  const body = delivery.body.slice();
  const index = letterInsideString(body);
  body[index] = (body[index] as number) ^ 0x01;
  return { ...delivery, body, text: decoder.decode(body) };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isLetter = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);

/**
 * A letter inside a JSON string from the middle of the body on: flipping its lowest bit
 * keeps the JSON valid (a body parser in front of the webhook still accepts it), so only
 * the signature can catch the change. The middle byte when there is none.
 */
function letterInsideString(body: Uint8Array): number {
  const middle = Math.floor(body.length / 2);
  let inString = false;
  for (let index = 0; index < body.length; index++) {
    const byte = body[index] as number;
    if (inString && byte === BACKSLASH) index++;
    else if (byte === QUOTE) inString = !inString;
    else if (inString && index >= middle && isLetter(byte)) return index;
  }
  return middle;
}
