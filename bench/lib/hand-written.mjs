// The hand-written receivers the library is compared with, written plainly: `handWritten`
// (verify, parse, count) and `keptPromises`, which keeps besides, the obvious way, what the
// Receiver keeps in process and, with `atRest`, at rest. The HTTP benchmark's servers
// (http-server.mjs) answer with them in each framework; at-rest.bench.mjs calls them in process
// beside `receiver.receive()`.
import { createCipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SECRET } from './webhook-bodies.mjs';

/** How long a body may take to arrive: each framework's server aborts it past this. */
export const BODY_TIMEOUT_MS = 10_000;

/**
 * The hand-written receivers, with state of their own.
 * @param {{ atRest?: boolean, retries?: boolean, onHandled?: () => void }} options
 *   `atRest`: `keptPromises` keeps what the Receiver keeps at rest too; `retries`: a timer
 *   retries results whose handler threw (never keeping the process alive); `onHandled`: called
 *   for each result handled.
 */
export function handWrittenReceivers({
  atRest = false,
  retries = false,
  onHandled = () => {},
} = {}) {
  /** The hand-written check every baseline uses: HMAC of the raw bytes, constant-time compare. */
  function signatureMatches(body, header) {
    if (typeof header !== 'string') return false;
    const expected = Buffer.from(header, 'hex');
    const actual = createHmac('sha256', SECRET).update(body).digest();
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /**
   * Baseline logic shared by every framework: verify, parse, count; returns [status, body].
   * @param {Buffer} body
   * @param {string | string[] | undefined} header
   * @returns {[200 | 400 | 401, Record<string, unknown>]}
   */
  function handWritten(body, header) {
    if (!signatureMatches(body, header)) return [401, { error: 'signature_invalid' }];
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      return [400, { error: 'payload_invalid' }];
    }
    onHandled();
    return [200, { received: true }];
  }

  // ---- the hand-written receiver that keeps the same promises, written plainly ----------------
  //
  // What the Receiver keeps in process on its accept path, each done the obvious way:
  // - the replay window: a Map of body digest -> expiry, pruned from its oldest entry (every
  //   digest lives as long, so insertion order is expiry order);
  // - a record that survives a throwing handler: the result waits in a Map until its handler
  //   returned, and one that threw is retried later by a timer;
  // - the body deadline: a timer per request that aborts a body still arriving after 10 s
  //   (set by each framework's server, http-server.mjs);
  // - the rate-limited rejection log: at most one line a minute per kind of rejection.
  const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
  const RETRY_AFTER_MS = 30_000;
  const REJECTION_LOG_INTERVAL_MS = 60_000;

  /** Body digest (SHA-256, hex) -> when it may be accepted again. */
  const seenDigests = new Map();
  /** Body digest -> a result whose handler has not returned yet, or threw. */
  const pendingResults = new Map();
  /** Kind of rejection -> when it was last logged. */
  const rejectionLoggedAt = new Map();

  function logRejection(kind) {
    const now = Date.now();
    const last = rejectionLoggedAt.get(kind);
    if (last !== undefined && now - last < REJECTION_LOG_INTERVAL_MS) return;
    rejectionLoggedAt.set(kind, now);
    console.warn(`webhook rejected: ${kind} (logged at most once a minute)`);
  }

  /** The application's handler, as in every other server here. */
  async function handleResult(_payload) {
    onHandled();
  }

  /** Runs the handler of one pending result; it stays pending, due again later, if it throws. */
  async function deliverPending(digest, pending) {
    try {
      await handleResult(pending.payload);
      pendingResults.delete(digest);
      return true;
    } catch {
      pending.attempts++;
      pending.dueAt = Date.now() + RETRY_AFTER_MS;
      return false;
    }
  }

  // Results whose handler threw are retried by a timer; it never keeps the process alive.
  if (retries) {
    setInterval(() => {
      const now = Date.now();
      for (const [digest, pending] of pendingResults) {
        if (pending.dueAt <= now) deliverPending(digest, pending);
      }
    }, 5_000).unref();
  }

  // ---- what the Receiver keeps at rest, written plainly (with `atRest`) --------------
  //
  // A store never holds a user's id or a session's token in clear, nor a result: the Receiver
  // keeps the user id and the record key as HMAC-SHA256 under a key the store never sees, and
  // the whole result sealed with AES-256-GCM (the record key as associated data), base64url
  // (docs/guarantees.md, 19 and 27). Here each is done with node:crypto, the obvious way, and
  // the record kept in a Map of the same bound as the Receiver's caches.
  const AT_REST_KEY = randomBytes(32);
  const AT_REST_LIMIT = 4096;
  /** Record key -> the user's keyed hash and the sealed result. */
  const keptAtRest = new Map();

  function keepAtRest(payload, digest, now) {
    const keyed = (text) => createHmac('sha256', AT_REST_KEY).update(text).digest('base64url');
    const user = keyed(String(payload.external_user_id));
    const recordKey = keyed(digest);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', AT_REST_KEY, iv).setAAD(Buffer.from(recordKey));
    const plain = Buffer.from(JSON.stringify({ payload, source: 'webhook', receivedAt: now }));
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    keptAtRest.set(recordKey, { user, result: sealed.toString('base64url') });
    if (keptAtRest.size > AT_REST_LIMIT) keptAtRest.delete(keptAtRest.keys().next().value);
  }

  /**
   * The hand-written receiver with the promises kept: verify, parse, the replay window, the
   * pending record, the handler; returns [status, body].
   * @param {Buffer} body
   * @param {string | string[] | undefined} header
   * @returns {Promise<[number, Record<string, unknown>]>}
   */
  async function keptPromises(body, header) {
    if (typeof header !== 'string') {
      logRejection('signature_missing');
      return [401, { error: 'signature_missing' }];
    }
    if (!signatureMatches(body, header)) {
      logRejection('signature_invalid');
      return [401, { error: 'signature_invalid' }];
    }
    let payload;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      logRejection('payload_invalid');
      return [400, { error: 'payload_invalid' }];
    }
    const now = Date.now();
    for (const [digest, expiresAt] of seenDigests) {
      if (expiresAt > now) break;
      seenDigests.delete(digest);
    }
    const digest = createHash('sha256').update(body).digest('hex');
    if (seenDigests.has(digest)) return [200, { received: true, duplicate: true }];
    seenDigests.set(digest, now + REPLAY_WINDOW_MS);
    if (atRest) keepAtRest(payload, digest, now);
    const pending = { payload, attempts: 1, dueAt: now + RETRY_AFTER_MS };
    pendingResults.set(digest, pending);
    if (await deliverPending(digest, pending)) return [200, { received: true }];
    return [500, { error: 'handler_failed' }];
  }

  return { handWritten, keptPromises };
}
