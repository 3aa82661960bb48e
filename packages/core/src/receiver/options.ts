import { AccountDirectory } from '../accounts/account-directory.js';
import type { AccountsOption } from '../accounts/accounts-option.js';
import { type Clock, systemClock } from '../base/clock/clock.js';
import { ENV, readEnv } from '../base/config/env.js';
import { assertKnownOptions } from '../base/config/known-options.js';
import { ConfigurationError } from '../base/errors.js';
import { createLog, type Log, type Logger } from '../base/logging/logger.js';
import type { Client, ClientOptions } from '../client/index.js';
import { createClient } from '../client/index.js';
import { isClient } from '../client/is-client.js';
import { followsStoreClock } from '../operations/store-clock-choice.js';
import type { ReceiverTelemetry } from '../operations/telemetry/receiver-telemetry.js';
import { MemoryStore } from '../store/memory-store.js';
import { tokenKeySecrets } from '../store/sealed/token-keys.js';
import { TokenProtectingStore } from '../store/sealed/token-protecting-store.js';
import type { Store } from '../store/store.js';
import { warnAboutShortSecrets } from '../wire/signature/secret-strength.js';
import {
  type LabeledSecret,
  requireSecrets,
  type WebhookSecrets,
} from '../wire/signature/secrets.js';
import { positive, whole } from './option-numbers.js';
import { type ResolvedStarts, resolveStarts, type StartsOption } from './starts/starts-option.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Options of `createReceiver`. Every option has a default; with none at all the Receiver
 * reads `FACEVERIFY_WEBHOOK_SECRET`, `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL`.
 */
