import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createReceiver } from '@faceverify/core';
import { createTestClock, fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { redisStreamSink } from '@faceverify/sinks/redis';
import { type RedisServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';

const SECRET = 'whsec_python_consumer_9d3b';
const STREAM = 'faceverify:results';
const CONSUMER = fileURLToPath(new URL('../consumer.py', import.meta.url));
// Debian's python3-redis is installed for the system's interpreter (scripts/ensure-system-deps.mjs).
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

let server: RedisServer;
let redis: Redis;
let dir: string;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'faceverify-python-consumer-'));
});

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the consumer until the stream has nothing new; resolves with the lines it printed. */
async function consume(): Promise<string[]> {
  const { stdout } = await promisify(execFile)(PYTHON, [
    CONSUMER,
    '--redis',
    server.url,
    '--stream',
    STREAM,
    '--db',
    join(dir, 'results.sqlite3'),
    '--once',
  ]);
  return stdout.trim().split('\n').filter(Boolean);
}

it('a Python consumer reads the results the Redis sink added, each once, and skips a copy it sees again by its event id', async () => {
  const receiver = createReceiver({ secret: SECRET, client: false, clock: createTestClock() });
  const ids: string[] = [];
  receiver.on('verification.completed', (event) => {
    ids.push(event.id);
  });
  receiver.on('verification.completed', redisStreamSink({ redis, stream: STREAM }));
  for (const [user, status] of [
    ['user_a', 'verified'],
    ['user_b', 'verified'],
    ['user_c', 'failed'],
  ] as const) {
    const payload = fixturePayload({ external_user_id: user, status });
    expect((await receiver.receive(await signedDelivery(payload, { secret: SECRET }))).status).toBe(
      200,
    );
  }

  expect(await consume()).toEqual([
    `verified user_a ${ids[0]}`,
    `verified user_b ${ids[1]}`,
    `failed user_c ${ids[2]}`,
  ]);

  // A copy of the first result (as a stream could hold once its deduplication key expired),
  // read by this consumer before it stopped without acknowledging it: on restart it reads
  // its pending entries first, and skips the copy by its id.
  const [first] = (await redis.xrange(STREAM, '-', '+', 'COUNT', 1)) as [string, string[]][];
  await redis.xadd(STREAM, '*', ...(first?.[1] ?? []));
  await redis.xreadgroup('GROUP', 'backend', 'consumer-1', 'COUNT', 1, 'STREAMS', STREAM, '>');
  expect(await consume()).toEqual([`duplicate skipped ${ids[0]}`]);
  expect(await redis.xpending(STREAM, 'backend')).toEqual([0, null, null, null]);
  expect(await consume()).toEqual([]);
});
