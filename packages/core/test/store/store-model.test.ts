import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import type { RememberOptions } from '../../src/store/index.js';
import { checkStoreAgainstModel, storeModelSteps } from '../../src/testing/index.js';

/** A store with one defect: a digest is never remembered, so every delivery looks new. */
class ForgetfulStore extends MemoryStore {
  override async remember(_options: RememberOptions): Promise<boolean> {
    return true;
  }
}

describe('the store model shipped in core/testing', () => {
  it('passes the reference store itself', async () => {
    await checkStoreAgainstModel({ createStore: () => new MemoryStore(), runs: 20, seed: 1 });
  });

  it('finds a store that breaks the contract, and names the seed to replay it', async () => {
    const failure = await checkStoreAgainstModel({
      createStore: () => new ForgetfulStore(),
      runs: 50,
      seed: 7,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/^Store model: seed \d+, step \d+ \(remember\)/);
    const seed = Number(/seed (\d+)/.exec((failure as Error).message)![1]);
    await expect(
      checkStoreAgainstModel({ createStore: () => new ForgetfulStore(), runs: 1, seed }),
    ).rejects.toThrow(`seed ${seed},`);
  });

  it('generates the same steps for the same seed', () => {
    expect(storeModelSteps(42, 30)).toEqual(storeModelSteps(42, 30));
    expect(storeModelSteps(42, 30)).not.toEqual(storeModelSteps(43, 30));
  });
});