export interface ReceiverOptions {
  /**
   * Webhook signing secret(s): several during a rotation, every one verifies. Without
   * `tokenKeys` the first also keys new sessions in the store, so a rotation adds a new one
   * last, then moves it first (docs/security.md, Rotation). Labels show in logs and events.
   * Default: `FACEVERIFY_WEBHOOK_SECRET`, comma-separated.
   */
  secret?: WebhookSecrets;
  /**
   * The API client used to start verifications and to poll, or options to build one.
   * `false` makes a webhook-only Receiver. Default: a client from `FACEVERIFY_API_KEY` and
   * `FACEVERIFY_BASE_URL` when the key is set, else webhook-only.
   */
  client?: Client | ClientOptions | false;
  /** Tracking, dedup and retry state. Default: a new `MemoryStore` (lost on restart). */
  store?: Store;
  /**
   * Dedicated keys that protect session tokens in the store (each at least 32 characters,
   * e.g. from `openssl rand -base64 32`). The store keys each record by an HMAC-SHA256 of its
   * token and keeps the token sealed with AES-256-GCM until the session closes; the first key
   * keys new sessions, every key seals (the signing secrets then seal nothing new), and every
   * key is tried on lookup: by token, the signing secrets too; by user, the token keys alone (a
   * webhook's user is looked up once per key, not once more under a signing secret that keys
   * nothing). A new key is added last, then moved first once every instance lists it, the old
   * one removed a session lifetime later; set for the first time, the signing secret is the old
   * key ("Session tokens at rest" in docs/polling-and-stores.md).
   * Default: `FACEVERIFY_TOKEN_KEYS`, comma-separated; without it the keys are derived
   * (HKDF) from the webhook signing secrets, which the store never holds.
   *
   * @example
   * createReceiver({ tokenKeys: [process.env.TOKEN_KEY_2027!, process.env.TOKEN_KEY_2026!] });
   */
  tokenKeys?: ReadonlyArray<string>;
  /**
   * Also look each webhook's user up under the id in clear, as versions before user ids were
   * hashed stored it: one more store lookup per webhook. Set it when upgrading from such a
   * version, and remove it one `replayWindowMs` (24 h) after every instance runs the new one
   * ("Results at rest" in docs/polling-and-stores.md). Default: `false`.
   */
  lookUpClearUserIds?: boolean;
  /**
   * Several accounts of the service on one Receiver (one store, one sweep): a map from
   * account id to its `secret` and `client`, or a resolver for accounts kept elsewhere (see
   * `AccountResolver`). Each account's webhooks arrive on its own path
   * (`/webhooks/verification/:account`) and are verified with its secrets only; records,
   * replay digests and lookups by user are kept apart per account, and the sweep polls each
   * session with its account's key. Replaces `secret` and `client`, and needs `tokenKeys`
   * (`FACEVERIFY_TOKEN_KEYS`): token keys cannot come from secrets that differ per account.
   * See docs/accounts.md.
   *
   * @example
   * createReceiver({
   *   tokenKeys: [process.env.FACEVERIFY_TOKEN_KEY!],
   *   accounts: {
   *     live: { secret: process.env.LIVE_WEBHOOK_SECRET!, client: { apiKey: process.env.LIVE_API_KEY! } },
   *     sandbox: { secret: process.env.SANDBOX_WEBHOOK_SECRET!, client: { apiKey: process.env.SANDBOX_API_KEY! } },
   *   },
   * });
   */
  accounts?: AccountsOption;
  /** Largest accepted body in bytes; larger requests get `413`. Default 256 KiB. */
  maxBodyBytes?: number;
  /** A body already accepted is acknowledged and not handled again for this long. Default 24 h. */
  replayWindowMs?: number;
  /** Past this, `receive` answers `202` and lets handlers finish. Default 4 s. */
  ackAfterMs?: number;
  /** A session never completed within this time is given up (`verification.expired`). Default 30 min. */
  sessionLifetimeMs?: number;
  /**
   * Delays between polls of a pending session; the last one repeats. Default:
   * `FACEVERIFY_POLL_SCHEDULE_MS` (comma-separated milliseconds; the emulator prints a short
   * one for development), else 1, 1, 2, 5 min.
   */
  pollScheduleMs?: readonly number[];
  /**
   * Delays between delivery attempts after a handler failed; the last one repeats.
   * Default 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, then every 4 h.
   */
  retryScheduleMs?: readonly number[];
  /**
   * Delivery attempts before a result is given up as undeliverable: the record is closed as
   * `failed` and `verification.undeliverable` is emitted with the event and the last error.
   * Default 20 (about two days with the default `retryScheduleMs`).
   */
  maxDeliveryAttempts?: number;
  /**
   * Open records (sessions and unmatched deliveries) kept per user. Starting one more
   * gives the oldest up with `verification.expired` (`reason: 'displaced'`). Bounds what a
   * single user can make the Receiver hold and scan. Default 20.
   */
  maxOpenPerUser?: number;
  /**
   * How `startVerification` shares sessions and bounds starts: a start of the same user and
   * purpose hands out the open session again, and each user (default 10 a day) and account
   * (default no limit) may start so many sessions a UTC day. See `StartsOption`.
   *
   * @example
   * createReceiver({ starts: { perUserPerDay: 5, perAccountPerDay: 2_000 } });
   */
  starts?: StartsOption;
  /**
   * Confirms a webhook matched to a session by `external_user_id` with
   * `GET /v1/sessions/:token` before delivering it as that session's result: what the
   * service says wins, and a webhook it contradicts (a replay of an older session's result)
   * is never delivered and is reported as `webhook_contradicted`. Costs one GET per webhook,
   * paced and retried like every poll. Default `true` when the Receiver has a client.
   */
  confirmWebhooks?: boolean;
  /**
   * What to do with a correctly signed webhook that matches no open session this Receiver
   * tracks. The webhook carries no session token, so such a result cannot be confirmed: it
   * may be an old result sent again after the replay memory forgot it (24 h later, or after
   * the store was emptied), and it must not decide a user's state.
   * - `'ignore'` (the default with an API client): acknowledged `200 {untracked: true}`,
   *   reported to `error` handlers with `code: 'webhook_untracked'`, never delivered.
   * - `'deliver'` (the default, and the only choice, without a client): delivered with
   *   `event.confirmed === false`. Choose it when sessions are started outside this Receiver
   *   (another service calls `POST /v1/verify`), and never let such an event override a
   *   confirmed result.
   */
  untrackedWebhooks?: 'ignore' | 'deliver';
  /**
   * What to do with a result whose user (of the same account) has started a newer session
   * since (`event.superseded`): a late webhook of a first attempt after the second passed, a
   * dead letter delivered again, a poll of the older session.
   * - `'deliver'` (the default): delivered as any result, with `superseded: true` and
   *   `sessionStartedAt`, for the app to weigh.
   * - `'skip'`: "the newest session decides". It never reaches the `verification.completed`
   *   handlers: it is recorded as done (never retried, never a dead letter), logged at warn
   *   level, counted (`faceverify.results.superseded`) and passed to
   *   `verification.superseded` handlers. A user whose newer session is never completed then
   *   has no result delivered: they complete the newer one.
   * Known while the newer session's record is kept (docs/guarantees.md, "Superseded results").
   *
   * @example
   * createReceiver({ supersededResults: 'skip' }).on('verification.superseded', ({ event }) => audit(event.id));
   */
  supersededResults?: 'deliver' | 'skip';
  /** How long one worker may hold a session before another may take it over. Default 60 s. */
  leaseMs?: number;
  /** How often `start()` sweeps. Default 5 s. */
  sweepIntervalMs?: number;
  /**
   * Most sessions handled per sweep, leased in batches of this size. Sessions a rate limit
   * turned away without a request (an account's key at its limit, on a Receiver of several)
   * do not count, so the next batch is leased at once. Default 100.
   */
  sweepBatchSize?: number;
  /** Polls and deliveries in flight at once during a sweep. Default 4. */
  sweepConcurrency?: number;
  /**
   * How long a store call may stay unanswered before the `store_slow` alarm is raised, while
   * it is still waiting: webhooks wait on the store, and a sender gives up on a stalled one.
   * Default 5 s.
   */
  storeSlowMs?: number;
  /**
   * Whether log lines and span attributes may carry a result's status (`verified`, `failed`):
   * a face verification outcome is special-category personal data, so by default they carry
   * none (nor the user id or the image URL, which they never carry). Handlers and `error`
   * handlers still get everything. Default `false`.
   */
  includePersonalData?: boolean;
  /**
   * Receives what the Receiver does; secrets, keys and signed URLs never reach it. Default:
   * warnings and errors to the console. `false` silences it; a logger of your own (pino,
   * winston, `console` for every level) replaces the default. The client gets it too.
   */
  logger?: Logger | false;
  /**
   * Time and timers. Tests pass `createTestClock()` from `@faceverify/core/testing` to move
   * time on without waiting. Default: the system clock.
   */
  clock?: Clock;
  /**
   * Keep leases and due times on the store's clock (`Store.readClock`: Redis `TIME`,
   * PostgreSQL `clock_timestamp()`), measured against this process's clock every 30 s, so that
   * instances whose clocks disagree never both hold a lease. Default: `true` when the store
   * has a clock, unless `clock` is a test clock (`createTestClock()`), which then rules alone;
   * a `clock` that follows real time keeps it. `false` is logged as a warning.
   */
  storeClock?: boolean;
  /**
   * Beyond this difference between this process's clock and the store's, a `clock_skew`
   * alarm is raised (leases stay safe on the store's clock; the process's clock needs NTP).
   * Default 10 s.
   */
  maxClockSkewMs?: number;
  /**
   * Metrics and traces of what the Receiver does. `openTelemetry()` from
   * `@faceverify/core/opentelemetry` reports them through `@opentelemetry/api` (see
   * docs/operations.md for every name). Default: none, at no cost.
   */
  telemetry?: ReceiverTelemetry;
}

