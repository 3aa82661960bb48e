import type { Receiver } from '@faceverify/core';
import type { Store } from '@faceverify/core/store';
import { waitFor } from '@faceverify/test-support';
import { expect } from 'vitest';

/**
 * Waits for the positive signal that nothing can deliver again: the store holds no record
 * still pending or delivering, and a sweep finds nothing due. Call it once every webhook has
 * arrived (`emulator.webhooksSettled()`); what a ledger says then is final, without sleeping
 * to see whether a duplicate comes.
 */
export async function everyRecordClosed(
  store: Store,
  receiver: Pick<Receiver<unknown>, 'sweep'>,
): Promise<void> {
  await waitFor(async () => {
    // A store that was just restarted may refuse a read or two: keep asking.
    const counts = await store.counts({ now: Date.now() }).catch(() => undefined);
    return counts !== undefined && counts.pending === 0 && counts.delivering === 0;
  }, 'every record closed');
  expect((await receiver.sweep()).leased, 'records still due after every one closed').toBe(0);
}
