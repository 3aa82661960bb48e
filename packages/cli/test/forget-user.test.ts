import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createReceiver, type Store } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { PostgresStore } from '@faceverify/postgres';
import { RedisStore } from '@faceverify/redis';
import { startPostgresServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { capturingIO } from './support.js';

const SECRET = 'whsec_cli_forget_user';
const BIN = fileURLToPath(new URL('../bin/faceverify.js', import.meta.url));
const ERASED = 'u_erased_person';
const KEPT = 'u_kept_person';

interface StoreUnderTest {
  env: Record<string, string>;
  /** A new store with its own prefix, and the flags that name it on the command line. */
  create(): Promise<{ store: Store; flags: string[] }>;
  stop(): Promise<void>;
}

let sequence = 0;

async function redisStores(): Promise<StoreUnderTest> {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  return {
    env: { REDIS_URL: server.url, FACEVERIFY_WEBHOOK_SECRET: SECRET },
    async create() {
      const prefix = `forget${++sequence}:`;
      return { store: new RedisStore({ redis, prefix }), flags: ['--prefix', prefix] };
    },
    async stop() {
      redis.disconnect();
      await server.stop();
    },
  };
}

async function postgresStores(): Promise<StoreUnderTest> {
  const server = await startPostgresServer();
  const url = server.url(await server.createDatabase('faceverify_cli_forget'));
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    env: { DATABASE_URL: url, FACEVERIFY_WEBHOOK_SECRET: SECRET },
    async create() {
      const prefix = `forget${++sequence}_`;
      const store = new PostgresStore({ pool, prefix });
      await store.migrate();
      return { store, flags: ['--prefix', prefix] };
    },
    async stop() {
      await pool.end();
      await server.stop();
    },
  };
}

/**
 * The application's receiver, whose handler always fails with one attempt per result: each
 * webhook's result is given up at once and kept as a dead letter. Two for the user to erase,
 * one for another user.
 */
