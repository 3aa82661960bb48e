import { isAbsolute, resolve } from 'node:path';
import type { StartsOption } from '@faceverify/core';
import { RelayConfigError } from './relay-config-error.js';
import type { RelaySettings } from './settings.js';

/** Where the relay keeps tracked sessions and results waiting for delivery. */
export type RelayStoreConfig =
  /** An embedded PGlite database in a data folder: one relay, nothing to install. */
  | { kind: 'pglite'; dataDir: string }
  /** A Redis server several relays share. */
  | { kind: 'redis'; url: string; prefix: string | undefined }
  /** A PostgreSQL database several relays share. */
  | { kind: 'postgres'; url: string };

/** One sink of `FACEVERIFY_SINKS`, with its settings. */
export type RelaySinkConfig =
  | { kind: 'redis'; url: string; stream: string }
  | { kind: 'nats'; url: string; subject: string }
  | { kind: 'rabbitmq'; url: string; exchange: string; routingKey: string }
  | { kind: 'postgres'; table: string }
  | { kind: 'http'; url: string; secret: string };

/** The relay's whole configuration, as `loadRelayConfig` reads it from its settings. */
export interface RelayConfig {
  /** The signing secrets of the webhooks (`FACEVERIFY_WEBHOOK_SECRET`, comma-separated during a rotation). */
  webhookSecrets: string[];
  /** The service's API: `FACEVERIFY_API_KEY` and `FACEVERIFY_BASE_URL`. */
  api: { apiKey: string; baseUrl: string };
  /** Where the service's webhooks are received. */
  webhook: { host: string; port: number; path: string };
  /** The internal API for the backend, and the bearer token it requires. */
  internalApi: { host: string; port: number; token: string };
  /** Where tracked sessions and results waiting for delivery are kept. */
  store: RelayStoreConfig;
  /** Every sink a result is delivered into, in the order given. */
  sinks: RelaySinkConfig[];
  /** What to do with a signed webhook of a session the relay does not track. */
  untrackedWebhooks: 'ignore' | 'deliver';
  /** Receiver tuning given in the settings; the Receiver's defaults otherwise. */
  tuning: {
    leaseMs?: number;
    sweepIntervalMs?: number;
    retryScheduleMs?: number[];
    starts?: StartsOption;
  };
  /** How long a stop may wait for deliveries in flight (SIGTERM). */
  shutdownMs: number;
}

/** The sinks `FACEVERIFY_SINKS` may list. */
export const SINK_KINDS = ['redis', 'nats', 'rabbitmq', 'postgres', 'http'] as const;

const TOKEN_MIN_LENGTH = 32;

/** `text` as a whole number of at least 1, or a `RelayConfigError` saying `fix` for `name`. */
function wholeAtLeastOne(name: string, text: string, fix: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || !Number.isSafeInteger(value)) {
    throw new RelayConfigError(name, fix);
  }
  return value;
}

class Reader {
  constructor(private readonly settings: RelaySettings) {}

  optional(name: string): string | undefined {
    return this.settings[name];
  }

  required(name: string, fix: string): string {
    const value = this.settings[name];
    if (value === undefined) throw new RelayConfigError(name, `${name} is not set: ${fix}`);
    return value;
  }

  port(name: string, fallback: number): number {
    const text = this.settings[name];
    if (text === undefined) return fallback;
    const port = Number(text);
    if (!/^\d+$/.test(text) || port > 65_535) {
      throw new RelayConfigError(
        name,
        `${name} must be a port number from 0 to 65535 (0 picks a free one); unset it for ${fallback}.`,
      );
    }
    return port;
  }

  milliseconds(name: string): number | undefined {
    const text = this.settings[name];
    if (text === undefined) return undefined;
    return wholeAtLeastOne(
      name,
      text,
      `${name} must be a positive whole number of milliseconds; unset it for the default.`,
    );
  }

  /** A limit of starts: a whole number of at least 1, or `none`. */
  limit(name: string): number | undefined {
    const text = this.settings[name];
    if (text === undefined) return undefined;
    if (text === 'none') return Number.POSITIVE_INFINITY;
    return wholeAtLeastOne(
      name,
      text,
      `${name} must be a whole number of at least 1, or none for no limit; unset it for the default.`,
    );
  }

  schedule(name: string): number[] | undefined {
    const text = this.settings[name];
    if (text === undefined) return undefined;
    const values = text.split(',').map((part) => part.trim());
    if (values.some((part) => !/^\d+$/.test(part) || Number(part) < 1)) {
      throw new RelayConfigError(
        name,
        `${name} must be comma-separated milliseconds, e.g. 5000,30000,150000; unset it for the default schedule.`,
      );
    }
    return values.map(Number);
  }

