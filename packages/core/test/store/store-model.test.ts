import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import type {
  ClaimStartOptions,
  ClaimStartOutcome,
  RememberOptions,
} from '../../src/store/index.js';
import { checkStoreAgainstModel, storeModelSteps } from '../../src/testing/index.js';

/** A store with one defect: a digest is never remembered, so every delivery looks new. */
class ForgetfulStore extends MemoryStore {
  override async remember(_options: RememberOptions): Promise<boolean> {
    return true;
  }
}

/** A store with one defect: a claim counts nothing, so no limit is ever reached. */
class UncountedStore extends MemoryStore {
  override claimStart(options: ClaimStartOptions): Promise<ClaimStartOutcome> {
    return super
      .claimStart({ ...options, counters: [] })
      .then((outcome) =>
        outcome.claim === 'granted'
          ? { ...outcome, counts: options.counters.map(() => 0) }
          : outcome,
      );
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

  it('runs starts: finds a store whose claims count nothing', async () => {
    await expect(
      checkStoreAgainstModel({ createStore: () => new UncountedStore(), runs: 20, seed: 1 }),
    ).rejects.toThrow(/step \d+ \(claimStart\)/);
  });

  it('generates the same steps for the same seed', () => {
    expect(storeModelSteps(42, 30)).toEqual(storeModelSteps(42, 30));
    expect(storeModelSteps(42, 30)).not.toEqual(storeModelSteps(43, 30));
  });
});
