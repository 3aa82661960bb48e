import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createReceiver, type Receiver } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { postgresStores, redisStores, type StoreUnderTest } from './stores.js';
import { capturingIO } from './support.js';

const SECRET = 'whsec_cli_dead_letters';
const BIN = fileURLToPath(new URL('../bin/faceverify.js', import.meta.url));

/**
 * A receiver of the application whose handler fails until `fixed` is set, with one attempt
 * per result: each webhook's result is given up at once and becomes a dead letter.
 */
async function receiverWithDeadLetters(store: Store, users: string[]) {
  const receiver: Receiver = createReceiver({
    secret: SECRET,
    client: false,
    store,
    logger: false,
    maxDeliveryAttempts: 1,
  });
  const state = { fixed: false, delivered: [] as string[] };
  receiver.on('verification.completed', (event) => {
    if (!state.fixed) throw new Error('the users table is locked');
    state.delivered.push(event.data.external_user_id);
  });
  receiver.on('verification.undeliverable', () => undefined);
  receiver.on('error', () => undefined);
  for (const user of users) {
    const payload = fixturePayload({ external_user_id: user });
    await receiver.receive(await signedDelivery(payload, { secret: SECRET }));
  }
  return { receiver, state };
}

const TOKEN_KEY = 'cli-dead-letters-token-key-0123456789abcdef';
const ACCOUNT_SECRETS = {
  acme: 'whsec_cli_acme_0123456789',
  globex: 'whsec_cli_globex_0123456789',
};

/**
 * A receiver of several accounts (its clients at a closed port: untracked webhooks are
 * delivered without asking), whose handler always fails: each account's webhook becomes a
 * dead letter of that account.
 */
async function accountsWithDeadLetters(
  store: Store,
  letters: [account: keyof typeof ACCOUNT_SECRETS, user: string][],
) {
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
  for (const [id, user] of letters) {
    const payload = fixturePayload({ external_user_id: user });
    const delivery = await signedDelivery(payload, { secret: ACCOUNT_SECRETS[id] });
    expect((await receiver.receive({ ...delivery, account: id })).status).toBe(500);
  }
  return receiver;
}

/** The characters of `line` that move the cursor or start an escape sequence. */
function controlsIn(line: string): string[] {
  return [...line].filter((char) => {
    const code = char.codePointAt(0)!;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028;
  });
}