// A record, not a list, so that the compiler insists on every option of ReceiverOptions.
export const RECEIVER_OPTIONS: Record<keyof ReceiverOptions, true> = {
  secret: true,
  client: true,
  store: true,
  tokenKeys: true,
  lookUpClearUserIds: true,
  accounts: true,
  maxBodyBytes: true,
  replayWindowMs: true,
  ackAfterMs: true,
  sessionLifetimeMs: true,
  pollScheduleMs: true,
  retryScheduleMs: true,
  maxDeliveryAttempts: true,
  maxOpenPerUser: true,
  starts: true,
  confirmWebhooks: true,
  untrackedWebhooks: true,
  supersededResults: true,
  leaseMs: true,
  sweepIntervalMs: true,
  sweepBatchSize: true,
  sweepConcurrency: true,
  storeSlowMs: true,
  includePersonalData: true,
  logger: true,
  clock: true,
  storeClock: true,
  maxClockSkewMs: true,
  telemetry: true,
};

// Client options given to createReceiver directly: name where they go instead.
const CLIENT_OPTIONS_MOVED = {
  apiKey: '`client: { apiKey }`',
  baseUrl: '`client: { baseUrl }`',
  fetch: '`client: { fetch }`',
  timeoutMs: '`client: { timeoutMs }`',
  maxRetries: '`client: { maxRetries }`',
  webhookSecret: '`secret`',
  secrets: '`secret`',
};

