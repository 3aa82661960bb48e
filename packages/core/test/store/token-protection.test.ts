import { createCipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/base/errors.js';
import { createReceiver } from '../../src/receiver/create-receiver.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { Keyring } from '../../src/store/sealed/keyring.js';
import { openSealedToken, sealToken } from '../../src/store/sealed/sealed-token.js';
import {
  deriveTokenKey,
  recordKeyOf,
  type TokenKey,
  tokenKeySecrets,
} from '../../src/store/sealed/token-keys.js';
import { TokenProtectingStore } from '../../src/store/sealed/token-protecting-store.js';
import type { TrackedSession } from '../../src/store/store.js';
import { fixturePayload } from '../../src/testing/fixture-payload.js';
import { signedDelivery } from '../../src/testing/signed-delivery.js';

const T0 = Date.UTC(2030, 0, 1);
const OLD_SECRET = 'whsec_old_0123456789abcdef0123456789';
const NEW_SECRET = 'whsec_new_0123456789abcdef0123456789';

function pending(token: string, user = 'alice'): TrackedSession {
  return {
    key: token,
    token,
    externalUserId: user,
    createdAt: T0,
    expiresAt: T0 + 60_000,
    state: 'pending',
    dueAt: T0,
    attempts: 0,
  };
}

const everything = (store: MemoryStore) =>
  inspect(store, { depth: Number.POSITIVE_INFINITY, maxArrayLength: null, maxStringLength: null });

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A keyring of `keys` that seals under every one of them. */
const keyring = (...keys: TokenKey[]) => new Keyring(keys, keys.length);
const openToken = async (ring: Keyring, sealed: string, recordKey: string) =>
  (await openSealedToken(ring, sealed, recordKey))?.token;

describe('sealed tokens', () => {
  it('open only in the record they were sealed for, with the key their id names, unaltered', async () => {
    const [a, b] = await Promise.all([deriveTokenKey(OLD_SECRET), deriveTokenKey(NEW_SECRET)]);
    const sealed = await sealToken(keyring(a), 'tok_secret', 't1:record-a');
    expect(sealed).toMatch(new RegExp(`^fvt2\\.${a.id}\\.[A-Za-z0-9_-]+~[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('tok_secret');
    expect(await openToken(keyring(b, a), sealed, 't1:record-a')).toBe('tok_secret');
    // Copied into another record, it does not open: the record key is associated data.
    expect(await openToken(keyring(a), sealed, 't1:record-b')).toBeUndefined();
    expect(await openToken(keyring(b), sealed, 't1:record-a')).toBeUndefined();
    // The second-to-last base64url digit always carries six bits of the tag: changed to
    // another digit, the text is altered whatever the random IV made it.
    const digit = sealed.at(-2);
    const flipped = `${sealed.slice(0, -2)}${digit === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(flipped).not.toBe(sealed);
    expect(await openToken(keyring(a), flipped, 't1:record-a')).toBeUndefined();
    // Sealing twice gives two texts (a fresh IV each time).
    expect(await sealToken(keyring(a), 'tok_secret', 't1:record-a')).not.toBe(sealed);
  });

  it('never seal two texts with one IV, across refills of the random buffer IVs come from', async () => {
    const ring = keyring(await deriveTokenKey(OLD_SECRET));
    // 1,000 seals draw 12,000 bytes: the 4 KiB buffer is refilled twice on the way.
    const sealed = await Promise.all(
      Array.from({ length: 1_000 }, () => sealToken(ring, 'tok_same', 't1:record-a')),
    );
    const ivs = sealed.map((text) => text.split('~')[1]!.slice(0, 16));
    expect(new Set(ivs).size).toBe(1_000);
    for (const text of sealed.slice(-3)) {
      expect(await openToken(ring, text, 't1:record-a')).toBe('tok_same');
    }
  });

  it('seal once whatever the number of keys: one data key, wrapped under each, opened by any', async () => {
    const keys = await Promise.all(
      ['k1', 'k2', 'k3'].map((name) => deriveTokenKey(`${name}_0123456789abcdef0123456789`)),
    );
    const ring = keyring(...keys);
    const sealed = await sealToken(ring, 'tok_many', 't1:record-a');
    const [header, ...parts] = sealed.slice('fvt2.'.length).split('~');
    // One sealed part, and the data key wrapped under each key, named by its id in clear.
    expect(parts).toHaveLength(1);
    expect(header!.split('.').filter((_, index) => index % 2 === 0)).toEqual(
      keys.map((key) => key.id),
    );
    for (const key of keys)
      expect(await openToken(keyring(key), sealed, 't1:record-a')).toBe('tok_many');
    // The next text reuses the data key: nothing is wrapped again, its header is the same.
    const next = await sealToken(ring, 'tok_next', 't1:record-b');
    expect(next.split('~')[0]).toBe(sealed.split('~')[0]);
    // A wrapped data key moved under another key's id does not open.
    const [id1, wrapped1, id2] = header!.split('.');
    const swapped = sealed.replace(`${id1}.${wrapped1}.${id2}.`, `${id2}.${wrapped1}.${id1}.`);
    expect(await openToken(keyring(keys[1]!), swapped, 't1:record-a')).toBeUndefined();
  });

  it('a token sealed under each key apart (fvt1, before envelopes) still opens', async () => {
    const [a, b] = await Promise.all([deriveTokenKey(OLD_SECRET), deriveTokenKey(NEW_SECRET)]);
    // fvt1.<key id>.<IV, ciphertext and tag>, one pair per key, the record key as associated data.
    const sealOne = (key: TokenKey) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.sealKey, iv).setAAD(Buffer.from('t1:old'));
      const body = Buffer.concat([
        iv,
        cipher.update('tok_v1\u0000alice'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${key.id}.${body.toString('base64url')}`;
    };
    const v1 = `fvt1.${sealOne(a)}.${sealOne(b)}`;
    expect(await openSealedToken(keyring(b), v1, 't1:old')).toEqual({
      token: 'tok_v1',
      externalUserId: 'alice',
    });
    expect(await openToken(keyring(a), v1, 't1:other')).toBeUndefined();
  });

  it('record keys differ per key and per token, and never contain the token', async () => {
    const [a, b] = await Promise.all([deriveTokenKey(OLD_SECRET), deriveTokenKey(NEW_SECRET)]);
    const key = await recordKeyOf(a, 'tok_1');
    expect(key).toMatch(/^t1:[A-Za-z0-9_-]{43}$/);
    expect(await recordKeyOf(a, 'tok_1')).toBe(key);
    expect(await recordKeyOf(b, 'tok_1')).not.toBe(key);
    expect(await recordKeyOf(a, 'tok_2')).not.toBe(key);
  });
});

describe('TokenProtectingStore over a MemoryStore', () => {
  it('a dead letter is listed, redelivered and settled by its stored key, without its token', async () => {
    const memory = new MemoryStore();
    const store = new TokenProtectingStore(memory, [OLD_SECRET]);
    const result = { payload: fixturePayload(), source: 'poll' as const, receivedAt: T0 };
    await store.insert({ record: pending('tok_dead_1'), now: T0 });
    await store.attachResult({ key: 'tok_dead_1', result, now: T0 });
    await store.lease({ key: 'tok_dead_1', owner: 'w', now: T0, leaseMs: 1000 });
    const update = { state: 'failed' as const, retainMs: 60_000, attempts: 3 };
    expect(await store.settle({ key: 'tok_dead_1', owner: 'w', update, now: T0 })).toBe(true);

    const { records } = await store.listDeadLetters({ now: T0, limit: 10 });
    expect(records).toHaveLength(1);
    const key = records[0]!.key;
    expect(key).toMatch(/^t1:/);
    expect(records[0]!.token).toBeUndefined();
    expect(JSON.stringify(records)).not.toContain('tok_dead_1');

    expect(await store.redeliverDeadLetter({ key, now: T0 + 1 })).toBe(true);
    const [due] = await store.leaseDue({ owner: 'w2', now: T0 + 1, leaseMs: 1000, limit: 10 });
    expect(due).toMatchObject({ key, state: 'delivering', attempts: 0, result });
    expect(due!.token).toBeUndefined();
    const completed = { state: 'completed' as const, retainMs: 0 };
    expect(await store.settle({ key, owner: 'w2', update: completed, now: T0 + 2 })).toBe(true);
    expect(everything(memory)).not.toContain('tok_dead_1');
  });

  it('a dead letter can also be named by its session token', async () => {
    const store = new TokenProtectingStore(new MemoryStore(), [NEW_SECRET, OLD_SECRET]);
    const result = { payload: fixturePayload(), source: 'poll' as const, receivedAt: T0 };
    await store.insert({ record: pending('tok_dead_2'), now: T0 });
    await store.attachResult({ key: 'tok_dead_2', result, now: T0 });
    await store.lease({ key: 'tok_dead_2', owner: 'w', now: T0, leaseMs: 1000 });
    const update = { state: 'failed' as const, retainMs: 60_000 };
    await store.settle({ key: 'tok_dead_2', owner: 'w', update, now: T0 });
    expect(await store.discardDeadLetter({ key: 'tok_dead_2', now: T0 })).toBe(true);
    expect((await store.listDeadLetters({ now: T0, limit: 10 })).records).toEqual([]);
  });

  it('stores no token, answers in tokens, and drops the sealed token on close', async () => {
    const memory = new MemoryStore();
    const store = new TokenProtectingStore(memory, [OLD_SECRET]);
    await store.insert({ record: pending('tok_alice_1'), now: T0 });
    expect(everything(memory)).not.toContain('tok_alice_1');
    expect(everything(memory)).toContain('fvt2.');

    const leased = await store.lease({ key: 'tok_alice_1', owner: 'w', now: T0, leaseMs: 1000 });
    expect(leased).toMatchObject({ key: 'tok_alice_1', token: 'tok_alice_1' });
    expect(await store.findByUser({ externalUserId: 'alice', now: T0, limit: 5 })).toMatchObject([
      { key: 'tok_alice_1', token: 'tok_alice_1' },
    ]);
    expect(
      await store.settle({
        key: 'tok_alice_1',
        owner: 'w',
        update: { state: 'completed', retainMs: 60_000 },
        now: T0,
      }),
    ).toBe(true);
    expect(everything(memory)).not.toContain('fvt2.');
    // Closed, it is still found by its token (as confirm() does), but no longer holds it.
    expect(await store.get({ key: 'tok_alice_1', now: T0 })).toMatchObject({
      key: 'tok_alice_1',
      token: 'tok_alice_1',
      state: 'completed',
    });
    const [closed] = await store.findByUser({ externalUserId: 'alice', now: T0, limit: 5 });
    expect(closed?.token).toBeUndefined();
    expect(closed?.key).toMatch(/^t1:/);
  });

  it('rotation: a token is sealed under every listed key, so both neighbouring steps open it', async () => {
    const memory = new MemoryStore();
    const alarms: string[] = [];
    const watch = (store: TokenProtectingStore) => {
      store.onAlarm((alarm) => alarms.push(`${alarm.code}: ${alarm.message}`));
      return store;
    };
    const before = watch(new TokenProtectingStore(memory, [OLD_SECRET]));
    await before.insert({ record: pending('tok_before'), now: T0 });
    // Step 1 of the rotation on one instance: the new secret listed first.
    const rotating = watch(new TokenProtectingStore(memory, [NEW_SECRET, OLD_SECRET]));
    await rotating.insert({ record: pending('tok_during', 'bob'), now: T0 });
    // Step 2 on another instance, while the first may still run step 1.
    const after = watch(new TokenProtectingStore(memory, [NEW_SECRET]));
    const [oldKey, newKey] = await Promise.all([
      deriveTokenKey(OLD_SECRET),
      deriveTokenKey(NEW_SECRET),
    ]);
    const sealed = [...everything(memory).matchAll(/fvt2\.[A-Za-z0-9_.~-]+/g)].map((m) => m[0]);
    expect(sealed).toHaveLength(2);
    expect(
      sealed.some((text) => text.includes(`${newKey.id}.`) && text.includes(`${oldKey.id}.`)),
    ).toBe(true);
    // The instance still on the previous step opens what step 1 sealed, and so does step 2.
    const bySweep = async (store: TokenProtectingStore, at: number) =>
      (await store.leaseDue({ owner: `sweep${at}`, now: T0 + at, leaseMs: 1, limit: 10 })).find(
        (record) => record.externalUserId === 'bob',
      );
    expect(await bySweep(before, 10)).toMatchObject({ key: 'tok_during', token: 'tok_during' });
    expect(await rotating.get({ key: 'tok_before', now: T0 })).toMatchObject({
      token: 'tok_before',
    });
    // But bob is indexed under the new key's hash, which the instance of the step before
    // lacks: a webhook naming him finds no session there (the old order's fault, below), and
    // its sweep says so, naming the key.
    expect(alarms.splice(0)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^token_key_missing: Sessions in the store are indexed by their users under a key this instance does not list as a token key \\(${newKey.id}\\): webhooks naming their users find no session here`,
        ),
      ),
    ]);
    expect(await bySweep(after, 20)).toMatchObject({ key: 'tok_during', token: 'tok_during' });

    // A session sealed under the old key alone, with the old key gone everywhere: it is handed
    // over as stored, marked, and raised once (not at every read) with the key to list again.
    // Its user's id was sealed with its token, so it is not known here either.
    const orphan = (await after.leaseDue({ owner: 'x', now: T0 + 30, leaseMs: 1, limit: 10 })).find(
      (record) => record.unreadableToken !== undefined,
    );
    expect(orphan?.externalUserId).toMatch(/^u1:/);
    expect(orphan?.token).toBeUndefined();
    expect(orphan?.key).toMatch(/^t1:/);
    expect(orphan?.unreadableToken).toEqual({ keyIds: [oldKey.id] });
    await after.leaseDue({ owner: 'y', now: T0 + 40, leaseMs: 1, limit: 10 });
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatch(
      /^token_key_missing: .*token key [A-Za-z0-9_-]+, .*FACEVERIFY_TOKEN_KEYS/,
    );
    expect(alarms[0]).toContain(oldKey.id);
    // Left as it is, it can be handed back by the key it came with.
    expect(
      await after.settle({
        key: orphan!.key,
        owner: 'y',
        update: { state: 'pending', dueAt: T0 + 60_000, attempts: 0 },
        now: T0 + 40,
      }),
    ).toBe(true);
  });

  // The documented rotation, rolled out one instance at a time: at every step, an instance
  // of the step before and one of the step after find each other's sessions by token and by
  // user (a webhook is matched by its user), and open their tokens. In the order the docs
  // gave before (the new key first at once), the instance still without it found neither.
  type Keys = ConstructorParameters<typeof TokenProtectingStore>[1];
  const A = 'tk_rotation_a_0123456789abcdefghijklmnop';
  const B = 'tk_rotation_b_0123456789abcdefghijklmnop';
  const neighbours = async (before: Keys, after: Keys) => {
    const memory = new MemoryStore();
    const stores = [
      new TokenProtectingStore(memory, before),
      new TokenProtectingStore(memory, after),
    ];
    const found: boolean[] = [];
    for (const [index, starter] of stores.entries()) {
      const other = stores[1 - index]!;
      const token = `tok_${index}`;
      const user = `user_${index}`;
      await starter.insert({ record: pending(token, user), now: T0 });
      const byToken = await other.get({ key: token, now: T0 });
      const byUser = await other.findByUser({ externalUserId: user, now: T0, limit: 5 });
      found.push(byToken?.token === token, byUser.length === 1 && byUser[0]!.token === token);
    }
    return found;
  };
  /** At every step of `steps`, an instance of it and one of the step before find each other. */
  const expectNeighboursFindEachOther = async (steps: Keys[]) => {
    for (let step = 1; step < steps.length; step++) {
      expect(await neighbours(steps[step - 1]!, steps[step]!), `step ${step}`).toEqual([
        true,
        true,
        true,
        true,
      ]);
    }
  };

  // Setting token keys for the first time, as docs/polling-and-stores.md gives it: the
  // signing secret, which keyed everything so far, is the old key of a rotation. Beside token
  // keys it still opens what it sealed, but users are looked up under the token keys alone
  // (no second lookup per webhook for a hash nothing new is written under), so it stays listed
  // among them until the sessions it keyed have closed.
  const S = 'whsec_signing_0123456789abcdefghijklmnop';
  const K = 'tk_dedicated_0123456789abcdefghijklmnop';
  const configured = (tokenKeys?: string[]) => tokenKeySecrets(tokenKeys, [S], 'tokenKeys');

  it('first token key: at every documented step, the step before and the step after find each other by token and by user', async () => {
    await expectNeighboursFindEachOther([
      configured(),
      configured([S, K]),
      configured([K, S]),
      configured([K]),
    ]);
    // The step the docs gave before, the signing secret dropped from the token keys at once:
    // the instance on it does not find by user a session the other keyed under the secret.
    expect(await neighbours(configured([S, K]), configured([K]))).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });

  it('a signing secret left out of the token keys too soon: a sweep opens its sessions and says their users are not found, naming the key and the fix', async () => {
    const memory = new MemoryStore();
    await new TokenProtectingStore(memory, configured()).insert({
      record: pending('tok_keyed_by_secret', 'erin'),
      now: T0,
    });
    const store = new TokenProtectingStore(memory, configured([K]));
    const alarms: string[] = [];
    store.onAlarm((alarm) => alarms.push(`${alarm.code}: ${alarm.message}`));
    const [due] = await store.leaseDue({ owner: 'sweep', now: T0, leaseMs: 1, limit: 10 });
    const secretKey = await deriveTokenKey(S);
    // Opened (the secret still opens what it sealed), but its user is not looked up under it.
    expect(due).toMatchObject({ token: 'tok_keyed_by_secret', externalUserId: 'erin' });
    expect(due?.userKeyMissing).toEqual({ keyIds: [secretKey.id] });
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toContain(`not list as a token key (${secretKey.id})`);
    expect(alarms[0]).toMatch(
      /a signing secret that keyed them .* goes last among FACEVERIFY_TOKEN_KEYS/,
    );
  });

  it('erases a user hashed under the signing secret before token keys were set', async () => {
    const memory = new MemoryStore();
    await new TokenProtectingStore(memory, configured()).insert({
      record: pending('tok_before_keys', 'carol'),
      now: T0,
    });
    const store = new TokenProtectingStore(memory, configured([K]));
    expect(await store.findByUser({ externalUserId: 'carol', now: T0, limit: 5 })).toEqual([]);
    expect(await store.forgetUser({ externalUserId: 'carol', now: T0 })).toBe(1);
    expect(await memory.leaseDue({ owner: 'x', now: T0, leaseMs: 1, limit: 10 })).toEqual([]);
  });

  it('rotation: at every documented step, the step before and the step after find each other by token and by user', async () => {
    await expectNeighboursFindEachOther([[A], [A, B], [B, A], [B]]);
    // The old first step: the updated instance keys and hashes under B, the other lacks it.
    expect(await neighbours([A], [B, A])).toEqual([true, true, false, false]);
  });

  it('finds records written before tokens were protected, keyed by the token itself', async () => {
    const memory = new MemoryStore();
    await memory.insert({ record: pending('tok_legacy'), now: T0 });
    const store = new TokenProtectingStore(memory, [OLD_SECRET]);
    expect(await store.get({ key: 'tok_legacy', now: T0 })).toMatchObject({
      key: 'tok_legacy',
      token: 'tok_legacy',
    });
    const result = { payload: fixturePayload(), source: 'webhook' as const, receivedAt: T0 };
    expect(await store.attachResult({ key: 'absent', result, now: T0 })).toBe('missing');
    await store.lease({ key: 'tok_legacy', owner: 'w', now: T0, leaseMs: 1000 });
    expect(
      await store.settle({
        key: 'tok_legacy',
        owner: 'w',
        update: { state: 'expired', retainMs: 60_000 },
        now: T0,
      }),
    ).toBe(true);
    expect((await memory.get({ key: 'tok_legacy', now: T0 }))?.token).toBeUndefined();
  });

  it('settles a record leased by a sweep under the key it was found at, in one store call', async () => {
    const memory = new MemoryStore();
    // One record written before tokens were protected, one sealed under the previous key.
    await memory.insert({ record: { ...pending('tok_legacy'), state: 'delivering' }, now: T0 });
    await new TokenProtectingStore(memory, [OLD_SECRET]).insert({
      record: { ...pending('tok_old', 'bob'), state: 'delivering' },
      now: T0,
    });
    const store = new TokenProtectingStore(memory, [NEW_SECRET, OLD_SECRET]);
    const due = await store.leaseDue({ owner: 'sweep', now: T0, leaseMs: 1000, limit: 10 });
    expect(due.map((record) => record.key).sort()).toEqual(['tok_legacy', 'tok_old']);
    const settles = vi.spyOn(memory, 'settle');
    for (const { key } of due) {
      const update = { state: 'completed', retainMs: 60_000 } as const;
      expect(await store.settle({ key, owner: 'sweep', update, now: T0 })).toBe(true);
    }
    expect(settles).toHaveBeenCalledTimes(2);
    // A record that is gone is still looked for under every key, and not found.
    settles.mockClear();
    const update = { state: 'completed', retainMs: 0 } as const;
    expect(await store.settle({ key: 'tok_legacy', owner: 'sweep', update, now: T0 })).toBe(false);
    expect(settles).toHaveBeenCalledTimes(3);
  });
});

describe('token keys configuration', () => {
  const base = { secret: OLD_SECRET, client: false as const, store: new MemoryStore() };

  it('refuses a dedicated key too short to protect anything, saying how to make one', () => {
    const make = () => createReceiver({ ...base, tokenKeys: ['hunter2-key'] });
    expect(make).toThrow(ConfigurationError);
    expect(make).toThrow(/openssl rand -base64 32/);
    // The value given is a secret: the message names its position, never the value.
    expect(make).not.toThrow(/hunter2/);
  });

  it('takes a signing secret listed among the token keys as it is, whatever its length', () => {
    // The first step of setting tokenKeys: the signing secret first, the new key after it.
    const short = 'whsec_short_1234';
    const tokenKeys = [short, 'k'.repeat(32)];
    expect(() => createReceiver({ ...base, secret: short, tokenKeys })).not.toThrow();
    // Only as the signing secret: the same text that is not one is refused.
    expect(() => createReceiver({ ...base, tokenKeys })).toThrow(/Token key #0/);
  });

  it("looks a webhook's user up once with token keys and a signing secret, once per key while a rotation rolls out", async () => {
    const lookups = async (tokenKeys: string[]) => {
      const store = new MemoryStore();
      const findByUser = vi.spyOn(store, 'findByUser');
      const receiver = createReceiver({ ...base, store, tokenKeys });
      receiver.on('verification.completed', () => undefined);
      const answer = await receiver.receive(
        await signedDelivery(fixturePayload({ external_user_id: 'dave' }), { secret: OLD_SECRET }),
      );
      expect(answer.status).toBe(200);
      return findByUser.mock.calls.length;
    };
    expect(await lookups(['k'.repeat(32)])).toBe(1);
    expect(await lookups(['k'.repeat(32), 'j'.repeat(32)])).toBe(2);
  });

  it('reads FACEVERIFY_TOKEN_KEYS when the option is absent', () => {
    vi.stubEnv('FACEVERIFY_TOKEN_KEYS', 'too-short');
    expect(() => createReceiver(base)).toThrow(/FACEVERIFY_TOKEN_KEYS/);
    vi.stubEnv('FACEVERIFY_TOKEN_KEYS', `${'k'.repeat(32)}, ${'j'.repeat(40)}`);
    expect(() => createReceiver(base)).not.toThrow();
  });
});
