import { type Client, createReceiver, type VerificationPayload } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import {
  measureReceiverPaths,
  type ReceiverPaths,
  RoundTripMeter,
  tallyPaths,
} from '@faceverify/test-support/round-trips';
import { measureStartPaths } from '@faceverify/test-support/start-round-trips';
import { type D1Database, D1Store } from '../../src/index.js';
import { countingDatabase } from './counting-database.js';

const SECRET = 'whsec_d1_round_trips_3c81';

/**
 * The D1 calls each path of a real Receiver waits for, one after another, counted on the
 * binding its D1Store uses (each statement run alone and each batch is one call): the paths
 * the Redis and PostgreSQL round-trip tests count, on `store`'s database.
 */
export async function d1RoundTrips(
  db: D1Database,
  store: () => Promise<unknown>,
): Promise<{ tally: Record<string, string>; paths: ReceiverPaths }> {
  await store();
  const meter = new RoundTripMeter();
  const counted = new D1Store({ db: countingDatabase(db, meter).db });
  const paths = await measureReceiverPaths<VerificationPayload>({
    meter,
    label: 'd1',
    transactional: false,
    receiver: ({ options, delivered }) =>
      createReceiver({
        ...options,
        client: options.client as Client,
        secret: SECRET,
        store: counted,
        clock: createTestClock(Date.now()),
      }).on('verification.completed', (event) => delivered(event.data.external_user_id)),
    payload: (user, extra = {}) => fixturePayload({ external_user_id: user, extra }),
    sign: (payload, forged) =>
      signedDelivery(payload, { secret: forged ? 'whsec_someone_else' : SECRET }),
  });
  return { tally: tallyPaths(paths), paths };
}

/**
 * The D1 calls of each outcome of `claimStart` and of `endStart` (see measureStartPaths), on
 * two D1Stores of `store`'s database, as two isolates would have.
 */
export async function d1StartRoundTrips(
  db: D1Database,
  store: () => Promise<unknown>,
): Promise<{ tally: Record<string, string>; paths: ReceiverPaths }> {
  await store();
  const meter = new RoundTripMeter();
  const counting = countingDatabase(db, meter).db;
  const paths = await measureStartPaths({
    meter,
    store: new D1Store({ db: counting }),
    elsewhere: new D1Store({ db: counting }),
    label: 'd1',
    now: Date.now(),
  });
  return { tally: tallyPaths(paths), paths };
}