/** Options with every default applied. */
export interface ResolvedReceiverOptions {
  /** The signing secrets; none when `accounts` gives each account its own. */
  secrets: LabeledSecret[];
  /** The API client; none for a webhook-only Receiver, or when each account has its own. */
  client: Client | undefined;
  /** The accounts, when the Receiver serves several (`accounts`). */
  accounts: AccountDirectory | undefined;
  /** Every store, wrapped: tokens never reach it in clear (see TokenProtectingStore). */
  store: TokenProtectingStore;
  maxBodyBytes: number;
  replayWindowMs: number;
  ackAfterMs: number;
  sessionLifetimeMs: number;
  pollScheduleMs: readonly number[];
  retryScheduleMs: readonly number[];
  maxDeliveryAttempts: number;
  maxOpenPerUser: number;
  starts: ResolvedStarts;
  confirmWebhooks: boolean;
  untrackedWebhooks: 'ignore' | 'deliver';
  supersededResults: 'deliver' | 'skip';
  leaseMs: number;
  sweepIntervalMs: number;
  sweepBatchSize: number;
  sweepConcurrency: number;
  storeSlowMs: number;
  includePersonalData: boolean;
  log: Log;
  clock: Clock;
  /** Whether leases and due times follow the store's clock (see `storeClock`). */
  storeClock: boolean;
  maxClockSkewMs: number;
  now: () => number;
  telemetry: ReceiverTelemetry | undefined;
}

function resolveClient(
  option: ReceiverOptions['client'],
  logger: Logger | false | undefined,
  clock: Clock,
) {
  if (option === false) return undefined;
  if (isClient(option)) return option;
  if (option === undefined) {
    const apiKey = readEnv(ENV.apiKey);
    const baseUrl = readEnv(ENV.baseUrl);
    if (apiKey === undefined && baseUrl === undefined) return undefined;
    // Half a client is a mistake, not a choice of webhook-only: say so now, not at the first poll.
    if (apiKey === undefined || baseUrl === undefined) {
      const [set, unset] =
        apiKey === undefined ? [ENV.baseUrl, ENV.apiKey] : [ENV.apiKey, ENV.baseUrl];
      throw new ConfigurationError(
        `${set} is set but ${unset} is not: the Receiver needs both to start sessions and poll for lost webhooks. Set ${unset} (the emulator prints both), or unset ${set} for a webhook-only Receiver, or pass \`client: false\`.`,
      );
    }
  }
  // A client built here runs on the Receiver's clock, so a test clock drives polls too.
  // Built once per Receiver, not per request (per-request-literals.test.ts).
  return createClient({ ...(logger === undefined ? {} : { logger }), clock, ...option });
}

/** `FACEVERIFY_POLL_SCHEDULE_MS` as delays, or `undefined` when it is not set. */
function pollScheduleFromEnv(): number[] | undefined {
  const text = readEnv(ENV.pollScheduleMs);
  if (text === undefined) return undefined;
  const delays = text.split(',').map((part) => Number(part.trim()));
  if (delays.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new ConfigurationError(
      `${ENV.pollScheduleMs} must be comma-separated milliseconds, e.g. 5000,10000,30000; got ${JSON.stringify(text)}. Unset it for the default schedule (1, 1, 2, 5 min).`,
    );
  }
  return delays;
}

function schedule(name: string, value: readonly number[] | undefined, fallback: number[]) {
  const resolved = value ?? fallback;
  if (resolved.length === 0 || resolved.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new ConfigurationError(`Receiver option "${name}" must be a non-empty list of delays.`);
  }
  return resolved;
}

