import { storeContractCases } from '@faceverify/core/testing';
import type { Redis as Redis5 } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { uniquePrefix } from './support/clients.js';

// The peer range admits ioredis 5 and 6: the same contract runs on the newest major here
// (store-contract.test.ts runs it on ioredis 5).
describe('RedisStore keeps the Store contract on ioredis 6', () => {
  const redis = new Redis6(inject('redisUrl'), { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  afterAll(() => redis.disconnect());

  it('runs against ioredis 6', async () => {
    const { version } = (await import('ioredis6/package.json', { with: { type: 'json' } })).default;
    expect(version.split('.')[0]).toBe('6');
  });

  // ioredis 6's classes are declared apart from ioredis 5's: the same shape, another type.
  const client = redis as unknown as Redis5;
  const cases = storeContractCases(
    () => new RedisStore({ redis: client, prefix: uniquePrefix('contract6') }),
  );
  for (const check of cases) it(`${check.name} [RedisStore, ioredis 6]`, check.run);
});
