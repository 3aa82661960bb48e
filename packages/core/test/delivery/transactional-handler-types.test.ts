import { expect, expectTypeOf, it } from 'vitest';
import { ConfigurationError, createReceiver, MemoryStore } from '../../src/index.js';
import type { SettledWith, SettleOptions, TransactionalStore } from '../../src/store/index.js';

interface FakeTransaction {
  query(sql: string): Promise<void>;
}

/** A MemoryStore that claims transactions, for the types only: never settles anything. */
class TypedOnlyStore extends MemoryStore implements TransactionalStore<FakeTransaction> {
  async settleWith<T>(
    _options: SettleOptions,
    _work: (transaction: FakeTransaction) => Promise<T>,
  ): Promise<SettledWith<T>> {
    return { settled: false };
  }
}

it('a transactional handler gets the store’s transaction type, not undefined', () => {
  const receiver = createReceiver({
    secret: 'whsec_types',
    client: false,
    store: new TypedOnlyStore(),
  });
  receiver.on(
    'verification.completed',
    async (_event, { transaction }) => {
      expectTypeOf(transaction).toEqualTypeOf<FakeTransaction>();
      await transaction.query('select 1');
    },
    { transactional: true },
  );
  receiver.on('verification.completed', (_event, { transaction }) => {
    expectTypeOf(transaction).toEqualTypeOf<FakeTransaction | undefined>();
  });
});

it('refuses a transactional handler on a store without transactions, at registration', () => {
  const receiver = createReceiver({
    secret: 'whsec_types',
    client: false,
    store: new MemoryStore(),
  });
  expect(() =>
    receiver.on('verification.completed', async () => undefined, { transactional: true }),
  ).toThrow(ConfigurationError);
});
