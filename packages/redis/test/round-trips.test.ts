import { type Client, createReceiver, type VerificationPayload } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import {
  measureReceiverPaths,
  type ReceiverPaths,
  RoundTripMeter,
  tallyPaths,
  useRedisServer,
} from '@faceverify/test-support';
import {
  measureStartPaths,
  ONE_ROUND_TRIP_PER_START_CALL,
} from '@faceverify/test-support/start-round-trips';
import type { Cluster, Command, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import type { LuaScript } from '../src/lua-script.js';
import { ATTACH_AND_LEASE } from '../src/scripts/attach-and-lease.js';
import { ATTACH_RESULT } from '../src/scripts/attach-result.js';
import { DUE_SUMMARY } from '../src/scripts/dead-letters.js';
import { FIND_BY_USER } from '../src/scripts/find-by-user.js';
import { INSERT } from '../src/scripts/insert.js';
import { LEASE } from '../src/scripts/lease.js';
import { LEASE_DUE } from '../src/scripts/lease-due.js';
import { REMEMBER } from '../src/scripts/remember.js';
import { SETTLE } from '../src/scripts/settle.js';
import { CLAIM_START, END_START } from '../src/scripts/starts.js';
import { connect, uniquePrefix } from './support/clients.js';
import { clusterOfOne, useClusterServer } from './support/cluster.js';

// The store round trips each path of a Receiver waits for, one after another, counted on the
// ioredis client itself (every command it sends, exact, never timed): BENCHMARKS.md,
// "Store round trips per webhook", tables these counts.

const SECRET = 'whsec_redis_round_trips_5e1a';

const SCRIPTS = new Map(
  Object.entries({
    attachAndLease: ATTACH_AND_LEASE,
    attachResult: ATTACH_RESULT,
    claimStart: CLAIM_START,
    endStart: END_START,
    dueSummary: DUE_SUMMARY,
    findByUser: FIND_BY_USER,
    insert: INSERT,
    lease: LEASE,
    leaseDue: LEASE_DUE,
    remember: REMEMBER,
    settle: SETTLE,
  }).map(([name, script]: [string, LuaScript]) => [script.sha, name]),
);

/** A command's name; a script's by what it does. */
function nameOf(command: Command): string {
  const sha = command.name === 'evalsha' ? String(command.args[0]) : '';
  return SCRIPTS.get(sha) ?? command.name;
}

/** Notes every command `redis` sends in `meter` (a command retried by ioredis counts once). */
function metered<C extends Redis | Cluster>(redis: C, meter: RoundTripMeter): C {
  const sendCommand = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
  const seen = new WeakSet<Command>();
  (redis as { sendCommand: unknown }).sendCommand = (command: Command, ...rest: unknown[]) => {
    if (!seen.has(command)) {
      seen.add(command);
      const answered = meter.send(nameOf(command));
      command.promise.then(answered, answered);
    }
    return sendCommand(command, ...rest);
  };
  return redis;
}

async function measure(redis: Redis | Cluster, prefix: string): Promise<ReceiverPaths> {
  const meter = new RoundTripMeter();
  const store = new RedisStore({ redis: metered(redis, meter), prefix });
  await store.check();
  return measureReceiverPaths<VerificationPayload>({
    meter,
    label: 'redis',
    transactional: false,
    receiver: ({ options, delivered }) =>
      createReceiver({
        ...options,
        client: options.client as Client,
        secret: SECRET,
        store,
        clock: createTestClock(Date.now()),
      }).on('verification.completed', (event) => delivered(event.data.external_user_id)),
    payload: (user, extra = {}) => fixturePayload({ external_user_id: user, extra }),
    sign: (payload, forged) =>
      signedDelivery(payload, { secret: forged ? 'whsec_someone_else' : SECRET }),
  });
}

// Each path: round trips in turn / commands sent. A script that must touch keys it was not
// given (a record's user indexes, the records an index names) changes nothing and names them,
// and is run again with them (see scripts/declared-keys.ts). The Receiver names them up front
// where it read the record before (the `user` and `keys` hints of the Store calls): then
// attachAndLease, lease and settle cost one round trip each, and findByUser one when this
// Receiver tracked the session or read the user's records before, two when another instance
// did (webhookTrackedElsewhere); leaseDue, which learns the due records and then their users,
// costs three. A webhook of a tracked session remembers its digest while it looks its user up,
// attaches its result and leases the session in one script, and records the delivery; a sweep
// leases what is due, settles each session (side by side), and reads the backlog
// (dueSummary). The first step of a Receiver reads Redis' clock (TIME), and the first use of a
// script on a server sends its source (EVAL after NOSCRIPT). A webhook's user is looked up
// once, under the keyed hash of the id. A duplicate is
// answered once its digest is found, with the lookup started beside it (the meter waits for
// every answer).
const REDIS = {
  firstStep: '3/3',
  track: '1/1',
  webhookTracked_plain: '3/4',
  webhookTrackedElsewhere: '4/5',
  duplicate: '1/2',
  rejection: '0/0',
  webhookConfirmed: '3/4',
  pollDelivery: '6/6',
  sweep1: '5/5',
  perDueSession: '+1',
};

// A start's calls (Store contract rule 13): each one script, one round trip, whatever the
// counters (every key of the store is in one slot). A claim that reuses a session reads the
// record its start names, which the script must be given: the instance that inserted it or
// reused it before knows it; another one learns it in a first run that changes nothing.
const STARTS = { ...ONE_ROUND_TRIP_PER_START_CALL, claimReusedElsewhere: '2/2' };

async function measureStarts(redis: Redis | Cluster, prefix: string): Promise<ReceiverPaths> {
  const meter = new RoundTripMeter();
  const client = metered(redis, meter);
  const store = new RedisStore({ redis: client, prefix });
  const elsewhere = new RedisStore({ redis: client, prefix });
  await Promise.all([store.check(), elsewhere.check()]);
  return measureStartPaths({ meter, store, elsewhere, label: prefix, now: Date.now() });
}

describe('store round trips of a Receiver on Redis, counted on the client', () => {
  // A server of this file's own: on the shared one, another file may have loaded the scripts
  // already, and the first step would skip the source it sends on a server that lacks them.
  const server = useRedisServer();

  it('a single Redis server', async () => {
    const paths = await measure(connect(server().url), uniquePrefix('round-trips'));
    console.log(paths);
    expect(tallyPaths(paths)).toEqual(REDIS);
  });

  describe('a Redis Cluster', () => {
    const server = useClusterServer();

    it('the same counts, the starts too: every key of the store is in one slot, on one node', async () => {
      const cluster = await clusterOfOne(server());
      try {
        const paths = await measure(cluster, `{${uniquePrefix('round-trips').slice(0, -1)}}:`);
        console.log(paths);
        expect(tallyPaths(paths)).toEqual(REDIS);
        const starts = await measureStarts(cluster, `{${uniquePrefix('starts').slice(0, -1)}}:`);
        expect(tallyPaths(starts)).toEqual(STARTS);
      } finally {
        cluster.disconnect();
      }
    });
  });

  it('the starts: one round trip per call', async () => {
    const paths = await measureStarts(connect(server().url), uniquePrefix('starts'));
    console.log(paths);
    expect(tallyPaths(paths)).toEqual(STARTS);
  });
});
