import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Store } from '@faceverify/core/store';
import { fixturePayload, signedDelivery, type TestDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { PostgresStore } from '@faceverify/postgres';
import { RedisStore } from '@faceverify/redis';
import {
  type PostgresServer,
  type RedisServer,
  startPostgresServer,
  startRedisServer,
  waitFor,
} from '@faceverify/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayProcess, relayEnv, startRelayProcess } from './support/relay-process.js';

const TOKEN = 'relay-crash-token-0123456789abcdef0123456789abcdef';
const FORWARD_SECRET = `whsec_${Buffer.from('relay-crash-forward-secret-01').toString('base64')}`;
const RESULTS = 30;

let redisServer: RedisServer;
let postgresServer: PostgresServer;
let redis: Redis;
let endpoint: Server;
/** `webhook-id` of every request the forward endpoint received, by stream: copies included. */
const forwarded = new Map<string, string[]>();

beforeAll(async () => {
  // Append-only with fsync on every write: a Redis that loses nothing on its own.
  [redisServer, postgresServer] = await Promise.all([
    startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] }),
    startPostgresServer(),
  ]);
  redis = new Redis(redisServer.url);
  // The internal endpoint answers after a few ms, so forwards are in flight when the kill comes.
  endpoint = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const run = new URL(request.url ?? '/', 'http://x').pathname;
      forwarded.set(run, [...(forwarded.get(run) ?? []), request.headers['webhook-id'] as string]);
      setTimeout(() => response.writeHead(204).end(), 5);
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  redis?.disconnect();
  await new Promise((resolve) => endpoint?.close(resolve));
  await Promise.all([redisServer?.stop(), postgresServer?.stop()]);
});

function tally(ids: readonly string[]): { distinct: number; duplicates: number } {
  const distinct = new Set(ids).size;
  return { distinct, duplicates: ids.length - distinct };
}

/** Each id that is there more than once, with its count: what a failed assertion shows. */
function copies(ids: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 1));
}