async function receiverWithRecords(store: Store) {
  const receiver = createReceiver({
    secret: SECRET,
    client: false,
    store,
    logger: false,
    maxDeliveryAttempts: 1,
  });
  receiver.on('verification.completed', () => {
    throw new Error('the users table is locked');
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  for (const [user, n] of [
    [ERASED, 1],
    [ERASED, 2],
    [KEPT, 1],
  ] as const) {
    // Outcomes differ: a second result alike to a closed one of the user is a duplicate.
    const payload = fixturePayload({ external_user_id: user, confidence: 0.9 + n / 100 });
    await receiver.receive(await signedDelivery(payload, { secret: SECRET }));
  }
  return receiver;
}

const TOKEN_KEY = 'cli-forget-user-token-key-0123456789abcdef';
const ACCOUNT_SECRETS = {
  acme: 'whsec_cli_acme_0123456789',
  globex: 'whsec_cli_globex_0123456789',
};

/**
 * A receiver of several accounts whose handler always fails, each result kept as a dead letter
 * of its account: ERASED twice in acme and once in globex (the same id, another user), KEPT in
 * acme. Its clients are at a closed port: untracked webhooks are delivered without asking.
 */
async function accountsWithRecords(store: Store) {
  const account = (id: keyof typeof ACCOUNT_SECRETS) => ({
    secret: ACCOUNT_SECRETS[id],
    client: { apiKey: `fv_test_${id}`, baseUrl: 'http://127.0.0.1:9' },
  });
  const receiver = createReceiver({
    accounts: { acme: account('acme'), globex: account('globex') },
    tokenKeys: [TOKEN_KEY],
    untrackedWebhooks: 'deliver',
    store,
    logger: false,
    maxDeliveryAttempts: 1,
  });
  receiver.on('verification.completed', () => {
    throw new Error('the users table is locked');
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  for (const [id, user, n] of [
    ['acme', ERASED, 1],
    ['acme', ERASED, 2],
    ['globex', ERASED, 1],
    ['acme', KEPT, 1],
  ] as const) {
    const payload = fixturePayload({ external_user_id: user, confidence: 0.9 + n / 100 });
    const delivery = await signedDelivery(payload, { secret: ACCOUNT_SECRETS[id] });
    await receiver.receive({ ...delivery, account: id });
  }
  return receiver;
}

describe.each([
  ['Redis', redisStores],
  ['PostgreSQL', postgresStores],
])('faceverify forget-user against %s', (name, start) => {
  let stores: StoreUnderTest;
  beforeAll(async () => {
    stores = await start();
  });
  afterAll(() => stores?.stop());

  const cli = async (args: string[], env = stores.env) => {
    const captured = capturingIO(env);
    const code = await runCli(args, captured.io);
    return { code, ...captured };
  };

  it(`removes every record of the user and no one else's, printing the count, never the id [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const receiver = await receiverWithRecords(store);
    expect((await receiver.deadLetters.list()).deadLetters).toHaveLength(3);

    const erased = await cli(['forget-user', ERASED, ...flags]);
    expect(erased.code).toBe(0);
    expect(erased.out).toEqual([`Removed 2 records of that user from ${name}.`]);
    expect(erased.all()).not.toContain(ERASED);
    const left = (await receiver.deadLetters.list()).deadLetters;
    expect(left.map((letter) => letter.externalUserId)).toEqual([KEPT]);
    const listed = await cli(['dead-letters', 'list', ...flags]);
    expect(listed.out.join('\n')).not.toContain(ERASED);

    const again = await cli(['forget-user', ERASED, ...flags]);
    expect(again.code).toBe(0);
    expect(again.out).toEqual([`Removed 0 records of that user from ${name}.`]);
  });

  it(`--account erases the user of that account only, with the token keys [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const receiver = await accountsWithRecords(store);
    const remaining = async () =>
      (await receiver.deadLetters.list()).deadLetters
        .map((letter) => `${letter.account}/${letter.externalUserId}`)
        .sort();
    expect(await remaining()).toHaveLength(4);
    const keys: Record<string, string> = { ...stores.env, FACEVERIFY_TOKEN_KEYS: TOKEN_KEY };

    // Without its account, no user of an account is found: the same id is another user in each.
    const unscoped = await cli(['forget-user', ERASED, ...flags], keys);
    expect(unscoped.out).toEqual([`Removed 0 records of that user from ${name}.`]);

    const erased = await cli(['forget-user', ERASED, '--account', 'acme', ...flags], keys);
    expect(erased.code).toBe(0);
    expect(erased.out).toEqual([`Removed 2 records of that user of account acme from ${name}.`]);
    expect(erased.all()).not.toContain(ERASED);
    expect(await remaining()).toEqual([`acme/${KEPT}`, `globex/${ERASED}`]);

    // Only the token keys are needed, not the account's secret: the signing secret may be absent.
    const { FACEVERIFY_WEBHOOK_SECRET: _secret, ...withoutSecret } = keys;
    const other = await cli(
      ['forget-user', ERASED, '--account', 'globex', ...flags],
      withoutSecret,
    );
    expect(other.out).toEqual([`Removed 1 record of that user of account globex from ${name}.`]);
    expect(await remaining()).toEqual([`acme/${KEPT}`]);
  });

  it(`the installed command erases, with exit code 0 [${name}]`, async () => {
    const { store, flags } = await stores.create();
    await receiverWithRecords(store);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [BIN, 'forget-user', KEPT, ...flags],
      { env: { PATH: process.env.PATH ?? '', ...stores.env } },
    );
    expect(stdout.trim()).toBe(`Removed 1 record of that user from ${name}.`);
  });

  it(`refuses an id no store holds with exit code 2, without printing it [${name}]`, async () => {
    const { flags } = await stores.create();
    const refused = await cli(['forget-user', 'u_secret_name\u0000', ...flags]);
    expect(refused.code).toBe(2);
    expect(refused.err[0]).toContain('NUL character');
    expect(refused.all()).not.toContain('u_secret_name');
  });
});

describe('faceverify forget-user, usage', () => {
  const cli = async (args: string[], env: Record<string, string>) => {
    const captured = capturingIO(env);
    return { code: await runCli(['forget-user', ...args], captured.io), ...captured };
  };
  const env = { REDIS_URL: 'redis://127.0.0.1:1', FACEVERIFY_WEBHOOK_SECRET: SECRET };

  it('--help prints the command help and exits 0', async () => {
    const help = await cli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.out[0]).toContain('usage: faceverify forget-user <EXTERNAL_USER_ID>');
  });

  it('exits 2 without one id, without the secret, or without a store to use', async () => {
    expect((await cli([], env)).code).toBe(2);
    expect((await cli(['a', 'b'], env)).err[0]).toContain('give one EXTERNAL_USER_ID');
    const noSecret = await cli(['u_1'], { REDIS_URL: env.REDIS_URL });
    expect(noSecret.code).toBe(2);
    expect(noSecret.err[0]).toContain('set FACEVERIFY_WEBHOOK_SECRET');
    const none = await cli(['u_1'], { FACEVERIFY_WEBHOOK_SECRET: SECRET });
    expect(none.code).toBe(2);
    expect(none.err[0]).toContain('set REDIS_URL or DATABASE_URL');
  });

  it('exits 2 with --account but no token keys, or an account id that is not one', async () => {
    const noKeys = await cli(['u_1', '--account', 'acme'], env);
    expect(noKeys.code).toBe(2);
    expect(noKeys.err[0]).toContain('--account needs FACEVERIFY_TOKEN_KEYS');
    const malformed = await cli(['u_1', '--account', 'no spaces'], {
      ...env,
      FACEVERIFY_TOKEN_KEYS: TOKEN_KEY,
    });
    expect(malformed.code).toBe(2);
    expect(malformed.err[0]).toContain('1 to 64 letters');
  });

  it('exits 1 when the store cannot be reached, without printing the password or the id', async () => {
    const unreachable = await cli(['u_unreachable_person'], {
      DATABASE_URL: 'postgres://app:s3cret-password@127.0.0.1:1/app',
      FACEVERIFY_WEBHOOK_SECRET: SECRET,
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.all()).toContain('Check that DATABASE_URL points at');
    expect(unreachable.all()).not.toContain('s3cret-password');
    expect(unreachable.all()).not.toContain('u_unreachable_person');
  });
});
