import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { freePort } from '@faceverify/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedStart } from './support/relay-process.js';

// Values a refusal must never print.
const SECRET = 'whsec_relay_config_secret_5d1f';
const API_KEY = 'fv_test_relay_config_key_8a2c';
const TOKEN = 'relay-config-token-0123456789abcdef0123456789';
const PASSWORD = 'pg-password-never-printed';

/** A configuration the relay accepts, up to where each case breaks it. */
const VALID = {
  FACEVERIFY_WEBHOOK_SECRET: SECRET,
  FACEVERIFY_API_KEY: API_KEY,
  FACEVERIFY_BASE_URL: 'http://127.0.0.1:9',
  FACEVERIFY_RELAY_TOKEN: TOKEN,
  FACEVERIFY_SINKS: 'redis',
  FACEVERIFY_SINK_REDIS_URL: 'redis://127.0.0.1:6379',
};

function expectNoSecrets(output: string): void {
  for (const value of [SECRET, API_KEY, TOKEN, PASSWORD]) expect(output).not.toContain(value);
}

let dataDir: string;
let emulator: Emulator;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'relay-config-'));
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a bad configuration stops the relay at start, exit code 1, naming the setting and the fix', () => {
  it.each([
    {
      change: { FACEVERIFY_RELAY_TOKEN: '' },
      says: 'FACEVERIFY_RELAY_TOKEN is not set: the internal API requires it as `Authorization: Bearer <token>`: generate one with `openssl rand -hex 32`',
    },
    {
      change: { FACEVERIFY_RELAY_TOKEN: 'short-token' },
      says: 'FACEVERIFY_RELAY_TOKEN is shorter than 32 characters: generate one with `openssl rand -hex 32`.',
    },
    {
      change: { FACEVERIFY_WEBHOOK_SECRET: '' },
      says: "FACEVERIFY_WEBHOOK_SECRET is not set: copy the webhook signing secret from the service's Settings",
    },
    {
      change: { FACEVERIFY_BASE_URL: 'api.example.test' },
      says: 'FACEVERIFY_BASE_URL must be an absolute URL starting with http:// or https://',
    },
    {
      change: { FACEVERIFY_SINKS: '' },
      says: 'FACEVERIFY_SINKS is not set: name where results go, comma-separated: redis, nats, rabbitmq, postgres, http',
    },
    {
      change: { FACEVERIFY_SINKS: 'redis,kafka' },
      says: 'FACEVERIFY_SINKS lists an unknown sink (kafka): name sinks from redis, nats, rabbitmq, postgres, http',
    },
    {
      change: { FACEVERIFY_SINKS: 'http' },
      says: 'FACEVERIFY_SINK_HTTP_URL is not set: the internal endpoint results are POSTed to',
    },
    {
      change: { FACEVERIFY_SINKS: 'postgres', FACEVERIFY_STORE_URL: 'redis://127.0.0.1:6379' },
      says: "The postgres sink writes its outbox row in the delivery's own transaction, so it needs a PostgreSQL store",
    },
    {
      change: { FACEVERIFY_STORE_URL: `mysql://root:${PASSWORD}@127.0.0.1/db` },
      says: 'FACEVERIFY_STORE_URL must start with redis://, rediss://, postgres:// or postgresql://',
    },
    {
      change: { FACEVERIFY_RELAY_API_PORT: '80800' },
      says: 'FACEVERIFY_RELAY_API_PORT must be a port number from 0 to 65535',
    },
    {
      change: { FACEVERIFY_RELAY_CONFIG: '/nonexistent/relay.json' },
      says: 'FACEVERIFY_RELAY_CONFIG names a file that cannot be read (ENOENT)',
    },
  ])('$says', async ({ change, says }) => {
    const { code, output } = await failedStart({ ...VALID, ...change });
    expect(code).toBe(1);
    expect(output).toContain(`faceverify-relay: ${says}`);
    expectNoSecrets(output);
  });

  it('a store that does not answer: the setting to check, without its password', async () => {
    const url = `postgres://relay:${PASSWORD}@127.0.0.1:${await freePort()}/relay`;
    const { code, output } = await failedStart({
      ...VALID,
      FACEVERIFY_BASE_URL: emulator.url,
      FACEVERIFY_API_KEY: emulator.apiKey,
      FACEVERIFY_STORE_URL: url,
    });
    expect(code).toBe(1);
    expect(output).toContain('Check FACEVERIFY_STORE_URL and that the server is up.');
    expect(output).toContain(
      'faceverify-relay: The store could not be opened: PostgresStore.migrate failed: PostgreSQL did not answer (connect ECONNREFUSED',
    );
    expectNoSecrets(output);
    expect(output).not.toContain(emulator.apiKey);
  });

  it('an API key the service refuses: named at start, before any user', async () => {
    const { code, output } = await failedStart({
      ...VALID,
      FACEVERIFY_BASE_URL: emulator.url,
      FACEVERIFY_RELAY_DATA_DIR: join(dataDir, 'wrong-key'),
    });
    expect(code).toBe(1);
    expect(output).toContain(
      `faceverify-relay: the service at ${emulator.url} refused FACEVERIFY_API_KEY (401): copy the API key from the service's Settings into FACEVERIFY_API_KEY`,
    );
    expectNoSecrets(output);
  });

  it('settings in the file FACEVERIFY_RELAY_CONFIG names are read, and checked alike', async () => {
    const file = join(dataDir, 'relay.json');
    await writeFile(file, JSON.stringify({ FACEVERIFY_SINKS: 'nats' }));
    const { FACEVERIFY_SINKS: _, ...rest } = VALID;
    const { code, output } = await failedStart({ ...rest, FACEVERIFY_RELAY_CONFIG: file });
    expect(code).toBe(1);
    expect(output).toContain('faceverify-relay: FACEVERIFY_SINK_NATS_URL is not set');
  });
});
