import type { DeliveryContext } from './delivery-context.js';

/** What keeping a lease works with: the store on its clock, the lease's length, the renewals. */
export type LeaseContext = Pick<DeliveryContext, 'store' | 'now' | 'leaseMs' | 'renewalTimers'>;

/**
 * Renews a lease in the background while slow work runs (a poll with retries, a long
 * handler), so no other worker takes the session over meanwhile. Returns the stop function.
 * At most one renewal is in flight: a store that answers slowly (or a renewal waiting on a
 * lock) skips ticks instead of piling up renewals, each holding a connection.
 */
export function keepLease(context: LeaseContext, key: string, owner: string): () => void {
  const { store, leaseMs, renewalTimers } = context;
  let stopped = false;
  let renewing = false;
  const renew = () => {
    if (stopped) return;
    if (!renewing) {
      renewing = true;
      store
        .lease({ key, owner, now: context.now(), leaseMs })
        .catch(() => undefined)
        .finally(() => {
          renewing = false;
        });
    }
    timer = renewalTimers.start(renew);
  };
  let timer = renewalTimers.start(renew);
  return () => {
    stopped = true;
    renewalTimers.cancel(timer);
  };
}

/**
 * Confirms the lease is still this worker's right before handlers run. A lease granted a
 * moment ago is trusted; an older one is renewed, which fails when it lapsed and another
 * worker took the session: then this worker must not deliver.
 */
export function stillLeased(
  context: Omit<LeaseContext, 'renewalTimers'>,
  key: string,
  owner: string,
  leaseUntil: number | undefined,
): boolean | Promise<boolean> {
  const now = context.now();
  // The common case answers at once: no store call, and nothing for the caller to await.
  if (leaseUntil !== undefined && leaseUntil - now > context.leaseMs / 2) return true;
  return context.store
    .lease({ key, owner, now, leaseMs: context.leaseMs })
    .then((renewed) => renewed !== undefined);
}
