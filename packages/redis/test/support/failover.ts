import type { StoreAlarm } from '@faceverify/core';
import type { TrackedSession } from '@faceverify/core/store';
import { waitFor } from '@faceverify/test-support';
import type { Redis } from 'ioredis';
import type { RedisStore } from '../../src/index.js';
import { storedResult, trackedSession } from './records.js';

/** The alarms a store raises, as they come. */
export function alarmsOf(store: RedisStore): StoreAlarm[] {
  const alarms: StoreAlarm[] = [];
  store.onAlarm((alarm) => alarms.push(alarm));
  return alarms;
}

/** `count` records with a result, waiting for delivery. */
export async function deliverable(store: RedisStore, count: number): Promise<TrackedSession[]> {
  const now = Date.now();
  const records = Array.from({ length: count }, () =>
    trackedSession({ state: 'delivering', dueAt: now, result: storedResult() }),
  );
  for (const record of records) await store.insert({ record, now });
  return records;
}

/** Leases each record and records its success, as a worker whose handlers succeeded does. */
export async function complete(store: RedisStore, records: TrackedSession[]): Promise<void> {
  const now = Date.now();
  await Promise.all(
    records.map(async ({ key }) => {
      const leased = await store.lease({ key, owner: 'worker', now, leaseMs: 60_000 });
      if (!leased) throw new Error(`${key} was not leased`);
      const update = { state: 'completed' as const, retainMs: 3_600_000 };
      if (!(await store.settle({ key, owner: 'worker', update, now }))) {
        throw new Error(`${key} was not settled`);
      }
    }),
  );
}

/** The records' states as `store` reads them now (`missing` for none). */
export async function statesOf(
  store: RedisStore,
  records: TrackedSession[],
): Promise<Record<string, number>> {
  const states: Record<string, number> = {};
  for (const { key } of records) {
    const state = (await store.get({ key, now: Date.now() }))?.state ?? 'missing';
    states[state] = (states[state] ?? 0) + 1;
  }
  return states;
}

function field(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/** Waits until `replica` has every write `primary` made so far (their offsets meet). */
export async function caughtUp(primary: Redis, replica: Redis): Promise<void> {
  const target = Number(field(await primary.info('replication'), 'master_repl_offset'));
  await waitFor(async () => {
    const info = await replica.info('replication');
    return (
      field(info, 'master_link_status') === 'up' &&
      Number(field(info, 'slave_repl_offset')) >= target
    );
  }, 'the replica to catch up with the primary');
}

/** Runs `operation` until it succeeds: a client reconnecting after a failover fails meanwhile. */
export async function once<T>(operation: () => Promise<T>): Promise<T> {
  let value: { ok: T } | undefined;
  await waitFor(async () => {
    try {
      value = { ok: await operation() };
      return true;
    } catch {
      return false;
    }
  }, 'the store to answer after the failover');
  return value!.ok;
}
