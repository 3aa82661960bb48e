import type { Ledger } from './ledger.js';

/**
 * How far apart two instances may place one moment on the store's clock: a clock stepped by
 * up to 120 s is measured against the store's again within 30 s, and leases and session starts
 * follow the measurement meanwhile.
 */
const CLOCK_ERROR_MS = 150_000;

/**
 * Results that know their place (docs/guarantees.md, "Superseded results"):
 * - a result skipped as superseded was of a user who had started another session around or
 *   after it: never one of a user with no other session;
 * - with `supersededResults: 'skip'`, no handler sees a result of a user older (by
 *   `sessionStartedAt`) than one a handler already saw for that user. Past what the promise
 *   covers, a result may: once the newer session's record is gone (`replayWindowMs` after it
 *   closed, which is after a handler saw it), or lost by the store.
 */
export function supersededViolations(
  ledger: Ledger,
  { skip, replayWindowMs }: { skip: boolean; replayWindowMs: number },
): string[] {
  const violations: string[] = [];
  for (const skipped of ledger.skipped) {
    const started = skipped.token === undefined ? undefined : ledger.tracked.get(skipped.token);
    const newer = [...ledger.users].some(
      ([token, user]) =>
        user === skipped.user &&
        token !== skipped.token &&
        started !== undefined &&
        ledger.tracked.get(token)! > started - CLOCK_ERROR_MS,
    );
    if (!newer) {
      violations.push(
        `skipped wrongly: ${skipped.token ?? 'a result of no session'} was skipped as superseded (instance ${skipped.instance}), and its user started no other session after it`,
      );
    }
  }
  if (!skip) return violations;
  const newest = new Map<string, { at: number; startedAt: number; token: string | undefined }>();
  for (const run of ledger.seen) {
    if (run.sessionStartedAt === undefined) continue;
    const before = newest.get(run.user);
    if (!before || run.sessionStartedAt >= before.startedAt) {
      newest.set(run.user, { at: run.at, startedAt: run.sessionStartedAt, token: run.token });
      continue;
    }
    // The newer session's record closed after its handler began, and is kept that long.
    if (run.at > before.at + replayWindowMs) continue;
    // A store that lost data may have lost the newer session's record with it.
    const lost = ledger.storeLosses.some(
      (loss) => loss.at <= run.at && loss.at >= before.startedAt - CLOCK_ERROR_MS,
    );
    if (lost) continue;
    violations.push(
      `backwards: instance ${run.instance} handed ${run.token ?? 'a result'} (its session started at ${run.sessionStartedAt}) to a handler ${Math.round((run.at - before.at) / 1000)} s after ${before.token ?? 'a result'} of the same user (started at ${before.startedAt}), with supersededResults: 'skip'`,
    );
  }
  return violations;
}
