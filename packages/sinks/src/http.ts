import { ConfigurationError, type VerificationCompletedEvent } from '@faceverify/core';
import { encodeSinkMessage, type MessageOptions } from './message.js';
import { durationOption } from './options.js';
import { SinkError } from './sink-error.js';

/** Options of `httpForwardSink`. */
export interface HttpForwardSinkOptions extends MessageOptions {
  /** The internal endpoint results are POSTed to (`http:` or `https:`). Never repeated in errors. */
  url: string | URL;
  /** The Standard Webhooks secret the endpoint verifies with: `whsec_` and base64. */
  secret: string;
  /** How long one request may take. Default 10,000 ms. */
  timeoutMs?: number;
  /** The clock of `webhook-timestamp`, in milliseconds. Default `Date.now`. */
  now?: () => number;
}

const encoder = new TextEncoder();

function base64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function secretKey(secret: string): Uint8Array<ArrayBuffer> {
  const fail = () =>
    new ConfigurationError(
      'httpForwardSink: `secret` must be a Standard Webhooks secret: `whsec_` followed by base64 (e.g. from `openssl rand -base64 32`).',
    );
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) throw fail();
  let decoded: string;
  try {
    decoded = atob(secret.slice('whsec_'.length));
  } catch {
    throw fail();
  }
  if (decoded.length === 0) throw fail();
  return Uint8Array.from(decoded, (char) => char.charCodeAt(0));
}

function endpointOf(url: string | URL): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ConfigurationError('httpForwardSink: `url` must be an absolute http: or https: URL.');
  }
  return parsed;
}

/** Why a request failed, without its URL: the network error's code, or the timeout. */
function requestFailure(error: unknown): SinkError {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code =
    typeof cause?.code === 'string'
      ? cause.code
      : error instanceof Error && error.name === 'TimeoutError'
        ? 'timeout'
        : 'network';
  return new SinkError('http', `Forwarding the result failed (${code}).`, code);
}

/**
 * A `verification.completed` handler that POSTs each result (a JSON `SinkMessage`) to an
 * internal endpoint, signed as Standard Webhooks: `webhook-id` is the event id,
 * `webhook-timestamp` the time of sending in seconds, and `webhook-signature` `v1,` and the
 * base64 HMAC-SHA256 of `id.timestamp.body` under the secret. Any 2xx answer is success;
 * another answer, a timeout or a network error throws `SinkError`, and the Receiver retries
 * the result later with its backoff (`retryScheduleMs`). Redirects are not followed.
 *
 * Consumers can count on each result at least once: an endpoint that stored a result but
 * whose answer was lost gets it again, with the same `webhook-id`. Deduplicate by it, and
 * answer 2xx only once the result is stored.
 *
 * @example
 * import { httpForwardSink } from '@faceverify/sinks/http';
 * receiver.on('verification.completed', httpForwardSink({
 *   url: 'http://results.internal/faceverify',
 *   secret: process.env.FORWARD_SECRET,
 * }));
 */
export function httpForwardSink(
  options: HttpForwardSinkOptions,
): (event: VerificationCompletedEvent) => Promise<void> {
  const endpoint = endpointOf(options.url);
  const rawKey = secretKey(options.secret);
  const timeoutMs = durationOption('httpForwardSink', 'timeoutMs', options.timeoutMs, 10_000);
  const now = options.now ?? Date.now;
  let key: Promise<CryptoKey> | undefined;
  const signingKey = () => {
    key ??= crypto.subtle.importKey('raw', rawKey, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    return key;
  };
  return async (event) => {
    const body = encodeSinkMessage(event, options);
    const timestamp = String(Math.floor(now() / 1000));
    const signature = await crypto.subtle.sign(
      'HMAC',
      await signingKey(),
      encoder.encode(`${event.id}.${timestamp}.${body}`),
    );
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': event.id,
          'webhook-timestamp': timestamp,
          'webhook-signature': `v1,${base64(signature)}`,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw requestFailure(error);
    }
    // The answer's body is not needed: dropped, so the connection can be reused.
    await response.body?.cancel().catch(() => undefined);
    if (response.status < 200 || response.status > 299) {
      throw new SinkError(
        'http',
        `The internal endpoint answered ${response.status}; the result is retried.`,
        String(response.status),
      );
    }
  };
}
