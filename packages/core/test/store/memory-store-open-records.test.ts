import { expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import type { TrackedSession } from '../../src/store/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function openSession(key: string, now: number): TrackedSession {
  return {
    key,
    externalUserId: `user-of-${key}`,
    createdAt: now,
    expiresAt: now + HOUR,
    state: 'pending',
    dueAt: now + 10_000,
    attempts: 0,
  };
}

// Rule 8 of the Store contract, as PostgreSQL, D1 and Redis keep it: an open record nobody
// polls any more (its account was removed, or its Receiver stopped sweeping) is dropped a
// day past both its expiry and its due time, not kept for as long as the process runs.
it('drops an open record that nobody settles a day past its expiry and due time', async () => {
  const store = new MemoryStore();
  const start = Date.UTC(2030, 0, 1);
  await store.insert({ record: openSession('t_stranded', start), now: start });
  const past = start + HOUR + DAY;
  expect(await store.get({ key: 't_stranded', now: past - 1 })).toBeDefined();
  // Seven days on, as the removed account's session was found still held.
  expect(await store.get({ key: 't_stranded', now: start + 7 * DAY })).toBeUndefined();
  expect(
    await store.findByUser({
      externalUserId: 'user-of-t_stranded',
      now: start + 7 * DAY,
      limit: 10,
    }),
  ).toEqual([]);
});

it('keeps an open record whose due time moved on: a day past the later of the two', async () => {
  const store = new MemoryStore();
  const start = Date.UTC(2030, 0, 1);
  const record = openSession('t_moved', start);
  await store.insert({ record, now: start });
  const leased = await store.lease({ key: 't_moved', owner: 'o', now: start, leaseMs: 1000 });
  expect(leased).toBeDefined();
  // Settled as still pending, due again two days on.
  await store.settle({
    key: 't_moved',
    owner: 'o',
    now: start,
    update: { state: 'pending', dueAt: start + 2 * DAY, attempts: 1 },
  });
  expect(await store.get({ key: 't_moved', now: start + 2 * DAY + DAY - 1 })).toBeDefined();
  // Open records are walked once an hour: gone within the hour after that.
  expect(await store.get({ key: 't_moved', now: start + 3 * DAY + HOUR })).toBeUndefined();
});
