import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { withoutImageLink } from '../../src/delivery/stored-image-link.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { deriveTokenKey, tokenKeySecrets } from '../../src/store/sealed/token-keys.js';
import { TokenProtectingStore } from '../../src/store/sealed/token-protecting-store.js';
import type { StoredResult, TrackedSession } from '../../src/store/store.js';
import { fixturePayload } from '../../src/testing/fixture-payload.js';

// Issue 35, part 1: a store holds no user id, outcome, reason or image link in clear. The
// wrapper every store sits behind hashes the id (keyed) and seals the result; the Receiver
// gets both back opened, under every key of a rotation.

const T0 = Date.UTC(2030, 0, 1);
const KEY_A = 'whsec_key_a_0123456789abcdef0123456789';
const KEY_B = 'whsec_key_b_0123456789abcdef0123456789';
const USER = 'canary-user-7f3a9';
const REASON = 'canary-reason-quartz-91';
const IMAGE = 'https://files.canary.example/front/canary-image-5d2e.jpg?sig=canary-sig';
const CANARIES = [USER, REASON, 'canary-image-5d2e', 'canary-sig'];

const everything = (store: MemoryStore) =>
  inspect(store, { depth: Number.POSITIVE_INFINITY, maxArrayLength: null, maxStringLength: null });
const leaks = (store: MemoryStore) =>
  CANARIES.filter((canary) => everything(store).includes(canary));

function result(source: StoredResult['source'] = 'webhook'): StoredResult {
  return {
    payload: fixturePayload({ external_user_id: USER, reason: REASON, frontImageUrl: IMAGE }),
    source,
    receivedAt: T0,
    secretLabel: 'current',
  };
}

