import { describe, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { storeContractCases } from '../../src/testing/index.js';

describe('MemoryStore keeps the Store contract', () => {
  for (const check of storeContractCases(() => new MemoryStore())) {
    it(`${check.name} [MemoryStore]`, check.run);
  }
});
