import { ConfigurationError } from '@faceverify/core';
import { freePort, useRedisServer } from '@faceverify/test-support';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redact, storeError } from '../src/errors.js';
import { RedisStore, RedisStoreError } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { trackedSession } from './support/records.js';

const PASSWORD = 'pw-Zq81-never-shown';
const secured = useRedisServer({ args: ['--requirepass', PASSWORD] });

async function failure(operation: Promise<unknown>): Promise<RedisStoreError> {
  const error = await operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RedisStoreError);
  return error as RedisStoreError;
}

describe('RedisStore errors', () => {
  it('needs a client and a prefix', () => {
    expect(() => new RedisStore({} as { redis: Redis })).toThrow(ConfigurationError);
    expect(() => new RedisStore({ redis: connect(), prefix: '' })).toThrow(/prefix/);
  });

  it('rejects at once, as unreachable, when the client does not queue while offline', async () => {
    const url = `redis://:${PASSWORD}@127.0.0.1:${await freePort()}`;
    const redis = connect(url, { enableOfflineQueue: false, lazyConnect: true });
    const error = await failure(new RedisStore({ redis }).get({ key: 'any', now: Date.now() }));
    expect(error.failure).toBe('unreachable');
    expect(error.operation).toBe('get');
    expect(error.code).toBe('store_error');
    expect(error.message).toMatch(/^RedisStore\.get failed: Redis did not answer/);
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(
      PASSWORD,
    );
  });

  it('reports an error answer without the password the client was given', async () => {
    const wrong = `${PASSWORD}-but-wrong`;
    const redis = connect(`redis://:${wrong}@127.0.0.1:${secured().port}`);
    const error = await failure(
      new RedisStore({ redis }).insert({ record: trackedSession(), now: Date.now() }),
    );
    expect(error.failure).toBe('rejected');
    expect(error.message).toMatch(/^RedisStore\.insert failed: Redis answered with an error/);
    expect(error.message).not.toContain(wrong);
    expect(error.cause).toBeUndefined();
  });

  it('redacts passwords and URL credentials from any message it wraps', () => {
    const cause = new Error(`connect to redis://admin:${PASSWORD}@cache:6379 failed (${PASSWORD})`);
    const error = storeError('counts', cause, [PASSWORD]);
    expect(error.message).not.toContain(PASSWORD);
    expect(error.message).toContain('redis://***@cache:6379');
  });

  it.each(['a', '1', '0'])(
    'leaves a message whole for the password "%s", too short to hide where it stands alone',
    (password) => {
      const message = `connect to redis://:${password}@127.0.0.1:6379: no server (which is 1); points at a running server`;
      expect(redact(message, [password])).toBe(
        'connect to redis://***@127.0.0.1:6379: no server (which is 1); points at a running server',
      );
    },
  );

  it('reports a record it did not write as malformed', async () => {
    const redis = connect();
    const prefix = uniquePrefix('foreign');
    await redis.hset(`${prefix}s:alien`, 'state', 'unknown', 'user', 'x');
    const error = await failure(
      new RedisStore({ redis, prefix }).get({ key: 'alien', now: Date.now() }),
    );
    expect(error.failure).toBe('malformed');
  });

  it('works with the right password', async () => {
    const redis = connect(`redis://:${PASSWORD}@127.0.0.1:${secured().port}`);
    const store = new RedisStore({ redis, prefix: uniquePrefix('auth') });
    const record = trackedSession();
    expect((await store.insert({ record, now: Date.now() })).inserted).toBe(true);
    expect((await store.get({ key: record.key, now: Date.now() }))?.key).toBe(record.key);
  });
});
