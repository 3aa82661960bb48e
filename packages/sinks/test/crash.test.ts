import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { fixturePayload, signedDelivery, type TestDelivery } from '@faceverify/core/testing';
import { RedisStore } from '@faceverify/redis';
import { freePort, type RedisServer, startRedisServer, waitFor } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tally } from './support/receiver.js';

const SCRIPT = fileURLToPath(new URL('./support/sink-process.mjs', import.meta.url));
const WEBHOOK_SECRET = 'whsec_sinks_crash_4e0a';
const FORWARD_SECRET = `whsec_${Buffer.from('sinks-crash-forward-secret-0001').toString('base64')}`;
const PREFIX = 'crash:';
const STREAM = 'crash:results';
const RESULTS = 120;

let redisServer: RedisServer;
let redis: Redis;
let endpoint: Server;
/** `webhook-id` of every request the forward endpoint received, copies included. */
const forwarded: string[] = [];

beforeAll(async () => {
  // Append-only with fsync on every write: a Redis that loses nothing on its own.
  redisServer = await startRedisServer({
    args: ['--appendonly', 'yes', '--appendfsync', 'always'],
  });
  redis = new Redis(redisServer.url);
  // The internal endpoint answers after a few ms, so forwards are in flight when the kill comes.
  endpoint = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      forwarded.push(request.headers['webhook-id'] as string);
      setTimeout(() => response.writeHead(204).end(), 5);
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  redis?.disconnect();
  await new Promise((resolve) => endpoint?.close(resolve));
  await redisServer?.stop();
});

interface SinkProcess {
  child: ChildProcess;
  url: string;
}

async function startSinkProcess(): Promise<SinkProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      ...process.env,
      REDIS_URL: redisServer.url,
      STORE_PREFIX: PREFIX,
      STREAM,
      WEBHOOK_SECRET,
      FORWARD_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/results`,
      FORWARD_SECRET,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.setEncoding('utf8').on('data', (text: string) => console.error(text.trimEnd()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the sink process exited (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${port}/` };
}

/** Sends a webhook as the service does; resolves whether it was acknowledged (2xx). */
async function send(to: SinkProcess, delivery: TestDelivery): Promise<boolean> {
  try {
    const response = await fetch(to.url, {
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

it('a receiver killed with SIGKILL mid-publish loses no result: the Redis stream has each once, the HTTP forward each at least once, its copies counted', async () => {
  const deliveries = await Promise.all(
    Array.from({ length: RESULTS }, (_, index) =>
      signedDelivery(fixturePayload({ external_user_id: `crash_${index}` }), {
        secret: WEBHOOK_SECRET,
      }),
    ),
  );
  const first = await startSinkProcess();
  const unacknowledged = new Set(deliveries);
  // Ten at a time; the process is killed once a third of the results were forwarded.
  const sending = (async () => {
    for (let start = 0; start < deliveries.length; start += 10) {
      await Promise.all(
        deliveries.slice(start, start + 10).map(async (delivery) => {
          if (await send(first, delivery)) unacknowledged.delete(delivery);
        }),
      );
    }
  })();
  await waitFor(() => forwarded.length >= RESULTS / 3, 'a third forwarded');
  first.child.kill('SIGKILL');
  await sending;
  expect(unacknowledged.size).toBeGreaterThan(0);

  // The service sends again what was not acknowledged; the next process takes over the
  // results the killed one held, once their leases ran out.
  const second = await startSinkProcess();
  try {
    for (const delivery of unacknowledged) {
      await waitFor(() => send(second, delivery), 'a webhook acknowledged');
    }
    const store = new RedisStore({ redis, prefix: PREFIX });
    await waitFor(async () => {
      const counts = await store.counts({ now: Date.now() });
      return counts.pending === 0 && counts.delivering === 0;
    }, 'every result delivered');
  } finally {
    second.child.kill('SIGKILL');
  }

  const streamed = ((await redis.xrange(STREAM, '-', '+')) as [string, string[]][]).map(
    ([, fields]) => fields[fields.indexOf('id') + 1] as string,
  );
  // Redis Streams: none lost, none twice.
  expect(tally(streamed)).toEqual({ distinct: RESULTS, duplicates: 0 });
  // HTTP forward: none lost; the copies are results whose forward was in flight when the
  // process died (the endpoint had it, the success was never recorded).
  const { distinct, duplicates } = tally(forwarded);
  expect(distinct).toBe(RESULTS);
  expect(new Set(forwarded)).toEqual(new Set(streamed));
  console.log(`HTTP forward: ${RESULTS} results, ${duplicates} received twice`);
  // At most the ten webhooks whose handlers ran when the process died.
  expect(duplicates).toBeLessThanOrEqual(10);
});