  url(name: string, protocols: readonly string[], fix: string): string {
    const text = this.required(name, fix);
    let protocol: string | undefined;
    try {
      protocol = new URL(text).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol === undefined || !protocols.includes(protocol)) {
      throw new RelayConfigError(
        name,
        `${name} must be an absolute URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}: ${fix}`,
      );
    }
    return text;
  }
}

/**
 * Reads the relay's configuration from its settings (the environment, and the file named by
 * `FACEVERIFY_RELAY_CONFIG`). A setting that is missing or wrong throws `RelayConfigError`
 * naming it and the fix; no message repeats a value.
 *
 * @example
 * const config = loadRelayConfig(readSettings(process.env));
 */
export function loadRelayConfig(settings: RelaySettings): RelayConfig {
  const read = new Reader(settings);
  const webhookSecrets = read
    .required(
      'FACEVERIFY_WEBHOOK_SECRET',
      "copy the webhook signing secret from the service's Settings (the emulator prints it); during a rotation, list both, comma-separated.",
    )
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
  const api = {
    apiKey: read.required(
      'FACEVERIFY_API_KEY',
      "the relay starts sessions and polls for lost webhooks with it: copy it from the service's Settings (the emulator prints it).",
    ),
    baseUrl: read.url(
      'FACEVERIFY_BASE_URL',
      ['http:', 'https:'],
      "set the service's API address (the emulator prints it).",
    ),
  };
  const token = read.required(
    'FACEVERIFY_RELAY_TOKEN',
    'the internal API requires it as `Authorization: Bearer <token>`: generate one with `openssl rand -hex 32`, and give the same to your backend.',
  );
  if (token.length < TOKEN_MIN_LENGTH) {
    throw new RelayConfigError(
      'FACEVERIFY_RELAY_TOKEN',
      `FACEVERIFY_RELAY_TOKEN is shorter than ${TOKEN_MIN_LENGTH} characters: generate one with \`openssl rand -hex 32\`.`,
    );
  }
  const path = read.optional('FACEVERIFY_RELAY_WEBHOOK_PATH') ?? '/webhooks/verification';
  if (!path.startsWith('/')) {
    throw new RelayConfigError(
      'FACEVERIFY_RELAY_WEBHOOK_PATH',
      'FACEVERIFY_RELAY_WEBHOOK_PATH must start with /, e.g. /webhooks/verification.',
    );
  }
  const store = storeConfig(read);
  const untracked = read.optional('FACEVERIFY_UNTRACKED_WEBHOOKS') ?? 'ignore';
  if (untracked !== 'ignore' && untracked !== 'deliver') {
    throw new RelayConfigError(
      'FACEVERIFY_UNTRACKED_WEBHOOKS',
      'FACEVERIFY_UNTRACKED_WEBHOOKS must be `ignore` (the default) or `deliver` (when your backend starts sessions itself, not through the relay).',
    );
  }
  const tuning: RelayConfig['tuning'] = {};
  const leaseMs = read.milliseconds('FACEVERIFY_RELAY_LEASE_MS');
  if (leaseMs !== undefined) tuning.leaseMs = leaseMs;
  const sweepIntervalMs = read.milliseconds('FACEVERIFY_RELAY_SWEEP_INTERVAL_MS');
  if (sweepIntervalMs !== undefined) tuning.sweepIntervalMs = sweepIntervalMs;
  const retryScheduleMs = read.schedule('FACEVERIFY_RELAY_RETRY_SCHEDULE_MS');
  if (retryScheduleMs !== undefined) tuning.retryScheduleMs = retryScheduleMs;
  const perUserPerDay = read.limit('FACEVERIFY_STARTS_PER_USER_PER_DAY');
  const perAccountPerDay = read.limit('FACEVERIFY_STARTS_PER_ACCOUNT_PER_DAY');
  if (perUserPerDay !== undefined || perAccountPerDay !== undefined) {
    tuning.starts = {
      ...(perUserPerDay === undefined ? {} : { perUserPerDay }),
      ...(perAccountPerDay === undefined ? {} : { perAccountPerDay }),
    };
  }
  return {
    webhookSecrets,
    api,
    webhook: {
      host: read.optional('FACEVERIFY_RELAY_WEBHOOK_HOST') ?? '0.0.0.0',
      port: read.port('FACEVERIFY_RELAY_WEBHOOK_PORT', 8080),
      path,
    },
    internalApi: {
      host: read.optional('FACEVERIFY_RELAY_API_HOST') ?? '127.0.0.1',
      port: read.port('FACEVERIFY_RELAY_API_PORT', 8081),
      token,
    },
    store,
    sinks: sinksConfig(read, store),
    untrackedWebhooks: untracked,
    tuning,
    shutdownMs: read.milliseconds('FACEVERIFY_RELAY_SHUTDOWN_MS') ?? 10_000,
  };
}

