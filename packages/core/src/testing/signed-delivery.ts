import type { VerificationPayload } from '../payload/types.js';
import { sign } from '../signature/verify.js';
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
}

const encoder = new TextEncoder();

/** The body as the service sends it: a payload's `extra` fields back at the top level. */
function wireText(payload: VerificationPayload | Record<string, unknown>): string {
  const { extra, ...fields } = payload as Record<string, unknown>;
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    return JSON.stringify(payload);
  }
  return JSON.stringify({ ...fields, ...extra });
}
const decoder = new TextDecoder();

/**
 * Builds a correctly signed webhook delivery for a payload (or a fixture payload).
 *
 * @example
 * const delivery = await signedDelivery(fixturePayload({ status: 'failed' }), { secret });
 * await fetch(`${url}/webhooks/verification`, { method: 'POST', headers: delivery.headers, body: delivery.text });
 */
export async function signedDelivery(
  payload: VerificationPayload | Record<string, unknown> = fixturePayload(),
  options: SignedDeliveryOptions,
): Promise<TestDelivery> {
  const raw = options.rawBody ?? wireText(payload);
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
  // Flip a bit inside the JSON text, keeping it printable ASCII where it was.
  const index = Math.floor(body.length / 2);
  body[index] = (body[index] as number) ^ 0x01;
  return { ...delivery, body, text: decoder.decode(body) };
}
