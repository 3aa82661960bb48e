import { checkStoreAgainstModel } from '@faceverify/core/testing';
import { atDepth } from '@faceverify/test-support';
import { describe, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';

// The model shipped in @faceverify/core/testing: random sequences of operations, run on
// RedisStore and on the reference MemoryStore with one virtual clock, answer by answer.
describe('RedisStore against the reference MemoryStore', () => {
  const redis = connect();

  it('answers every random sequence of operations the same way', async () => {
    await checkStoreAgainstModel({
      createStore: () => new RedisStore({ redis, prefix: uniquePrefix('model') }),
      runs: atDepth({ standard: 75, deep: 600 }),
    });
  });
});