describe.each([
  ['Redis', () => redisStores('cli')],
  ['PostgreSQL', () => postgresStores('cli')],
])('faceverify dead-letters against %s', (name, start) => {
  let stores: StoreUnderTest;
  beforeAll(async () => {
    stores = await start();
  });
  afterAll(() => stores?.stop());

  // The receiver's secret, as its environment has it: the results are sealed with it.
  const cli = async (
    args: string[],
    env: Record<string, string> = { FACEVERIFY_WEBHOOK_SECRET: SECRET },
  ) => {
    const captured = capturingIO({ ...stores.env, ...env });
    const code = await runCli(['dead-letters', ...args], captured.io);
    return { code, ...captured };
  };

  it(`lists the results that exhausted their attempts, a page at a time [${name}]`, async () => {
    const { store, flags } = await stores.create();
    await receiverWithDeadLetters(store, ['u_first', 'u_second']);
    const all = await cli(['list', ...flags]);
    expect(all.code).toBe(0);
    expect(all.out).toHaveLength(2);
    expect(all.out[0]).toMatch(/^\S+\tu_first\tverified\t1\t\d{4}-\d\d-\d\dT/);
    expect(all.out[0]!.split('\t'), 'no account column without accounts').toHaveLength(5);
    expect(all.out[1]).toContain('\tu_second\t');

    const first = await cli(['list', '--limit', '1', ...flags]);
    expect(first.out).toEqual([all.out[0]]);
    const more = first.err.find((line) => line.startsWith('more: '));
    const cursor = more?.match(/--cursor '(.*)'$/)?.[1];
    expect(cursor).toBeDefined();
    const second = await cli(['list', '--limit', '1', '--cursor', cursor!, ...flags]);
    expect(second.out).toEqual([all.out[1]]);
    expect(second.err.some((line) => line.startsWith('more: '))).toBe(false);

    const json = await cli(['list', '--json', ...flags]);
    expect(JSON.parse(json.out[0]!)).toMatchObject({
      externalUserId: 'u_first',
      attempts: 1,
      // A result given up keeps no image link: listed within its 15 minutes, it says so.
      data: { status: 'verified', frontImageUrl: '' },
      frontImage: { state: 'removed' },
    });

    // Without the receiver's secret, the results stay sealed: listed by key alone, on stderr.
    const keyless = await cli(['list', ...flags], {});
    expect(keyless.code).toBe(0);
    expect(keyless.out).toEqual([]);
    const sealed = keyless.err.filter((line) => line.startsWith('sealed: '));
    expect(sealed).toHaveLength(2);
    expect(sealed[0]).toContain(all.out[0]!.split('\t')[0]!);
    expect(keyless.err.join('\n')).not.toContain('u_first');
  });

  // A user id is whatever the sender put in external_user_id: printed raw, a newline forged a
  // second dead letter with a key of the sender's choosing, and ESC sequences reached the
  // operator's terminal.
  it(`prints a user id's control characters escaped: one dead letter is one line [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const forged = 'u_mallory\nforged-key\tu_victim\u001b[2J\u009b31m\u2028\\n';
    await receiverWithDeadLetters(store, [forged]);
    const listed = await cli(['list', ...flags]);
    expect(listed.code).toBe(0);
    expect(listed.out).toHaveLength(1);
    const [line] = listed.out;
    expect(controlsIn(line!)).toEqual(['\t', '\t', '\t', '\t']);
    expect(line!.split('\t')).toHaveLength(5);
    expect(line!.split('\t')[1]).toBe(
      'u_mallory\\nforged-key\\tu_victim\\x1b[2J\\x9b31m\\u2028\\\\n',
    );
    const json = await cli(['list', '--json', ...flags]);
    expect(json.out).toHaveLength(1);
    expect(controlsIn(json.out[0]!)).toEqual([]);
    expect(JSON.parse(json.out[0]!).externalUserId).toBe(forged);
  });

  // Pointed where no store is, list said "No dead letters" (exit 0), and wrote the store's
  // marker and a write count there.
  it(`pointed where the store has no data: says so, exits 1, writes nothing there [${name}]`, async () => {
    const { store } = await stores.create();
    await receiverWithDeadLetters(store, ['u_first']);
    for (const args of [['list'], ['discard', 'webhook:0123'], ['redeliver', 'webhook:0123']]) {
      const elsewhere = stores.elsewhere();
      const run = await cli([...args, ...elsewhere]);
      expect(run.code, run.all()).toBe(1);
      expect(run.out).toEqual([]);
      expect(run.err).toEqual([
        expect.stringContaining(`faceverify dead-letters: no faceverify data in ${name}`),
      ]);
      expect(run.err[0]).toContain(
        name === 'Redis' ? 'pass --prefix' : 'pass --schema and --prefix',
      );
      expect(await stores.written(elsewhere)).toEqual([]);
    }
  });

  it(`a receiver of several accounts: an ACCOUNT column, and --account lists one account's [${name}]`, async () => {
    const { store, flags } = await stores.create();
    await accountsWithDeadLetters(store, [
      ['acme', 'u_alice'],
      ['globex', 'u_alice'],
      ['acme', 'u_bob'],
    ]);
    const keys = { FACEVERIFY_TOKEN_KEYS: TOKEN_KEY };
    const all = await cli(['list', ...flags], keys);
    expect(all.code).toBe(0);
    expect(all.out.map((line) => line.split('\t').filter((_, at) => at !== 0 && at !== 4))).toEqual(
      [
        ['u_alice', 'verified', '1', 'acme'],
        ['u_alice', 'verified', '1', 'globex'],
        ['u_bob', 'verified', '1', 'acme'],
      ],
    );

    const acme = await cli(['list', '--account', 'acme', ...flags], keys);
    expect(acme.code).toBe(0);
    expect(acme.out).toEqual([all.out[0], all.out[2]]);
    const globex = await cli(['list', '--json', '--account', 'globex', ...flags], keys);
    expect(globex.out.map((line) => JSON.parse(line))).toMatchObject([
      { account: 'globex', externalUserId: 'u_alice' },
    ]);
    // A page is filtered after it is read: the cursor goes on with the account.
    const paged = await cli(['list', '--limit', '1', '--account', 'globex', ...flags], keys);
    expect(paged.out).toEqual([]);
    expect(paged.err.find((line) => line.startsWith('more: '))).toContain(
      'faceverify dead-letters list --account globex --cursor ',
    );
    const none = await cli(['list', '--account', 'initech', ...flags], keys);
    expect(none.out).toEqual([]);
    expect(none.err).toEqual([`No dead letters of account initech in ${name}.`]);

    const key = all.out[0]!.split('\t')[0]!;
    const refused = await cli(['redeliver', key, '--account', 'acme', ...flags], keys);
    expect(refused.code).toBe(2);
    expect(refused.err[0]).toContain('--account filters list only');
  });

  it(`concurrent redeliveries hand a result back once, and the next sweep delivers it once [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const { receiver, state } = await receiverWithDeadLetters(store, ['u_redeliver']);
    const key = (await cli(['list', ...flags])).out[0]!.split('\t')[0]!;
    state.fixed = true;
    const runs = await Promise.all([1, 2, 3].map(() => cli(['redeliver', key, ...flags])));
    expect(runs.map((run) => run.code).sort()).toEqual([0, 1, 1]);
    expect(runs.find((run) => run.code === 0)?.out[0]).toContain('next sweep delivers it');
    expect(runs.find((run) => run.code === 1)?.err[0]).toContain('is no dead letter');
    expect((await cli(['list', ...flags])).out).toEqual([]);

    const sweeps = await Promise.all([receiver.sweep(), receiver.sweep()]);
    expect(sweeps.reduce((sum, report) => sum + report.delivered, 0)).toBe(1);
    expect(state.delivered).toEqual(['u_redeliver']);
    expect(await receiver.sweep()).toMatchObject({ leased: 0 });
    expect(state.delivered).toEqual(['u_redeliver']);
  });

  it(`a discarded result is neither listed nor delivered, and cannot be discarded twice [${name}]`, async () => {
    const { store, flags } = await stores.create();
    const { receiver, state } = await receiverWithDeadLetters(store, ['u_discard']);
    const key = (await cli(['list', ...flags])).out[0]!.split('\t')[0]!;
    state.fixed = true;
    const discarded = await cli(['discard', key, ...flags]);
    expect(discarded.code).toBe(0);
    expect(discarded.out).toEqual([`${key}: discarded.`]);
    expect((await cli(['list', ...flags])).out).toEqual([]);
    expect(await receiver.sweep()).toMatchObject({ leased: 0 });
    expect(state.delivered).toEqual([]);
    expect((await cli(['discard', key, ...flags])).code).toBe(1);
    expect((await cli(['redeliver', key, ...flags])).code).toBe(1);
  });

  it(`the installed command redelivers, with exit code 0 then 1 [${name}]`, async () => {
    const { store, flags } = await stores.create();
    await receiverWithDeadLetters(store, ['u_bin']);
    const key = (await cli(['list', ...flags])).out[0]!.split('\t')[0]!;
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [BIN, 'dead-letters', ...args], {
        env: { PATH: process.env.PATH ?? '', ...stores.env, FACEVERIFY_WEBHOOK_SECRET: SECRET },
      }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => error,
      );
    const first = await run(['redeliver', key, ...flags]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('handed back for delivery');
    expect((await run(['redeliver', key, ...flags])).code).toBe(1);
  });
});

describe('faceverify dead-letters, usage', () => {
  const cli = async (args: string[], env: Record<string, string>) => {
    const captured = capturingIO(env);
    return { code: await runCli(['dead-letters', ...args], captured.io), ...captured };
  };

  it('--help prints the command help and exits 0', async () => {
    const help = await cli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.out[0]).toContain(
      'usage: faceverify dead-letters <list|redeliver KEY|discard KEY>',
    );
  });

  it('exits 2 on a missing action, a missing key, a bad limit, or no store to use', async () => {
    const env = { REDIS_URL: 'redis://127.0.0.1:1' };
    expect((await cli([], env)).code).toBe(2);
    expect((await cli(['redeliver'], env)).err[0]).toContain('takes one KEY');
    expect((await cli(['list', '--limit', '0'], env)).code).toBe(2);
    const none = await cli(['list'], {});
    expect(none.code).toBe(2);
    expect(none.err[0]).toContain('set REDIS_URL or DATABASE_URL');
    const both = await cli(['list'], { ...env, DATABASE_URL: 'postgres://127.0.0.1:1/x' });
    expect(both.code).toBe(2);
    expect(both.err[0]).toContain('pass --store redis or --store postgres');
  });

  it('exits 1 when the store cannot be reached, without printing the password', async () => {
    const unreachable = await cli(['list'], {
      DATABASE_URL: 'postgres://app:s3cret-password@127.0.0.1:1/app',
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.all()).toContain('Check that DATABASE_URL points at');
    expect(unreachable.all()).not.toContain('s3cret-password');
  });

  it('hides a one-letter password without cutting letters out of words', async () => {
    const unreachable = await cli(['list'], { DATABASE_URL: 'postgres://max:c@127.0.0.1:1/app' });
    expect(unreachable.code).toBe(1);
    // The driver's message lost every "c": "***onne***t ECONNREFUSED".
    expect(unreachable.all()).toContain('(connect ECONNREFUSED 127.0.0.1:1)');
    expect(unreachable.all()).not.toContain(':c@');
  });

  // Too short to hide where it stands alone: "a" is a word of every sentence, "1" and "0" are
  // in every address. The URL's userinfo is hidden by its place, whatever its length.
  it.each([
    ['a', 'DATABASE_URL', 'postgres://max:a@127.0.0.1:1/app'],
    ['1', 'DATABASE_URL', 'postgres://max:1@127.0.0.1:1/app'],
    ['0', 'DATABASE_URL', 'postgres://max:0@127.0.0.1:1/app'],
    ['a', 'REDIS_URL', 'redis://:a@127.0.0.1:1'],
    ['1', 'REDIS_URL', 'redis://:1@127.0.0.1:1'],
    ['0', 'REDIS_URL', 'redis://:0@127.0.0.1:1'],
  ])('leaves messages whole with the password "%s" in %s', async (password, name, url) => {
    const unreachable = await cli(['list'], { [name]: url });
    expect(unreachable.code).toBe(1);
    expect(unreachable.all()).not.toContain('***');
    expect(unreachable.all()).not.toContain(`:${password}@`);
    if (name === 'DATABASE_URL') expect(unreachable.all()).toContain('ECONNREFUSED 127.0.0.1:1)');
    else expect(unreachable.all()).toContain('(which is 1)');
  });
});