function storeConfig(read: Reader): RelayStoreConfig {
  const url = read.optional('FACEVERIFY_STORE_URL');
  if (url === undefined) {
    const dataDir = read.optional('FACEVERIFY_RELAY_DATA_DIR') ?? 'faceverify-relay-data';
    return { kind: 'pglite', dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir) };
  }
  const protocol = /^([a-z]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (protocol === 'redis' || protocol === 'rediss') {
    return { kind: 'redis', url, prefix: read.optional('FACEVERIFY_STORE_PREFIX') };
  }
  if (protocol === 'postgres' || protocol === 'postgresql') return { kind: 'postgres', url };
  throw new RelayConfigError(
    'FACEVERIFY_STORE_URL',
    'FACEVERIFY_STORE_URL must start with redis://, rediss://, postgres:// or postgresql:// (a store several relays share); unset it to keep the store in a PGlite data folder (FACEVERIFY_RELAY_DATA_DIR).',
  );
}

function sinksConfig(read: Reader, store: RelayStoreConfig): RelaySinkConfig[] {
  const names = read
    .required(
      'FACEVERIFY_SINKS',
      `name where results go, comma-separated: ${SINK_KINDS.join(', ')} (e.g. FACEVERIFY_SINKS=redis with FACEVERIFY_SINK_REDIS_URL=redis://127.0.0.1:6379).`,
    )
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !(SINK_KINDS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new RelayConfigError(
      'FACEVERIFY_SINKS',
      `FACEVERIFY_SINKS lists ${unknown.length > 0 ? `an unknown sink (${unknown.join(', ')})` : 'no sink'}: name sinks from ${SINK_KINDS.join(', ')}, comma-separated.`,
    );
  }
  if (new Set(names).size !== names.length) {
    throw new RelayConfigError(
      'FACEVERIFY_SINKS',
      'FACEVERIFY_SINKS lists a sink twice: name each once.',
    );
  }
  return names.map((name) => sinkConfig(read, name as (typeof SINK_KINDS)[number], store));
}

function sinkConfig(
  read: Reader,
  kind: (typeof SINK_KINDS)[number],
  store: RelayStoreConfig,
): RelaySinkConfig {
  switch (kind) {
    case 'redis':
      return {
        kind,
        url: read.url(
          'FACEVERIFY_SINK_REDIS_URL',
          ['redis:', 'rediss:'],
          'the Redis server whose stream receives the results, e.g. redis://127.0.0.1:6379.',
        ),
        stream: read.optional('FACEVERIFY_SINK_REDIS_STREAM') ?? 'faceverify:results',
      };
    case 'nats':
      return {
        kind,
        url: read.url(
          'FACEVERIFY_SINK_NATS_URL',
          ['nats:', 'tls:'],
          'the NATS server with JetStream, e.g. nats://127.0.0.1:4222.',
        ),
        subject: read.optional('FACEVERIFY_SINK_NATS_SUBJECT') ?? 'faceverify.results',
      };
    case 'rabbitmq':
      return {
        kind,
        url: read.url(
          'FACEVERIFY_SINK_RABBITMQ_URL',
          ['amqp:', 'amqps:'],
          'the RabbitMQ broker, e.g. amqp://127.0.0.1.',
        ),
        exchange: read.optional('FACEVERIFY_SINK_RABBITMQ_EXCHANGE') ?? '',
        routingKey: read.optional('FACEVERIFY_SINK_RABBITMQ_ROUTING_KEY') ?? 'faceverify.results',
      };
    case 'postgres':
      if (store.kind === 'redis') {
        throw new RelayConfigError(
          'FACEVERIFY_SINKS',
          "The postgres sink writes its outbox row in the delivery's own transaction, so it needs a PostgreSQL store: set FACEVERIFY_STORE_URL to a postgres:// URL (or unset it for PGlite), or remove postgres from FACEVERIFY_SINKS.",
        );
      }
      return {
        kind,
        table: read.optional('FACEVERIFY_SINK_POSTGRES_TABLE') ?? 'faceverify_outbox',
      };
    case 'http':
      return {
        kind,
        url: read.url(
          'FACEVERIFY_SINK_HTTP_URL',
          ['http:', 'https:'],
          'the internal endpoint results are POSTed to, e.g. http://results.internal/faceverify.',
        ),
        secret: read.required(
          'FACEVERIFY_SINK_HTTP_SECRET',
          'the Standard Webhooks secret the endpoint verifies with: `whsec_` and base64, e.g. whsec_$(openssl rand -base64 32).',
        ),
      };
  }
}
