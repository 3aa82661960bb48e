import type { Ledger } from './ledger.js';
import type { ServiceModel } from './service-model.js';
import { strangerViolations } from './stranger-invariant.js';

const OUTCOME_FIELDS = [
  'status',
  'external_user_id',
  'confidence',
  'livenessPassed',
  'duplicate',
  'risk',
  'reason',
] as const;

/**
 * Alarms about a setup that is wrong. Every simulated configuration is right, so any of these
 * was raised by strangers' requests or by faults, which must not move them. (`webhooks_missing`
 * is not among them: a run drops webhooks on purpose, and then it is true.)
 */
const SETUP_ALARMS = new Set(['secret_mismatch', 'raw_body_unavailable']);

/** What the service's webhook of a tracked session is answered by an instance that missed it. */
const MISSED_ANSWERS = new Set(['untracked', 'contradicted']);

/** The longest a simulated handler runs (`hang`): a delivery leased before a loss ends by then. */
const LONGEST_HANDLER_MS = 15 * 60_000;

/** Alarms by which a store says it lost acknowledged data. */
const LOSS_ALARMS = new Set(['store_reset', 'store_rewound']);

/**
 * The promises of docs/guarantees.md, checked on what a run left behind. Each violation is one
 * line saying which promise broke and for which session.
 */
export function checkInvariants(
  ledger: Ledger,
  service: ServiceModel,
  tracked: ReadonlySet<string>,
  { sessionLifetimeMs }: { sessionLifetimeMs: number },
): string[] {
  const violations: string[] = [];
  // What a loss of the store excuses is scoped to what it lost: the writes between `since`
  // and `at` (everything before `at` when it was emptied). A session whose record was written
  // in that window may be unknown afterwards; a success recorded in it may be delivered again.
  const lostRecordOf = (token: string) => {
    const trackedAt = ledger.tracked.get(token);
    if (trackedAt === undefined) return undefined;
    return ledger.storeLosses.find((loss) => loss.since <= trackedAt && trackedAt <= loss.at);
  };
  // A delivery under way across the loss counts too: its lease may be among the lost writes.
  const lostSuccessBetween = (first: number, again: number) =>
    ledger.storeLosses.some(
      (loss) => loss.since <= first && first <= loss.at + LONGEST_HANDLER_MS && loss.at <= again,
    );
  // A loss while no instance ran looks like a new store to the next one (docs/assumptions.md,
  // 25): what it lost is excused above all the same, but no alarm is owed for it.
  for (const loss of ledger.storeLosses.filter(({ witnessed }) => witnessed)) {
    const told = ledger.alerts.some((alert) => LOSS_ALARMS.has(alert.code) && alert.at >= loss.at);
    if (!told) {
      violations.push(
        `silent loss: the store was ${loss.kind} (${loss.lost} it had acknowledged, lost) and no instance raised store_reset or store_rewound`,
      );
    }
  }
  for (const alert of ledger.alerts.filter((alert) => SETUP_ALARMS.has(alert.code))) {
    violations.push(
      `false alarm: instance ${alert.instance} raised ${alert.code} though its configuration is right`,
    );
  }
  if (ledger.unhandled.length > 0) {
    violations.push(`unhandled rejections: ${ledger.unhandled.join('; ')}`);
  }
  const byToken = new Map<string, number>();
  const deliveredAt = new Map<string, number[]>();
  for (const commit of ledger.commits) {
    // Nothing delivered that the service did not say.
    const session = commit.token === undefined ? undefined : service.sessions.get(commit.token);
    if (!session?.result) {
      violations.push(
        `forged: a result for ${commit.token ?? 'no session'} was delivered (${commit.source}, by instance ${commit.instance}) that the service never gave`,
      );
      continue;
    }
    const differs = OUTCOME_FIELDS.filter((field) => session.result![field] !== commit.data[field]);
    if (differs.length > 0) {
      violations.push(
        `forged: ${commit.token} was delivered with ${differs.join(', ')} other than the service's result (${commit.source}, instance ${commit.instance})`,
      );
    }
    if (!commit.confirmed) {
      violations.push(`unconfirmed: ${commit.token} was delivered with confirmed: false`);
    }
    byToken.set(session.token, (byToken.get(session.token) ?? 0) + 1);
    deliveredAt.set(session.token, [...(deliveredAt.get(session.token) ?? []), commit.at]);
  }
  // Every instance, at every step of a rotation, finds every tracked session by its user: the
  // service's own webhook of one is never answered as if nobody tracked it (`untracked`), nor
  // taken for another session of the user (`contradicted`). Only a store that said it lost
  // data may. (Its result would still come by polling, later.)
  for (const answer of ledger.webhookAnswers) {
    if (!MISSED_ANSWERS.has(answer.answer) || !tracked.has(answer.token)) continue;
    const loss = lostRecordOf(answer.token);
    if (loss && loss.at <= answer.at) continue;
    violations.push(
      `not found: the webhook of ${answer.token}, a tracked session, was answered ${answer.answer} by instance ${answer.instance}`,
    );
  }
  violations.push(...lifetimeViolations(ledger, service, sessionLifetimeMs));
  violations.push(...strangerViolations(ledger));
  // None handled twice, beyond what "Who may run twice" lists: each delivery again follows
  // a process that died mid-delivery, or a loss of the store that took the recorded success.
  for (const [token, times] of deliveredAt) {
    if (times.length < 2 || ledger.mayRunTwice.has(token)) continue;
    const unexplained = times.slice(1).filter((again, index) => {
      return !times.slice(0, index + 1).some((first) => lostSuccessBetween(first, again));
    });
    if (unexplained.length > 0) {
      violations.push(`twice: ${token} was handled ${times.length} times`);
    }
  }
  // No result lost: every session the service completed and the app tracked is delivered,
  // or given up as a dead letter, or its loss was told by the store.
  for (const token of tracked) {
    const session = service.sessions.get(token);
    if (!session?.result) continue;
    if (byToken.has(token)) continue;
    if (ledger.undeliverable.some((letter) => letter.token === token)) continue;
    // Settled without the handlers: its user had started a newer session (superseded-invariant.ts).
    if (ledger.skipped.some((skipped) => skipped.token === token)) continue;
    if (lostRecordOf(token)) continue;
    const expired = ledger.expired.find((event) => event.token === token);
    violations.push(
      expired
        ? `lost: ${token} was completed at the service but given up as expired (${expired.reason})`
        : `lost: ${token} was completed at the service and never delivered`,
    );
  }
  return violations;
}