function untrackedWebhooks(
  value: ReceiverOptions['untrackedWebhooks'],
  hasClient: boolean,
): 'ignore' | 'deliver' {
  if (value === undefined) return hasClient ? 'ignore' : 'deliver';
  if (value !== 'ignore' && value !== 'deliver') {
    throw new ConfigurationError(
      `Receiver option "untrackedWebhooks" must be 'ignore' or 'deliver'.`,
    );
  }
  if (value === 'ignore' && !hasClient) {
    throw new ConfigurationError(
      `untrackedWebhooks: 'ignore' needs an API client: without one no session is tracked, so every result would be ignored. Set ${ENV.apiKey} and ${ENV.baseUrl} (or pass \`client\`), or remove the option.`,
    );
  }
  return value;
}

function supersededResults(value: ReceiverOptions['supersededResults']): 'deliver' | 'skip' {
  if (value === undefined || value === 'deliver' || value === 'skip') return value ?? 'deliver';
  throw new ConfigurationError(
    `Receiver option "supersededResults" must be 'deliver' or 'skip', got ${JSON.stringify(value)}.`,
  );
}

// Every hook of ReceiverTelemetry: the compiler insists on each one. `false`: optional (added
// since; a telemetry of your own written before it still works, without that count).
const TELEMETRY_HOOKS: Record<keyof ReceiverTelemetry, boolean> = {
  attach: true,
  span: true,
  webhookAnswered: true,
  delivered: true,
  handlerRan: true,
  undeliverable: true,
  superseded: false,
  polled: true,
  rateLimitWaited: true,
};

// A telemetry missing a hook would fail inside the first webhook; refuse it here instead.
function telemetry(value: unknown): ReceiverTelemetry | undefined {
  if (value === undefined) return undefined;
  const missing = Object.entries(TELEMETRY_HOOKS).flatMap(([hook, required]) =>
    required && typeof (value as Record<string, unknown> | null)?.[hook] !== 'function'
      ? [hook]
      : [],
  );
  if (missing.length === 0) return value as ReceiverTelemetry;
  throw new ConfigurationError(
    `Receiver option "telemetry" must be what openTelemetry() from @faceverify/core/opentelemetry returns (or an object with every ReceiverTelemetry hook); it has no ${missing.join(', ')}. Pass \`telemetry: openTelemetry()\`, or remove the option.`,
  );
}

export function resolveReceiverOptions(options: ReceiverOptions): ResolvedReceiverOptions {
  assertKnownOptions(
    'createReceiver()',
    options,
    Object.keys(RECEIVER_OPTIONS),
    CLIENT_OPTIONS_MOVED,
  );
  const log = createLog(options.logger);
  const clock = options.clock ?? systemClock;
  const { secrets, client, accounts, tokenKeys } = options.accounts
    ? resolveAccounts(options, log, clock)
    : resolveOneAccount(options, log, clock);
  const hasClient = client !== undefined || accounts !== undefined;
  const sessionLifetimeMs = positive('sessionLifetimeMs', options.sessionLifetimeMs, 30 * MINUTE);
  return {
    secrets,
    client,
    accounts,
    store: new TokenProtectingStore(options.store ?? new MemoryStore(), tokenKeys, {
      now: () => clock.now(),
      lookUpClearUserIds: options.lookUpClearUserIds === true,
    }),
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 256 * 1024),
    replayWindowMs: positive('replayWindowMs', options.replayWindowMs, 24 * 60 * MINUTE),
    ackAfterMs: positive('ackAfterMs', options.ackAfterMs, 4 * SECOND),
    sessionLifetimeMs,
    pollScheduleMs: schedule('pollScheduleMs', options.pollScheduleMs ?? pollScheduleFromEnv(), [
      MINUTE,
      MINUTE,
      2 * MINUTE,
      5 * MINUTE,
    ]),
    retryScheduleMs: schedule('retryScheduleMs', options.retryScheduleMs, [
      5 * SECOND,
      30 * SECOND,
      2 * MINUTE,
      10 * MINUTE,
      30 * MINUTE,
      HOUR,
      2 * HOUR,
      4 * HOUR,
    ]),
    maxDeliveryAttempts: whole('maxDeliveryAttempts', options.maxDeliveryAttempts, 20),
    maxOpenPerUser: whole('maxOpenPerUser', options.maxOpenPerUser, 20),
    starts: resolveStarts(options.starts, sessionLifetimeMs),
    confirmWebhooks: hasClient && options.confirmWebhooks !== false,
    untrackedWebhooks: untrackedWebhooks(options.untrackedWebhooks, hasClient),
    supersededResults: supersededResults(options.supersededResults),
    leaseMs: positive('leaseMs', options.leaseMs, MINUTE),
    sweepIntervalMs: positive('sweepIntervalMs', options.sweepIntervalMs, 5 * SECOND),
    sweepBatchSize: positive('sweepBatchSize', options.sweepBatchSize, 100),
    sweepConcurrency: positive('sweepConcurrency', options.sweepConcurrency, 4),
    storeSlowMs: positive('storeSlowMs', options.storeSlowMs, 5 * SECOND),
    includePersonalData: options.includePersonalData === true,
    log,
    clock,
    storeClock: followsStoreClock(options.store, clock, options.storeClock, log),
    maxClockSkewMs: positive('maxClockSkewMs', options.maxClockSkewMs, 10 * SECOND),
    // The clock's own reading, with no closure of ours around it: read at every step.
    now: clock.now.bind(clock),
    telemetry: telemetry(options.telemetry),
  };
}

