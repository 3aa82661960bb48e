import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { connect, uniquePrefix } from './support/clients.js';
import { trackedSession } from './support/records.js';

describe('several instances sharing one Redis', () => {
  it('grants each of 500 due records exactly once to two racing instances', async () => {
    const prefix = uniquePrefix('race');
    // Two connections, as two receiver processes would have.
    const first = new RedisStore({ redis: connect(), prefix });
    const second = new RedisStore({ redis: connect(), prefix });
    const now = Date.now();
    const keys = new Set<string>();
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => {
        const record = trackedSession({ dueAt: now - 1000 + i });
        keys.add(record.key);
        return first.insert({ record, now });
      }),
    );

    const granted: string[] = [];
    const worker = async (store: RedisStore, owner: string) => {
      for (;;) {
        const batch = await store.leaseDue({ now, limit: 7, owner, leaseMs: 60_000 });
        if (batch.length === 0) return;
        for (const record of batch) {
          expect(record.lease?.owner).toBe(owner);
          granted.push(record.key);
        }
      }
    };
    await Promise.all([
      worker(first, 'a1'),
      worker(first, 'a2'),
      worker(second, 'b1'),
      worker(second, 'b2'),
    ]);

    expect(granted).toHaveLength(500);
    expect(new Set(granted)).toEqual(keys);
  });

  it('lets one of many instances claim one record', async () => {
    const prefix = uniquePrefix('claim');
    const stores = Array.from({ length: 4 }, () => new RedisStore({ redis: connect(), prefix }));
    const record = trackedSession();
    const now = Date.now();
    await stores[0]!.insert({ record, now });
    const grants = await Promise.all(
      stores.flatMap((store, i) =>
        Array.from({ length: 10 }, (_, j) =>
          store.lease({ key: record.key, owner: `o${i}-${j}`, now, leaseMs: 5000 }),
        ),
      ),
    );
    expect(grants.filter(Boolean)).toHaveLength(1);
  });
});
