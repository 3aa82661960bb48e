import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createReceiver } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { postgresStores, redisStores, type StoreUnderTest } from './stores.js';
import { capturingIO } from './support.js';

const SECRET = 'whsec_cli_forget_user';
const BIN = fileURLToPath(new URL('../bin/faceverify.js', import.meta.url));
const ERASED = 'u_erased_person';
const KEPT = 'u_kept_person';

/**
 * The application's receiver, whose handler always fails with one attempt per result: each
 * webhook's result is given up at once and kept as a dead letter. Two for the user to erase,
 * one for another user. Each `batch` has results of its own: one alike to a closed one would be
 * a duplicate.
 */
async function receiverWithRecords(store: Store, secret: string | string[] = SECRET, batch = 0) {
  const receiver = createReceiver({
    secret,
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
    const payload = fixturePayload({
      external_user_id: user,
      confidence: 0.9 + (n + 2 * batch) / 100,
    });
    const signing = Array.isArray(secret) ? secret[0]! : secret;
    await receiver.receive(await signedDelivery(payload, { secret: signing }));
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
  ['Redis', () => redisStores('forget', { FACEVERIFY_WEBHOOK_SECRET: SECRET })],
  ['PostgreSQL', () => postgresStores('forget', { FACEVERIFY_WEBHOOK_SECRET: SECRET })],
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

  it(`--account with token keys that are not the receiver's: exits 1, naming FACEVERIFY_TOKEN_KEYS [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const receiver = await accountsWithRecords(store);
    const run = await cli(['forget-user', ERASED, '--account', 'acme', ...flags], {
      ...stores.env,
      FACEVERIFY_TOKEN_KEYS: `${TOKEN_KEY}-but-another`,
    });
    expect(run.code, run.all()).toBe(1);
    expect(run.err[0]).toContain('none of your keys has');
    expect(run.err[0]).toContain('Set FACEVERIFY_TOKEN_KEYS to exactly what your receiver has');
    expect((await receiver.deadLetters.list()).deadLetters).toHaveLength(4);
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

  // A command that only reads or erases writes nothing else: no bookkeeping of its own, such
  // as RedisStore's count of each process's writes (a `w:` key kept 7 days).
  it(`with the receiver's prefix and keys: writes no key or table but erases [${name}]`, async () => {
    const { store, flags } = await stores.create();
    await receiverWithRecords(store);
    const before = await stores.written(flags);
    const listed = await cli(['dead-letters', 'list', ...flags]);
    expect(listed.code, listed.all()).toBe(0);
    const erased = await cli(['forget-user', ERASED, ...flags]);
    expect(erased.code, erased.all()).toBe(0);
    expect(erased.out).toEqual([`Removed 2 records of that user from ${name}.`]);
    const after = await stores.written(flags);
    expect(after.filter((key) => !before.includes(key))).toEqual([]);
  });

  // Erasure finds a user's records by where they are and by a keyed hash of the id: pointed
  // elsewhere, or given other keys, it found nothing and said "Removed 0", exit 0.
  it(`pointed where the store has no data: says so, exits 1, removes and writes nothing [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const receiver = await receiverWithRecords(store);
    for (const elsewhere of [stores.elsewhere(), []]) {
      const run = await cli(['forget-user', ERASED, ...elsewhere]);
      expect(run.code, run.all()).toBe(1);
      expect(run.out).toEqual([]);
      expect(run.err[0]).toContain(`faceverify forget-user: no faceverify data in ${name}`);
      expect(run.err[0]).toContain(
        name === 'Redis' ? 'pass --prefix' : 'pass --schema and --prefix',
      );
      expect(run.all()).not.toContain(ERASED);
      expect(await stores.written(elsewhere)).toEqual([]);
    }
    expect((await receiver.deadLetters.list()).deadLetters).toHaveLength(3);
    expect((await cli(['forget-user', ERASED, ...flags])).out).toEqual([
      `Removed 2 records of that user from ${name}.`,
    ]);
  });

  it(`with a mistyped secret: says the records are keyed under other key ids, exits 1, removes nothing [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const receiver = await receiverWithRecords(store);
    const written = await stores.written(flags);
    const run = await cli(['forget-user', ERASED, ...flags], {
      ...stores.env,
      FACEVERIFY_WEBHOOK_SECRET: `${SECRET}x`,
    });
    expect(run.code, run.all()).toBe(1);
    expect(run.out).toEqual([]);
    expect(run.err[0]).toMatch(
      /are keyed under token key ids none of your keys has \([\w-]+ \(3 records\); yours: [\w-]+\): no record of this user can be found with your keys, and nothing was removed\. Set FACEVERIFY_WEBHOOK_SECRET/,
    );
    expect(run.all()).not.toContain(ERASED);
    expect((await receiver.deadLetters.list()).deadLetters).toHaveLength(3);
    expect(await stores.written(flags)).toEqual(written);
  });

  it(`with a secret a rotation replaced: removes what it finds, says what it could not, exits 1 [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const NEW = 'whsec_cli_forget_user_rotated_in';
    // Before the rotation, under the old secret; then the new one is listed first.
    await receiverWithRecords(store, SECRET);
    const rotated = await receiverWithRecords(store, [NEW, SECRET], 1);
    expect((await rotated.deadLetters.list()).deadLetters).toHaveLength(6);

    const stale = await cli(['forget-user', ERASED, ...flags]);
    expect(stale.code, stale.all()).toBe(1);
    expect(stale.out).toEqual([`Removed 2 records of that user from ${name}.`]);
    expect(stale.err[0]).toMatch(
      /^faceverify forget-user: 3 more records in .* are keyed under token key ids none of your keys has \([\w-]+ \(3 records\); yours: [\w-]+\): whatever of this user's is among them was not removed\./,
    );

    const current = await cli(['forget-user', ERASED, ...flags], {
      ...stores.env,
      FACEVERIFY_WEBHOOK_SECRET: `${NEW},${SECRET}`,
    });
    expect(current.code, current.all()).toBe(0);
    expect(current.out).toEqual([`Removed 2 records of that user from ${name}.`]);
    expect(current.err).toEqual([]);
  });

  it(`when no record tells its key and none was removed: says the keys could not be checked, exits 1 [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const now = Date.now();
    // A session that expired without a result: a hashed user, nothing sealed left.
    await store.insert({
      record: {
        key: 't1:c2Vzc2lvbi13aXRob3V0LWEtcmVzdWx0',
        externalUserId: 'u1:aGFzaGVkLXVzZXItb2YtYW5vdGhlci1rZXk',
        createdAt: now,
        expiresAt: now + 3_600_000,
        state: 'expired',
        dueAt: now,
        attempts: 0,
      },
      now,
    });
    const run = await cli(['forget-user', ERASED, ...flags]);
    expect(run.code, run.all()).toBe(1);
    expect(run.out).toEqual([`Removed 0 records of that user from ${name}.`]);
    expect(run.err[0]).toContain(
      "tells which key keyed it (sessions that closed without a result), so whether your keys are your receiver's cannot be told",
    );
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

  it('exits 1 on a token key too short, naming FACEVERIFY_TOKEN_KEYS, not a store failure', async () => {
    const short = await cli(['u_1'], { ...env, FACEVERIFY_TOKEN_KEYS: 'too-short' });
    expect(short.code).toBe(1);
    expect(short.err[0]).toMatch(
      /^faceverify forget-user: Token key #0 \(FACEVERIFY_TOKEN_KEYS\) is shorter/,
    );
    expect(short.all()).not.toContain('Redis failed');
    expect(short.all()).not.toContain('too-short');
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
