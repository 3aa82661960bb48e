import { storeContractCases } from '@faceverify/core/testing';
import { describe, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';

describe('PostgresStore keeps the Store contract', () => {
  const pool = connect();
  const cases = storeContractCases(async () => {
    const store = new PostgresStore({ pool, prefix: uniquePrefix('contract') });
    await store.migrate();
    return store;
  });
  for (const check of cases) it(`${check.name} [PostgresStore]`, check.run);
});
