import { isOpen, type TrackedSession } from '../store/store.js';
import { OUTCOME_FIELDS } from '../wire/payload/outcome-fields.js';
import type { VerificationPayload } from '../wire/payload/types.js';

/** How a verified webhook relates to the sessions tracked for its user. */
export type Correlation =
  | { kind: 'session'; key: string; by: 'token' | 'user' }
  | { kind: 'duplicate' }
  | { kind: 'ambiguous'; keys: string[] }
  | { kind: 'none' };

const TOKEN_FIELDS = ['token', 'session_token', 'sessionToken'] as const;

function tokenField(payload: VerificationPayload): string | undefined {
  for (const field of TOKEN_FIELDS) {
    const value = payload.extra[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** Whether two payloads report the same outcome (the fields a replay would share). */
export function sameOutcome(a: VerificationPayload, b: VerificationPayload): boolean {
  return OUTCOME_FIELDS.every((field) => a[field] === b[field]);
}

/**
 * The webhook carries no session token, so (docs/assumptions.md):
 * 1. a token field, if the service ever sends one, names the session;
 * 2. a session of this user already closed with the same outcome makes it a duplicate
 *    (its result already came by polling);
 * 3. one open session of the user is that session;
 * 4. several open sessions are settled by polling each of them;
 * 5. no open session: the result is delivered on its own, never dropped.
 */
export function correlate(payload: VerificationPayload, sessions: TrackedSession[]): Correlation {
  const token = tokenField(payload);
  if (token && sessions.some((session) => session.key === token)) {
    return { kind: 'session', key: token, by: 'token' };
  }
  const closedAlike = sessions.some(
    (session) =>
      !isOpen(session.state) && session.result && sameOutcome(session.result.payload, payload),
  );
  if (closedAlike) return { kind: 'duplicate' };
  // A session whose token this instance cannot open is still the user's session: the webhook
  // is kept with it for an instance that can open it to confirm.
  const open = sessions.filter(
    (session) => isOpen(session.state) && (session.token || session.unreadableToken),
  );
  if (open.length === 1) return { kind: 'session', key: open[0]!.key, by: 'user' };
  if (open.length > 1) return { kind: 'ambiguous', keys: open.map((session) => session.key) };
  return { kind: 'none' };
}
