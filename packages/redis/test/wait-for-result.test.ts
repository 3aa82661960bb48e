import { createReceiver, type Receiver } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { waitFor } from '@faceverify/test-support';
import { describe, expect, inject, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';

const SECRET = 'whsec_redis_wait_for_result_5e1a';
// track() needs a client; nothing here asks the service (webhooks are not confirmed).
const CLIENT = { apiKey: 'fv_test_redis_wait', baseUrl: 'http://127.0.0.1:9' };

function instance(prefix: string): Receiver {
  return createReceiver({
    secret: SECRET,
    client: CLIENT,
    confirmWebhooks: false,
    store: new RedisStore({ redis: connect(), prefix }),
    logger: false,
  }).on('verification.completed', () => undefined);
}

/** Subscribers of the store's channel, as Redis counts them. */
async function subscribers(prefix: string): Promise<number> {
  const [, count] = (await connect().pubsub('NUMSUB', `${prefix}closed`)) as [string, number];
  return count;
}

describe('waitForResult on RedisStore: a result delivered by another instance', () => {
  it('reaches a waiter on instance A when instance B delivers it, through pub/sub, and the subscription ends with the wait', async () => {
    const prefix = uniquePrefix('wait');
    const a = instance(prefix);
    const b = instance(prefix);
    await b.track('tok_redis_wait_1', 'walter');
    expect(await subscribers(prefix)).toBe(0);

    const waiting = a.waitForResult('tok_redis_wait_1', { timeoutMs: 60_000 });
    await waitFor(async () => (await subscribers(prefix)) === 1, 'A subscribed');
    const sentAt = performance.now();
    const answer = await b.receive(
      await signedDelivery(fixturePayload({ external_user_id: 'walter' }), { secret: SECRET }),
    );
    expect(answer.status).toBe(200);
    const outcome = await waiting;
    const latencyMs = performance.now() - sentAt;
    expect(outcome).toMatchObject({ state: 'completed', result: { external_user_id: 'walter' } });
    // Through the notice, not the 5 s reread: reported, not bounded (the machine decides).
    console.log(
      `waitForResult on RedisStore: webhook on B to waiter on A in ${latencyMs.toFixed(1)} ms`,
    );
    await waitFor(async () => (await subscribers(prefix)) === 0, 'the subscription ended');
  });

  it('many waiters of one instance share one subscriber connection', async () => {
    const prefix = uniquePrefix('wait-many');
    const a = instance(prefix);
    const tokens = Array.from({ length: 20 }, (_, i) => `tok_redis_many_${i}`);
    for (const token of tokens) await a.track(token, `user_${token}`);
    const controller = new AbortController();
    const waits = tokens.map((token) =>
      a.waitForResult(token, { signal: controller.signal }).catch((error: unknown) => error),
    );
    await waitFor(async () => (await subscribers(prefix)) === 1, 'A subscribed');
    controller.abort(new Error('pages closed'));
    for (const outcome of await Promise.all(waits)) {
      expect((outcome as Error).message).toBe('pages closed');
    }
    await waitFor(async () => (await subscribers(prefix)) === 0, 'the subscription ended');
  });
});

describe('closed-record notices on RedisStore', () => {
  it('a close still succeeds when the Redis user may not PUBLISH (a managed Redis ACL)', async () => {
    const admin = connect();
    const user = `fv_no_publish_${process.pid}_${Math.random().toString(36).slice(2)}`;
    await admin.call(
      'ACL',
      'SETUSER',
      user,
      'on',
      '>no-publish-pw',
      '~*',
      '&*',
      '+@all',
      '-publish',
    );
    const url = new URL(inject('redisUrl'));
    url.username = user;
    url.password = 'no-publish-pw';
    const limited = connect(url.href);
    await expect(limited.publish('anything', 'x')).rejects.toThrow(/NOPERM/);

    const store = new RedisStore({ redis: limited, prefix: uniquePrefix('acl') });
    const now = Date.now();
    await store.insert({
      record: {
        key: 'tok_acl_1',
        token: 'tok_acl_1',
        externalUserId: 'acl-user',
        createdAt: now,
        expiresAt: now + 60_000,
        state: 'delivering',
        dueAt: now,
        attempts: 0,
        lease: { owner: 'w', until: now + 30_000 },
      },
      now,
    });
    const update = { state: 'completed', retainMs: 60_000 } as const;
    expect(await store.settle({ key: 'tok_acl_1', owner: 'w', update, now })).toBe(true);
    expect(await store.get({ key: 'tok_acl_1', now })).toMatchObject({ state: 'completed' });
  });
});