function pending(token: string, user = USER): TrackedSession {
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

describe('results at rest (TokenProtectingStore over a MemoryStore)', () => {
  it('keeps the id hashed and the result sealed, and hands both back opened', async () => {
    const memory = new MemoryStore();
    const store = new TokenProtectingStore(memory, [KEY_A]);
    await store.insert({ record: pending('tok_1'), now: T0 });
    expect(leaks(memory)).toEqual([]);
    expect(everything(memory)).toMatch(/u1:[A-Za-z0-9_-]{43}/);

    // A pending session's id comes back from its sealed token (an expiry event names it).
    const [due] = await store.leaseDue({ owner: 'w', now: T0, leaseMs: 1000, limit: 5 });
    expect(due).toMatchObject({ key: 'tok_1', token: 'tok_1', externalUserId: USER });
    await store.settle({
      key: 'tok_1',
      owner: 'w',
      update: { state: 'pending', dueAt: T0 + 1000, attempts: 1 },
      now: T0,
    });

    expect(await store.attachResult({ key: 'tok_1', result: result(), now: T0 })).toBe('attached');
    expect(leaks(memory)).toEqual([]);
    expect(everything(memory)).toContain('fvr2.');
    const leased = await store.lease({ key: 'tok_1', owner: 'w', now: T0, leaseMs: 1000 });
    expect(leased).toMatchObject({ externalUserId: USER, result: result() });

    // A handler failure, then a dead letter: still sealed, and listed opened.
    await store.settle({
      key: 'tok_1',
      owner: 'w',
      update: { state: 'failed', retainMs: 60_000, attempts: 3, result: result() },
      now: T0,
    });
    expect(leaks(memory)).toEqual([]);
    const { records } = await store.listDeadLetters({ now: T0, limit: 5 });
    expect(records).toMatchObject([{ externalUserId: USER, result: result() }]);
    // The raw store lists it sealed.
    const raw = await memory.listDeadLetters({ now: T0, limit: 5 });
    expect(JSON.stringify(raw)).not.toContain(USER);

    // Found by the user's id (a webhook's lookup), closed (its token gone, so by its stored
    // key), with its result to compare.
    expect(await store.findByUser({ externalUserId: USER, now: T0, limit: 5 })).toMatchObject([
      {
        key: expect.stringMatching(/^t1:/),
        state: 'failed',
        externalUserId: USER,
        result: result(),
      },
    ]);
    expect(await memory.findByUser({ externalUserId: USER, now: T0, limit: 5 })).toEqual([]);
  });

  it('seals a delivery matched to no session too, keyed by its digest', async () => {
    const memory = new MemoryStore();
    const store = new TokenProtectingStore(memory, [KEY_A]);
    const record: TrackedSession = {
      key: 'webhook:0123abcd',
      externalUserId: USER,
      createdAt: T0,
      expiresAt: T0 + 60_000,
      state: 'delivering',
      dueAt: T0,
      attempts: 0,
      result: result(),
      lease: { owner: 'w', until: T0 + 1000 },
    };
    expect((await store.insert({ record, now: T0, maxOpenPerUser: 3 })).inserted).toBe(true);
    expect(leaks(memory)).toEqual([]);
    expect(await store.get({ key: 'webhook:0123abcd', now: T0 })).toMatchObject({
      key: 'webhook:0123abcd',
      externalUserId: USER,
      result: result(),
    });
  });

  it('the user bound holds on the hashed id: the oldest open session is displaced, opened', async () => {
    const store = new TokenProtectingStore(new MemoryStore(), [KEY_A]);
    await store.insert({ record: pending('tok_old'), now: T0, maxOpenPerUser: 1 });
    const { displaced } = await store.insert({
      record: { ...pending('tok_new'), createdAt: T0 + 1 },
      now: T0 + 1,
      maxOpenPerUser: 1,
    });
    expect(displaced).toMatchObject([{ key: 'tok_old', token: 'tok_old', externalUserId: USER }]);
  });

  it('rotation: what key A sealed is read under [B, A], found by the user, and left alone under [B]', async () => {
    const memory = new MemoryStore();
    const before = new TokenProtectingStore(memory, [KEY_A]);
    await before.insert({ record: pending('tok_a'), now: T0 });
    await before.attachResult({ key: 'tok_a', result: result('poll'), now: T0 });

    const rotating = new TokenProtectingStore(memory, [KEY_B, KEY_A]);
    await rotating.insert({ record: { ...pending('tok_b'), createdAt: T0 + 1 }, now: T0 });
    expect(leaks(memory)).toEqual([]);
    const found = await rotating.findByUser({ externalUserId: USER, now: T0, limit: 5 });
    expect(found.map((record) => record.key).sort()).toEqual(['tok_a', 'tok_b']);
    expect(found.find((record) => record.key === 'tok_a')).toMatchObject({
      externalUserId: USER,
      result: result('poll'),
    });
    expect(await rotating.get({ key: 'tok_a', now: T0 })).toMatchObject({
      externalUserId: USER,
      result: result('poll'),
    });

    // Key A gone everywhere too soon: its record is handed over without what A sealed, marked,
    // and with a stored result (so the Receiver keeps it waiting instead of asking again).
    const after = new TokenProtectingStore(memory, [KEY_B]);
    const alarms: string[] = [];
    after.onAlarm((alarm) => alarms.push(alarm.code));
    const due = await after.leaseDue({ owner: 'x', now: T0 + 10, leaseMs: 1, limit: 10 });
    const orphan = due.find((record) => record.unreadableToken);
    const keyA = await deriveTokenKey(KEY_A);
    expect(orphan?.unreadableToken).toEqual({ keyIds: [keyA.id], hasResult: true });
    expect(orphan?.result).toBeUndefined();
    expect(orphan?.externalUserId).toMatch(/^u1:/);
    expect(alarms).toEqual(['token_key_missing']);
    // What [B] wrote ([B, A] sealed it under both) still opens.
    expect(due.find((record) => record.key === 'tok_b')).toMatchObject({ externalUserId: USER });
  });

  it('finds records written before results were sealed (clear id and result) by user only with lookUpClearUserIds, and erases them either way', async () => {
    const memory = new MemoryStore();
    await memory.insert({ record: { ...pending('tok_legacy'), result: result() }, now: T0 });
    await memory.insert({ record: pending('tok_legacy_2', 'canary-user-2'), now: T0 });
    // By default, one lookup per webhook: under the hash alone.
    const upgraded = new TokenProtectingStore(memory, [KEY_A]);
    expect(await upgraded.findByUser({ externalUserId: USER, now: T0, limit: 5 })).toEqual([]);
    expect(await upgraded.forgetUser({ externalUserId: 'canary-user-2', now: T0 })).toBe(1);
    const store = new TokenProtectingStore(memory, [KEY_A], { lookUpClearUserIds: true });
    expect(await store.findByUser({ externalUserId: USER, now: T0, limit: 5 })).toMatchObject([
      { key: 'tok_legacy', token: 'tok_legacy', externalUserId: USER, result: result() },
    ]);
    await store.lease({ key: 'tok_legacy', owner: 'w', now: T0, leaseMs: 1000 });
    expect(
      await store.settle({
        key: 'tok_legacy',
        owner: 'w',
        update: { state: 'completed', retainMs: 60_000, result: result() },
        now: T0,
      }),
    ).toBe(true);
    // The store keeps the first result, so the clear one stays until its retention ends.
    expect(await store.get({ key: 'tok_legacy', now: T0 })).toMatchObject({
      state: 'completed',
      result: result(),
    });
  });

  it('dropping the image link seals nothing again: the link is a part of its own, left out', async () => {
    const memory = new MemoryStore();
    const store = new TokenProtectingStore(memory, [KEY_A, KEY_B]);
    await store.insert({ record: pending('tok_link'), now: T0 });
    await store.attachResult({ key: 'tok_link', result: result(), now: T0 });
    const sealedText = () => /fvr2\.[A-Za-z0-9_.~-]+/.exec(everything(memory))![0];
    const before = sealedText();
    expect(before.split('~')).toHaveLength(3);
    const leased = await store.lease({ key: 'tok_link', owner: 'w', now: T0 + 1, leaseMs: 1000 });
    // A retry due after the link's 15 minutes keeps the result without it.
    const update = { state: 'delivering', dueAt: T0 + 60_000, attempts: 1 } as const;
    const dropped = withoutImageLink(leased!.result!);
    expect(
      await store.settle({
        key: 'tok_link',
        owner: 'w',
        update: { ...update, result: dropped },
        now: T0 + 1,
      }),
    ).toBe(true);
    const after = sealedText();
    expect(after).toBe(before.split('~').slice(0, 2).join('~'));
    expect(leaks(memory)).toEqual([]);
    // Another instance, which never saw it, opens it without the link and with all else.
    const reader = new TokenProtectingStore(memory, [KEY_A, KEY_B]);
    const read = await reader.get({ key: 'tok_link', now: T0 + 2 });
    expect(read?.result).toEqual({
      ...result(),
      payload: { ...result().payload, frontImageUrl: '' },
    });
  });

  it('a sweep of more records than the opened-results cache holds settles each without its link, sealing nothing again', async () => {
    const memory = new MemoryStore();
    const writer = new TokenProtectingStore(memory, [KEY_A, KEY_B]);
    const count = 300;
    const tokens = Array.from({ length: count }, (_, i) => `tok_swept_${i}`);
    for (const token of tokens) {
      await writer.insert({ record: pending(token), now: T0 });
      await writer.attachResult({ key: token, result: result(), now: T0 });
    }
    const storedText = async (token: string) => {
      const [key] = (await memory.findByUser({ externalUserId: stored, now: T0, limit: count }))
        .filter((record) => record.key === keyOf.get(token))
        .map((record) => (record.result as unknown as { sealed: string }).sealed);
      return key!;
    };
    // The stored key and user of each record, as the inner store holds them.
    const inner = await memory.leaseDue({ now: T0 + 1, owner: 'peek', leaseMs: 1, limit: count });
    const stored = inner[0]!.externalUserId;
    const keyOf = new Map<string, string>();
    const sweeper = new TokenProtectingStore(memory, [KEY_A, KEY_B]);
    const leased = await sweeper.leaseDue({ now: T0 + 2, owner: 'w', leaseMs: 1000, limit: count });
    expect(leased).toHaveLength(count);
    for (const record of leased) {
      keyOf.set(record.key, (record as { storedKey?: string }).storedKey!);
    }
    const before = new Map(
      await Promise.all(tokens.map(async (token) => [token, await storedText(token)] as const)),
    );
    for (const record of leased) {
      const settled = await sweeper.settle({
        key: record.key,
        owner: 'w',
        update: { state: 'completed', retainMs: 60_000, result: withoutImageLink(record.result!) },
        now: T0 + 3,
      });
      expect(settled).toBe(true);
    }
    for (const token of tokens) {
      expect(await storedText(token)).toBe(before.get(token)!.split('~').slice(0, 2).join('~'));
    }
  });

  it('once dedicated token keys are set, a dump and the webhook secret alone open nothing sealed since', async () => {
    const WEBHOOK_SECRET = 'whsec_signing_0123456789abcdef0123456789';
    const TOKEN_KEY = 'tk_dedicated_0123456789abcdefghijklmnop';
    const memory = new MemoryStore();
    // Before: the keys are derived from the signing secret, which seals.
    const before = new TokenProtectingStore(
      memory,
      tokenKeySecrets(undefined, [WEBHOOK_SECRET], 't'),
    );
    await before.insert({ record: { ...pending('tok_before'), result: result() }, now: T0 });
    // After: a dedicated key; the signing secret still opens and finds what it sealed.
    const after = new TokenProtectingStore(
      memory,
      tokenKeySecrets([TOKEN_KEY], [WEBHOOK_SECRET], 't'),
    );
    await after.insert({
      record: { ...pending('tok_after', 'someone-else'), result: result() },
      now: T0,
    });
    expect(await after.get({ key: 'tok_before', now: T0 })).toMatchObject({ result: result() });

    const withSecretAlone = new TokenProtectingStore(memory, [WEBHOOK_SECRET]);
    const records = await withSecretAlone.leaseDue({
      owner: 'dump',
      now: T0,
      leaseMs: 1,
      limit: 10,
    });
    const [secretKey, dedicatedKey] = await Promise.all([
      deriveTokenKey(WEBHOOK_SECRET),
      deriveTokenKey(TOKEN_KEY),
    ]);
    expect(records.find((record) => record.key === 'tok_before')).toMatchObject({
      result: result(),
    });
    const sealedAfter = records.find((record) => record.unreadableToken);
    expect(sealedAfter?.unreadableToken).toEqual({ keyIds: [dedicatedKey.id], hasResult: true });
    expect(sealedAfter?.result).toBeUndefined();
    expect(records).toHaveLength(2);
    // Nothing sealed after names the signing secret's key: it wraps no data key.
    const dump = everything(memory);
    const texts = [...dump.matchAll(/fv[rt]2\.[A-Za-z0-9_.-]+~/g)].map((match) => match[0]);
    expect(texts).toHaveLength(4);
    expect(texts.filter((text) => text.includes(`${secretKey.id}.`))).toHaveLength(2);
  });

  it('a sealed result copied into another record does not open there', async () => {
    const memory = new MemoryStore();
    const store = new TokenProtectingStore(memory, [KEY_A]);
    await store.insert({ record: { ...pending('tok_x'), result: result() }, now: T0 });
    await store.insert({ record: pending('tok_y', 'someone-else'), now: T0 });
    const stored = await memory.leaseDue({ owner: 'r', now: T0, leaseMs: 1, limit: 5 });
    const x = stored.find((record) => record.result)!;
    const { lease: _lease, ...y } = stored.find((record) => !record.result)!;
    // y's record as the store holds it, with x's sealed result put in.
    const copied = new MemoryStore();
    await copied.insert({ record: { ...y, result: x.result! }, now: T0 });
    const reader = new TokenProtectingStore(copied, [KEY_A]);
    const [read] = await reader.leaseDue({ owner: 'z', now: T0 + 10, leaseMs: 1, limit: 5 });
    expect(read?.result).toBeUndefined();
    expect(read?.unreadableToken?.hasResult).toBe(true);
  });
});
