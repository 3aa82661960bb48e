import type { PGlite } from '@electric-sql/pglite';
import { checkStoreAgainstModel } from '@faceverify/core/testing';
import { atDepth } from '@faceverify/test-support';
import { startPGlite } from '@faceverify/test-support/pglite';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { PGliteStore } from '../src/pglite.js';
import { connect, uniquePrefix } from './support/pools.js';

// The model shipped in @faceverify/core/testing: random sequences of operations, run on the
// SQL stores and on the reference MemoryStore with one virtual clock, answer by answer.
const RUNS = atDepth({ standard: 20, deep: 200 });
let db: PGlite;
// Starting PGlite (its WebAssembly build) takes seconds on a busy machine: not a test's time.
beforeAll(async () => {
  db = await startPGlite();
}, 60_000);
afterAll(() => db?.close());

describe('the SQL stores against the reference MemoryStore', () => {
  const pool = connect();

  it('PostgresStore answers every random sequence of operations the same way', async () => {
    await checkStoreAgainstModel({
      createStore: async () => {
        const store = new PostgresStore({ pool, prefix: uniquePrefix('model') });
        await store.migrate();
        return store;
      },
      runs: RUNS,
    });
  }, 120_000);

  it('PGliteStore answers every random sequence of operations the same way', async () => {
    await checkStoreAgainstModel({
      createStore: async () => {
        const store = new PGliteStore({ db, prefix: uniquePrefix('model') });
        await store.migrate();
        return store;
      },
      runs: RUNS,
    });
  }, 120_000);
});