/** The secrets, client and token keys of a Receiver of one account (options or environment). */
function resolveOneAccount(options: ReceiverOptions, log: Log, clock: Clock) {
  const secrets = requireSecrets(
    options.secret ??
      readEnv(ENV.webhookSecret)
        ?.split(',')
        .map((secret) => secret.trim()),
    ENV.webhookSecret,
  );
  warnAboutShortSecrets(secrets, log);
  return {
    secrets,
    client: resolveClient(options.client, options.logger, clock),
    accounts: undefined,
    tokenKeys: tokenKeySecrets(
      dedicatedTokenKeys(options),
      secrets.map(({ secret }) => secret),
      options.tokenKeys ? '`tokenKeys`' : ENV.tokenKeys,
    ),
  };
}

/** The accounts of a Receiver of several, and its token keys, which must be its own. */
function resolveAccounts(options: ReceiverOptions, log: Log, clock: Clock) {
  for (const name of ['secret', 'client'] as const) {
    if (options[name] !== undefined) {
      throw new ConfigurationError(
        `Receiver options "accounts" and "${name}" exclude each other: with accounts, each account has its own \`${name}\` (\`accounts: { live: { secret, client } }\`). Move it into the account it belongs to.`,
      );
    }
  }
  const dedicated = dedicatedTokenKeys(options);
  if (!dedicated || dedicated.filter((key) => key !== '').length === 0) {
    throw new ConfigurationError(
      `Receiver option "accounts" needs token keys of the Receiver's own: set ${ENV.tokenKeys} (or \`tokenKeys\`) to a key from \`openssl rand -base64 32\`. Without accounts they are derived from the signing secret, but each account has its own, and a sweep must open a session before it knows its account.`,
    );
  }
  const accounts = new AccountDirectory(
    options.accounts!,
    // Built once per account, not per request (per-request-literals.test.ts).
    (clientOptions) =>
      createClient({
        ...(options.logger === undefined ? {} : { logger: options.logger }),
        clock,
        ...clientOptions,
      }),
    clock,
    log,
  );
  for (const account of accounts.listed()) warnAboutShortSecrets(account.secrets, log);
  return {
    secrets: [],
    client: undefined,
    accounts,
    tokenKeys: tokenKeySecrets(dedicated, [], options.tokenKeys ? '`tokenKeys`' : ENV.tokenKeys),
  };
}

function dedicatedTokenKeys(options: ReceiverOptions): ReadonlyArray<string> | undefined {
  return (
    options.tokenKeys ??
    readEnv(ENV.tokenKeys)
      ?.split(',')
      .map((key) => key.trim())
  );
}
