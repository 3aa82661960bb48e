import { assertKnownOptions } from '../../base/config/known-options.js';
import { ConfigurationError } from '../../base/errors.js';
import { positive } from '../option-numbers.js';

const MINUTE = 60_000;

/**
 * How `startVerification` shares and bounds sessions (the Receiver's `starts` option). Counts
 * and shared sessions live in the store, so every instance sharing it agrees.
 *
 * @example
 * createReceiver({ starts: { perUserPerDay: 5, perAccountPerDay: 2_000 } });
 */
export interface StartsOption {
  /**
   * A start of the same user and purpose hands out the open session again while it has this
   * much life left (of `sessionLifetimeMs`); with less, a new one is created. Default 5 min,
   * or half of `sessionLifetimeMs` when that is shorter.
   */
  reuseMinLifetimeMs?: number;
  /**
   * Sessions one user may start in a UTC day, reused ones not counted; one more is refused with
   * `StartLimitError` before anything is sent to the service. Default 10; `Infinity` for none.
   * On a Receiver of several accounts, a user of each account is counted apart.
   */
  perUserPerDay?: number;
  /**
   * Sessions an account may start in a UTC day (every account its own count on a Receiver of
   * several). Default: no limit. Set it to bound what a script posing as many users can cost.
   */
  perAccountPerDay?: number;
  /**
   * How long one instance's start of a session keeps others of the same user and purpose
   * waiting for it, at most: longer than creating a session takes (pacing and retries
   * included). Past it (the instance crashed), another start creates one. Default 2 min.
   */
  claimMs?: number;
}

// A record, not a list, so that the compiler insists on every option of StartsOption.
const STARTS_OPTIONS: Record<keyof StartsOption, true> = {
  reuseMinLifetimeMs: true,
  perUserPerDay: true,
  perAccountPerDay: true,
  claimMs: true,
};

/** `StartsOption` with every default applied. */
export interface ResolvedStarts {
  reuseMinLifetimeMs: number;
  perUserPerDay: number;
  perAccountPerDay: number;
  claimMs: number;
}

function limit(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (resolved !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(resolved) || resolved < 1)) {
    throw new ConfigurationError(
      `Receiver option "starts.${name}" must be a whole number of at least 1, or Infinity for no limit.`,
    );
  }
  return resolved;
}

export function resolveStarts(
  option: StartsOption | undefined,
  sessionLifetimeMs: number,
): ResolvedStarts {
  if (option !== undefined) {
    assertKnownOptions('createReceiver({ starts })', option, Object.keys(STARTS_OPTIONS));
  }
  const reuseMinLifetimeMs = positive(
    'starts.reuseMinLifetimeMs',
    option?.reuseMinLifetimeMs,
    Math.min(5 * MINUTE, sessionLifetimeMs / 2),
  );
  if (reuseMinLifetimeMs >= sessionLifetimeMs) {
    throw new ConfigurationError(
      `Receiver option "starts.reuseMinLifetimeMs" (${reuseMinLifetimeMs} ms) must be shorter than sessionLifetimeMs (${sessionLifetimeMs} ms), or no session would ever be handed out again.`,
    );
  }
  return {
    reuseMinLifetimeMs,
    perUserPerDay: limit('perUserPerDay', option?.perUserPerDay, 10),
    perAccountPerDay: limit('perAccountPerDay', option?.perAccountPerDay, Number.POSITIVE_INFINITY),
    claimMs: positive('starts.claimMs', option?.claimMs, 2 * MINUTE),
  };
}