/** Sends a webhook as the service does; resolves whether it was acknowledged (2xx). */
async function send(relay: RelayProcess, delivery: TestDelivery): Promise<boolean> {
  try {
    const response = await fetch(relay.webhookUrl, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.text,
    });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

interface CrashRun {
  /** The store's settings, and the sinks besides Redis Streams and the HTTP forward. */
  env: Record<string, string>;
  store: Store;
  /** The stream and the forward path of this run. */
  name: string;
}

/** Starts a session through the relay's internal API, as a backend does. */
async function startSession(relay: RelayProcess, externalUserId: string): Promise<string> {
  const response = await fetch(`${relay.apiUrl}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ externalUserId }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Starts RESULTS sessions through a relay and completes them at the emulator, then sends
 * their webhooks (signed as the service signs them) to the relay, and kills it with SIGKILL
 * once a third reached the forward endpoint. A second relay on the same store is posted again
 * what was not acknowledged (as a sender that retries would; the service itself sends once, and
 * polling recovers those), and takes over what the first held:
 * the results the first one held once their leases ran out, and, by polling, those whose
 * webhook the first one took but never stored.
 */
async function crashAndTakeOver(run: CrashRun): Promise<void> {
  // The service: its webhooks are the test's to send, so none goes out by itself.
  const emulator: Emulator = await startEmulator({
    rateLimits: { complete: { limit: 1_000, windowMs: 60_000 } },
  });
  const env = {
    ...relayEnv(emulator, TOKEN),
    // A session whose webhook was lost is polled 3 s after its start, then every second.
    FACEVERIFY_POLL_SCHEDULE_MS: '3000,1000',
    // A killed relay's results are taken over after 1 s, and retried quickly.
    FACEVERIFY_RELAY_LEASE_MS: '1000',
    FACEVERIFY_RELAY_SWEEP_INTERVAL_MS: '50',
    FACEVERIFY_RELAY_RETRY_SCHEDULE_MS: '100,200',
    FACEVERIFY_SINK_REDIS_URL: redisServer.url,
    FACEVERIFY_SINK_REDIS_STREAM: `${run.name}:results`,
    FACEVERIFY_SINK_HTTP_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/${run.name}`,
    FACEVERIFY_SINK_HTTP_SECRET: FORWARD_SECRET,
    ...run.env,
  };
  const first = await startRelayProcess(env);
  let second: RelayProcess | undefined;
  try {
    const users = Array.from({ length: RESULTS }, (_, index) => `${run.name}_${index}`);
    const tokens = await Promise.all(users.map((user) => startSession(first, user)));
    await Promise.all(tokens.map((token) => emulator.completeSession(token, 'verified')));
    const deliveries = await Promise.all(
      users.map((user) =>
        signedDelivery(fixturePayload({ external_user_id: user, status: 'verified' }), {
          secret: emulator.signingSecret,
        }),
      ),
    );
    const unacknowledged = new Set(deliveries);
    const sending = (async () => {
      for (let start = 0; start < deliveries.length; start += 10) {
        await Promise.all(
          deliveries.slice(start, start + 10).map(async (delivery) => {
            if (await send(first, delivery)) unacknowledged.delete(delivery);
          }),
        );
      }
    })();
    await waitFor(
      () => (forwarded.get(`/${run.name}`)?.length ?? 0) >= RESULTS / 3,
      'a third forwarded',
    );
    first.child.kill('SIGKILL');
    await sending;
    expect(unacknowledged.size).toBeGreaterThan(0);

    second = await startRelayProcess(env);
    for (const delivery of unacknowledged) {
      await waitFor(() => send(second as RelayProcess, delivery), 'a webhook acknowledged');
    }
    await waitFor(async () => {
      const counts = await run.store.counts({ now: Date.now() });
      return counts.completed === RESULTS;
    }, 'every session completed');
    expect(await run.store.counts({ now: Date.now() })).toMatchObject({
      pending: 0,
      delivering: 0,
      failed: 0,
      completed: RESULTS,
    });
  } finally {
    first.child.kill('SIGKILL');
    second?.child.kill('SIGKILL');
    // Shown only when the test fails: what each relay said.
    console.log(`first relay:\n${first.output()}\nsecond relay:\n${second?.output()}`);
    await emulator.close();
  }
}

async function streamed(name: string): Promise<string[]> {
  return ((await redis.xrange(`${name}:results`, '-', '+')) as [string, string[]][]).map(
    ([, fields]) => fields[fields.indexOf('id') + 1] as string,
  );
}

describe('a relay killed with SIGKILL mid-publish loses no result', () => {
  it('on a Redis store: the Redis stream has each once, the HTTP forward each at least once, its copies counted', async () => {
    const name = 'on-redis';
    await crashAndTakeOver({
      name,
      env: {
        FACEVERIFY_STORE_URL: redisServer.url,
        FACEVERIFY_STORE_PREFIX: `${name}:store:`,
        FACEVERIFY_SINKS: 'redis,http',
      },
      store: new RedisStore({ redis, prefix: `${name}:store:` }),
    });
    const inStream = await streamed(name);
    expect(copies(inStream)).toEqual({});
    expect(tally(inStream)).toEqual({ distinct: RESULTS, duplicates: 0 });
    const sent = forwarded.get(`/${name}`) ?? [];
    const { distinct, duplicates } = tally(sent);
    expect(distinct).toBe(RESULTS);
    expect(new Set(sent)).toEqual(new Set(inStream));
    console.log(`relay on Redis, HTTP forward: ${RESULTS} results, ${duplicates} received twice`);
    // At most the ten webhooks whose handlers ran when the process died.
    expect(duplicates).toBeLessThanOrEqual(10);
  });

  it('on a PostgreSQL store: the outbox and the Redis stream have each once, the HTTP forward each at least once, its copies counted', async () => {
    const name = 'on-postgres';
    const url = postgresServer.url(await postgresServer.createDatabase('relay_crash'));
    const pool = new pg.Pool({ connectionString: url });
    try {
      await crashAndTakeOver({
        name,
        env: { FACEVERIFY_STORE_URL: url, FACEVERIFY_SINKS: 'postgres,redis,http' },
        store: new PostgresStore({ pool }),
      });
      const outbox = (
        await pool.query<{ event_id: string }>('SELECT event_id FROM faceverify_outbox')
      ).rows.map((row) => row.event_id);
      const inStream = await streamed(name);
      expect(copies(outbox)).toEqual({});
      expect(copies(inStream)).toEqual({});
      expect(tally(outbox)).toEqual({ distinct: RESULTS, duplicates: 0 });
      expect(tally(inStream)).toEqual({ distinct: RESULTS, duplicates: 0 });
      expect(new Set(inStream)).toEqual(new Set(outbox));
      const sent = forwarded.get(`/${name}`) ?? [];
      const { distinct, duplicates } = tally(sent);
      expect(distinct).toBe(RESULTS);
      console.log(
        `relay on PostgreSQL, HTTP forward: ${RESULTS} results, ${duplicates} received twice`,
      );
      expect(duplicates).toBeLessThanOrEqual(10);
    } finally {
      await pool.end();
    }
  });
});