/**
 * The session's lifetime bounds every path: once a look at a session failed at or after its
 * `expiresAt` (its record's creation plus `sessionLifetimeMs`), the session is given up. The
 * service is not asked about it again, and no result of it (a kept claim) is delivered.
 */
function lifetimeViolations(
  ledger: Ledger,
  service: ServiceModel,
  sessionLifetimeMs: number,
): string[] {
  const violations: string[] = [];
  const byTokenId = new Map<string, string>();
  for (const token of ledger.tracked.keys()) byTokenId.set(`${token.slice(0, 6)}…`, token);
  const reported = new Set<string>();
  for (const failure of ledger.pollErrors) {
    const token = byTokenId.get(failure.tokenId);
    const trackedAt = token === undefined ? undefined : ledger.tracked.get(token);
    if (token === undefined || trackedAt === undefined || reported.has(token)) continue;
    const expiresAt = trackedAt + sessionLifetimeMs;
    if (failure.at < expiresAt) continue;
    const asked = service.reads.filter((read) => read.token === token && read.at > failure.at);
    const delivered = ledger.commits.filter(
      (commit) => commit.token === token && commit.at > failure.at,
    );
    if (asked.length === 0 && delivered.length === 0) continue;
    reported.add(token);
    const late = Math.round((failure.at - expiresAt) / 1000);
    violations.push(
      `worked after its lifetime: a look at ${token} failed ${late} s past its expiresAt (instance ${failure.instance}), and then the service was asked about it ${asked.length} more times and it was delivered ${delivered.length} times`,
    );
  }
  return violations;
}
