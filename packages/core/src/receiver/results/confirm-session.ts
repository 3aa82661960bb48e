import { isPathSegment } from '../../client/path-segment.js';
import type { DeliveryContext } from '../../delivery/delivery-context.js';
import { type PollContext, pollLeased } from '../../delivery/poll-session.js';
import { requireClient } from '../../delivery/require-client.js';
import { sessionClient } from '../../delivery/session-client.js';
import { isConfirmed, isOpen } from '../../store/store.js';
import type { VerificationPayload } from '../../wire/payload/types.js';

/** What `confirm()` works with: polls', and a lease of its own on the store's clock. */
type ConfirmContext = PollContext & Pick<DeliveryContext, 'clockReady' | 'newOwner'>;

/** The authoritative state of a session, as `confirm` found it. */
export interface ConfirmedSession {
  status: 'pending' | 'verified' | 'failed' | 'expired' | 'unknown';
  result?: VerificationPayload;
  /**
   * `true` when the result is known to be superseded: its user had started a newer session
   * when it was settled (`event.superseded`). With `supersededResults: 'skip'` the handlers
   * never saw it; the newer session decides.
   */
  superseded?: true;
}

// An answer is shared by every confirm() of its token for this long: a page reloaded, or
// opened by many, costs the service one read.
const ANSWER_SHARED_MS = 2_000;

const UNKNOWN: ConfirmedSession = { status: 'unknown' };

/** Options of `receiver.confirm()`. */
export interface ConfirmOptions {
  /**
   * On a Receiver of several accounts: the account the token must be of (the return page's
   * account). A token of another account is `unknown`. Without it, the session's own account
   * is asked, whichever it is.
   */
  account?: string;
}

/**
 * `receiver.confirm(token)`. It runs on the integrator's return page, which anyone can load
 * with any token, so what it costs the service is bounded by what this Receiver tracks:
 * - a token this Receiver does not track (or that is no path segment) is answered
 *   `unknown` without a request;
 * - a closed session whose result the service already confirmed is answered from the store;
 * - otherwise one `GET /v1/sessions/:token` per token at a time, its answer shared for
 *   {@link ANSWER_SHARED_MS}, sent after the Tracker's polls and webhook confirmations and
 *   never waiting out a `429`: `RateLimitError` is thrown at once with `retryAfterMs`.
 * A completed result of a tracked session is delivered to handlers (once) before it resolves.
 */
export function createConfirmSession(
  context: ConfirmContext,
): (token: string, options?: ConfirmOptions) => Promise<ConfirmedSession> {
  const shared = new Map<string, Promise<ConfirmedSession>>();
  return async (token, options) => {
    if (!context.accounts) requireClient(context, 'confirm()');
    if (!isPathSegment(token)) return UNKNOWN;
    const account = options?.account;
    // Calls scoped to an account share an answer only with calls scoped alike.
    const key = account === undefined ? token : `${account}\u0000${token}`;
    const known = shared.get(key);
    if (known) return known;
    const answer = confirmOnce(context, token, account);
    shared.set(key, answer);
    const forget = () => {
      context.clock.setTimeout(() => shared.delete(key), ANSWER_SHARED_MS);
    };
    answer.then(forget, () => shared.delete(key));
    return answer;
  };
}

async function confirmOnce(
  context: ConfirmContext,
  token: string,
  account: string | undefined,
): Promise<ConfirmedSession> {
  const { store } = context;
  await context.clockReady();
  const record = await store.get({ key: token, now: context.now() });
  if (!record?.token) return UNKNOWN;
  // Of another account (or of none): unknown, as a token this Receiver does not track.
  if (account !== undefined && record.account !== account) return UNKNOWN;
  if (!isOpen(record.state)) {
    if (record.state === 'expired') return { status: 'expired' };
    if (record.result && isConfirmed(record.result)) {
      const { payload, superseded } = record.result;
      return superseded
        ? { status: payload.status, result: payload, superseded: true }
        : { status: payload.status, result: payload };
    }
  } else {
    const owner = context.newOwner();
    const session = await store.lease({
      key: token,
      owner,
      now: context.now(),
      leaseMs: context.leaseMs,
    });
    if (session) {
      const polled = await pollLeased(context, session, owner, {
        ask: true,
        priority: 'interactive',
        via: 'confirm',
      });
      if (polled.outcome === 'retry-later') throw polled.error;
      if (!polled.result) return { status: polled.status };
      return polled.event?.superseded
        ? { status: polled.status, result: polled.result, superseded: true }
        : { status: polled.status, result: polled.result };
    }
  }
  // Worked on elsewhere, or closed on a webhook's word alone: the service says, asked
  // with the key of the session's account (of an account gone, nobody is asked).
  const client = await sessionClient(context, record, 'confirm()');
  if (!client) return isOpen(record.state) ? { status: 'pending' } : UNKNOWN;
  const snapshot = await client.getSession(token, { priority: 'interactive' });
  return snapshot.result
    ? { status: snapshot.status, result: snapshot.result }
    : { status: snapshot.status };
}
