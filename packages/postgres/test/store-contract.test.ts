import { storeContractCases } from '@faceverify/core/testing';
import { describe, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/pools.js';

// With the defaults (statements pipelined on up to half the pool), with every statement
// pipelined on one connection (concurrent calls share it), and with none pipelined.
for (const pipelinedConnections of [undefined, 1, 0]) {
  const variant =
    pipelinedConnections === undefined ? '' : `, pipelinedConnections ${pipelinedConnections}`;
  describe(`PostgresStore keeps the Store contract${variant}`, () => {
    const pool = connect();
    const cases = storeContractCases(async () => {
      const store = new PostgresStore({
        pool,
        prefix: uniquePrefix('contract'),
        ...(pipelinedConnections === undefined ? {} : { pipelinedConnections }),
      });
      await store.migrate();
      return store;
    });
    for (const check of cases) it(`${check.name} [PostgresStore${variant}]`, check.run);
  });
}
