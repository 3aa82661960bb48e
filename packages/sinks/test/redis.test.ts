import { type RedisServer, startRedisServer, waitFor } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SinkError, type SinkMessage } from '../src/index.js';
import { redisStreamSink } from '../src/redis.js';
import { failsFirstRun, IMAGE_URL, sinkReceiver, tally } from './support/receiver.js';

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  // Commands fail at once while the server is away (the sink throws, the result is kept),
  // and the client reconnects quickly once it is back.
  redis = new Redis(server.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  });
  // Its reconnection attempts while the server is stopped are expected.
  redis.on('error', () => undefined);
  await waitFor(() => redis.status === 'ready', 'the client connected');
});

afterAll(async () => {
  redis.disconnect();
  await server?.stop();
});

async function entries(stream: string): Promise<{ id: string; message: SinkMessage }[]> {
  const rows = (await redis.xrange(stream, '-', '+')) as [string, string[]][];
  return rows.map(([, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1] as string;
    return { id: field('id'), message: JSON.parse(field('message')) as SinkMessage };
  });
}

it('adds each result to the stream once, with its event id and neither the session token nor the image link', async () => {
  const { receiver, deliver, seen } = sinkReceiver();
  receiver.on('verification.completed', redisStreamSink({ redis, stream: 'results:each' }));
  for (const user of ['user_a', 'user_b', 'user_c']) expect(await deliver(user)).toBe(200);

  const added = await entries('results:each');
  expect(added.map((entry) => entry.id)).toEqual(seen);
  expect(added.map((entry) => entry.message.data.external_user_id)).toEqual([
    'user_a',
    'user_b',
    'user_c',
  ]);
  for (const { id, message } of added) {
    expect(message.id).toBe(id);
    expect(message).not.toHaveProperty('sessionToken');
    expect(message.data).not.toHaveProperty('frontImageUrl');
  }
  expect(JSON.stringify(await redis.xrange('results:each', '-', '+'))).not.toContain(IMAGE_URL);
});

it('a retry of a result already in the stream adds nothing: once per event id', async () => {
  const { receiver, deliver, retryAfter, seen } = sinkReceiver();
  receiver.on('verification.completed', redisStreamSink({ redis, stream: 'results:retried' }));
  receiver.on('verification.completed', failsFirstRun());
  for (const user of ['user_a', 'user_b']) expect(await deliver(user)).toBe(500);
  expect(await retryAfter(5_000)).toMatchObject({ delivered: 2 });

  // The sink ran twice for each result; the stream has each once.
  expect(tally(seen)).toEqual({ distinct: 2, duplicates: 2 });
  expect(tally((await entries('results:retried')).map((entry) => entry.id))).toEqual({
    distinct: 2,
    duplicates: 0,
  });
});

it('results that arrive while Redis is down for 30 s wait in the store and are added once it is back, none lost, none twice', async () => {
  const { receiver, deliver, retryAfter, seen } = sinkReceiver();
  const errors: unknown[] = [];
  receiver.on('error', (error) => errors.push(error));
  receiver.on('verification.completed', redisStreamSink({ redis, stream: 'results:down' }));
  const port = server.port;
  await server.stop();

  const users = ['user_1', 'user_2', 'user_3', 'user_4', 'user_5'];
  for (const user of users) expect(await deliver(user)).toBe(500);
  // The retries 5 s and 35 s later fail too: 35 s down in all, 15 failed attempts.
  expect(await retryAfter(5_000)).toMatchObject({ leased: 5, delivered: 0 });
  expect(await retryAfter(30_000)).toMatchObject({ leased: 5, delivered: 0 });
  expect(errors.length).toBe(15);
  for (const error of errors) {
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).message).not.toContain(String(port));
  }

  server = await startRedisServer({ port });
  await waitFor(() => redis.status === 'ready', 'the client reconnected');
  // The next retry, 2 min after the last: every result is added, once.
  expect(await retryAfter(120_000)).toMatchObject({ leased: 5, delivered: 5 });
  const added = (await entries('results:down')).map((entry) => entry.id);
  expect(tally(added)).toEqual({ distinct: 5, duplicates: 0 });
  expect(new Set(added)).toEqual(new Set(seen));
});

it('refuses a configuration without a stream name, saying which option', () => {
  expect(() => redisStreamSink({ redis, stream: '' })).toThrow(/`stream`/);
  expect(() => redisStreamSink({ redis, stream: 's', dedupTtlMs: 0 })).toThrow(/`dedupTtlMs`/);
});
