import type { VerificationPayload } from '../wire/payload/types.js';
import { fixturePayload } from './fixture-payload.js';

/** Values no real data contains, and where to look for them. See {@link privacyCanary}. */
export interface PrivacyCanary {
  readonly externalUserId: string;
  /** A signed-looking image URL: its path and its signature are canaries of their own. */
  readonly frontImageUrl: string;
  readonly reason: string;
  /** A `verification.completed` payload carrying the canaries (`fixturePayload` otherwise). */
  payload(overrides?: Partial<VerificationPayload>): VerificationPayload;
  /**
   * The canaries found in clear in `where`: text (a log, a dump), or any value, searched
   * through its strings, bytes (as UTF-8), arrays, maps, sets and objects. `[]` when none is.
   */
  foundIn(where: unknown): string[];
}

const decoder = new TextDecoder();

/** Every string inside `value`, depth first, with bytes read as UTF-8. */
function stringsOf(value: unknown, out: string[], seen: Set<object>): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (value instanceof Uint8Array) out.push(decoder.decode(value));
  else if (value !== null && typeof value === 'object') {
    if (seen.has(value)) return;
    seen.add(value);
    const entries =
      value instanceof Map
        ? [...value.entries()].flat()
        : value instanceof Set
          ? [...value]
          : Array.isArray(value)
            ? value
            : Object.entries(value).flat();
    for (const entry of entries) stringsOf(entry, out, seen);
  }
}

/**
 * Recognisable personal data for a privacy test: seed a result with it, run the app, then
 * look for it wherever it must not be in clear (a dump of the store, captured log lines,
 * exported spans and metrics, dead letters listed by an operator tool). Each call makes new
 * values, so runs never find each other's.
 *
 * @example
 * const canary = privacyCanary();
 * await receiver.receive(await signedDelivery(canary.payload(), { secret }));
 * expect(canary.foundIn(await dumpRedis())).toEqual([]);
 * expect(canary.foundIn(logLines)).toEqual([]);
 */
export function privacyCanary(): PrivacyCanary {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
  const externalUserId = `canary-user-${id}`;
  const imagePath = `canary-face-${id}`;
  const signature = `canary-sig-${id}`;
  const frontImageUrl = `https://files.example.test/front/${imagePath}.jpg?sig=${signature}`;
  const reason = `canary-reason-${id}`;
  const canaries = [externalUserId, imagePath, signature, reason];
  return {
    externalUserId,
    frontImageUrl,
    reason,
    payload: (overrides = {}) =>
      fixturePayload({ external_user_id: externalUserId, frontImageUrl, reason, ...overrides }),
    foundIn(where) {
      const strings: string[] = [];
      stringsOf(where, strings, new Set());
      return canaries.filter((canary) => strings.some((text) => text.includes(canary)));
    },
  };
}
