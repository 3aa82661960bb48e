// Distinct, correctly signed `verification.completed` bodies for load tests. Every body differs
// (its external_user_id carries a counter), so a Receiver's replay window never turns a request
// into a cheap duplicate: each one is verified, parsed, stored and handed to the handler.
import { createHmac } from 'node:crypto';

export const SECRET = 'whsec_bench_http_5b1d7e3a9c0f2468';
export const WEBHOOK_PATH = '/webhooks/verification';
const ID_DIGITS = 12;

/**
 * A factory of webhook bodies of exactly `size` bytes: `body(n)` is a Buffer whose user id is
 * `user_<tag>_<n, 12 digits>`; everything else is the same fixed, valid payload.
 */
export function bodyFactory({ size = 2048, tag = 'b' } = {}) {
  const head =
    '{"event":"verification.completed","status":"verified","external_user_id":"user_' + tag + '_';
  const middle =
    '","confidence":0.9731,"livenessPassed":true,"duplicate":false,"risk":"low",' +
    '"reason":null,"frontImageUrl":"https://files.example.com/sessions/3f9a1c0e/front.jpg",' +
    '"notes":"';
  const tail = '"}';
  const fill = size - head.length - ID_DIGITS - middle.length - tail.length;
  if (fill < 0) throw new Error(`a body of ${size} bytes is smaller than its fixed fields`);
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit ';
  const template = Buffer.from(
    head +
      '0'.repeat(ID_DIGITS) +
      middle +
      words.repeat(Math.ceil(fill / words.length)).slice(0, fill) +
      tail,
    'latin1',
  );
  const idOffset = head.length;
  JSON.parse(template.toString('utf8'));
  return (n) => {
    const body = Buffer.allocUnsafe(template.length);
    template.copy(body);
    body.write(String(n).padStart(ID_DIGITS, '0'), idOffset, 'latin1');
    return body;
  };
}

/** Lowercase hex HMAC-SHA256, as the service signs. */
export function signHex(body, secret = SECRET) {
  return createHmac('sha256', secret).update(body).digest('hex');
}

const WRONG_SECRET = 'whsec_bench_http_not_the_servers_secret';

/**
 * The headers of one delivery. The same request goes to every server in a comparison, so it
 * carries both our signature header and GitHub's (for the Octokit reference row).
 * `signing`: `valid` (the server's secret), `wrong` (a well-formed signature made with another
 * secret) or `unsigned` (no signature header at all).
 */
export function deliveryHeaders(body, n, signing = 'valid') {
  const headers = {
    'content-type': 'application/json',
    'x-github-event': 'ping',
    'x-github-delivery': `d-${n}`,
  };
  if (signing === 'unsigned') return headers;
  const hex = signHex(body, signing === 'wrong' ? WRONG_SECRET : SECRET);
  return { ...headers, 'x-webhook-signature': hex, 'x-hub-signature-256': `sha256=${hex}` };
}

/**
 * A request source for autocannon: every request gets the next body of one sequence. Two
 * sources built alike send the very same bodies in the same order, so a baseline and a
 * candidate see identical traffic. `signing` as in `deliveryHeaders`.
 */
export function requestSource({ size = 2048, tag = 'b', signing = 'valid' } = {}) {
  const body = bodyFactory({ size, tag });
  let next = 0;
  return {
    get sent() {
      return next;
    },
    requests: [
      {
        method: 'POST',
        path: WEBHOOK_PATH,
        setupRequest(request) {
          const n = next++;
          const bytes = body(n);
          request.body = bytes;
          request.headers = deliveryHeaders(bytes, n, signing);
          return request;
        },
      },
    ],
  };
}
