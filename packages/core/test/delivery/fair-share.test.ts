import { expect, it } from 'vitest';
import { FairShare } from '../../src/delivery/fair-share.js';
import type { TrackedSession } from '../../src/store/store.js';

// The order a sweep's workers take leased sessions in, across accounts.

const session = (account: string | undefined, index: number): TrackedSession => ({
  key: `${account ?? 'none'}-${index}`,
  token: `${account ?? 'none'}-${index}`,
  externalUserId: 'u',
  createdAt: 0,
  expiresAt: 1,
  state: 'pending',
  dueAt: 0,
  attempts: 0,
  ...(account === undefined ? {} : { account }),
});

it('hands out each account in turn, whatever order the sessions were leased in', async () => {
  const leased = [
    ...Array.from({ length: 4 }, (_, index) => session('slow', index)),
    ...Array.from({ length: 2 }, (_, index) => session('quick', index)),
  ];
  const share = new FairShare(leased, 1);
  const order: string[] = [];
  for (let next = await share.take(); next; next = await share.take()) {
    order.push(next.account!);
    share.done(next);
  }
  expect(order).toEqual(['slow', 'quick', 'slow', 'quick', 'slow', 'slow']);
});

it("an account whose calls hang holds at most its share of the workers while others' sessions wait", async () => {
  const leased = [
    ...Array.from({ length: 10 }, (_, index) => session('hanging', index)),
    ...Array.from({ length: 6 }, (_, index) => session('healthy', index)),
  ];
  const share = new FairShare(leased, 4);
  const held: TrackedSession[] = [];
  const heldWhileHealthyWaited: number[] = [];
  // Four workers: a hanging account's session is never done; a healthy one is done at once.
  const worker = async () => {
    for (let next = await share.take(); next; next = await share.take()) {
      if (next.account === 'hanging') {
        held.push(next);
        return;
      }
      heldWhileHealthyWaited.push(held.length);
      share.done(next);
    }
  };
  const workers = Array.from({ length: 4 }, worker);
  while (heldWhileHealthyWaited.length < 6) await new Promise((resolve) => setImmediate(resolve));
  expect(Math.max(...heldWhileHealthyWaited)).toBe(2);
  // Once no other account has work left, the hanging one may have every worker.
  for (const taken of held.splice(0)) share.done(taken);
  await Promise.all(workers);
});

it('without accounts it is the order leased, every worker free', async () => {
  const leased = Array.from({ length: 5 }, (_, index) => session(undefined, index));
  const share = new FairShare(leased, 4);
  const taken = await Promise.all([share.take(), share.take(), share.take(), share.take()]);
  expect(taken.map((next) => next?.key)).toEqual(['none-0', 'none-1', 'none-2', 'none-3']);
});
