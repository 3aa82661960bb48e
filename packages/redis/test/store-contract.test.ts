import { storeContractCases } from '@faceverify/core/testing';
import { describe, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';

describe('RedisStore keeps the Store contract', () => {
  const redis = connect();
  const cases = storeContractCases(
    () => new RedisStore({ redis, prefix: uniquePrefix('contract') }),
  );
  for (const check of cases) it(`${check.name} [RedisStore, ioredis 5]`, check.run);
});
