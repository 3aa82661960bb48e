import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { RedisStore } from '@faceverify/redis';
import { type RedisServer, startRedisServer, waitFor } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { relayEnv, startRelayProcess } from './support/relay-process.js';

const FORWARD_SECRET = `whsec_${Buffer.from('relay-shutdown-forward-secret').toString('base64')}`;
const PREFIX = 'shutdown:store:';
const RESULTS = 5;

let emulator: Emulator;
let redisServer: RedisServer;
let redis: Redis;
let endpoint: Server;
/** Forwards the endpoint received, and those it answered. */
let received = 0;
let answered = 0;

beforeAll(async () => {
  [emulator, redisServer] = await Promise.all([startEmulator(), startRedisServer()]);
  redis = new Redis(redisServer.url);
  // Each forward is answered 400 ms after it arrived: long enough for SIGTERM to come first.
  endpoint = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      setTimeout(() => {
        answered += 1;
        response.writeHead(204).end();
      }, 400);
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  redis?.disconnect();
  await new Promise((resolve) => endpoint?.close(resolve));
  await Promise.all([emulator?.close(), redisServer?.stop()]);
});

it('SIGTERM with deliveries in flight: they finish, every webhook is answered, then the relay exits 0 with nothing left to deliver', async () => {
  const relay = await startRelayProcess({
    ...relayEnv(emulator, 'relay-shutdown-token-0123456789abcdef0123456789'),
    FACEVERIFY_UNTRACKED_WEBHOOKS: 'deliver',
    FACEVERIFY_STORE_URL: redisServer.url,
    FACEVERIFY_STORE_PREFIX: PREFIX,
    FACEVERIFY_SINKS: 'http',
    FACEVERIFY_SINK_HTTP_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/results`,
    FACEVERIFY_SINK_HTTP_SECRET: FORWARD_SECRET,
  });
  const deliveries = await Promise.all(
    Array.from({ length: RESULTS }, (_, index) =>
      signedDelivery(fixturePayload({ external_user_id: `shutdown_${index}` }), {
        secret: emulator.signingSecret,
      }),
    ),
  );
  const answers = deliveries.map((delivery) =>
    fetch(relay.webhookUrl, { method: 'POST', headers: delivery.headers, body: delivery.text }),
  );
  await waitFor(() => received === RESULTS, 'every result being forwarded');
  expect(answered).toBe(0);
  relay.child.kill('SIGTERM');

  const responses = await Promise.all(answers);
  expect(responses.map((response) => response.status)).toEqual(Array(RESULTS).fill(200));
  // Each answered with its connection closed: a client's idle keep-alive connection would
  // hold the relay's stop until the client dropped it (4 s for Node's fetch).
  expect(responses.map((response) => response.headers.get('connection'))).toEqual(
    Array(RESULTS).fill('close'),
  );
  expect(await relay.exited).toBe(0);
  expect(answered).toBe(RESULTS);
  expect(relay.output()).toContain('faceverify-relay: stopped.');
  const counts = await new RedisStore({ redis, prefix: PREFIX }).counts({ now: Date.now() });
  expect(counts).toMatchObject({ pending: 0, delivering: 0 });
});
