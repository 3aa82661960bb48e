import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import { type RedisServer, startRedisServer, waitFor } from '@faceverify/test-support';
import { type NatsServer, startNatsServer } from '@faceverify/test-support/nats-server';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RelayProcess, relayEnv, startRelayProcess } from './support/relay-process.js';

const TOKEN = 'relay-sinks-token-0123456789abcdef0123456789abcdef';
const FORWARD_SECRET = `whsec_${Buffer.from('relay-several-sinks-secret').toString('base64')}`;

let emulator: Emulator;
let redisServer: RedisServer;
let natsServer: NatsServer;
let redis: Redis;
let nats: NatsConnection;
let manager: JetStreamManager;
let endpoint: Server;
let relay: RelayProcess;
/** `webhook-id` of each forward the endpoint received. */
const forwarded: string[] = [];

beforeAll(async () => {
  [emulator, redisServer, natsServer] = await Promise.all([
    startEmulator(),
    startRedisServer(),
    startNatsServer(),
  ]);
  redis = new Redis(redisServer.url);
  nats = await connect({ servers: natsServer.url });
  manager = await jetstreamManager(nats);
  await manager.streams.add({ name: 'RESULTS', subjects: ['faceverify.results'] });
  endpoint = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      forwarded.push(request.headers['webhook-id'] as string);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  relay = await startRelayProcess({
    ...relayEnv(emulator, TOKEN),
    FACEVERIFY_STORE_URL: redisServer.url,
    FACEVERIFY_SINKS: 'redis,nats,http',
    FACEVERIFY_SINK_REDIS_URL: redisServer.url,
    FACEVERIFY_SINK_NATS_URL: natsServer.url,
    FACEVERIFY_SINK_HTTP_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/results`,
    FACEVERIFY_SINK_HTTP_SECRET: FORWARD_SECRET,
  });
  emulator.setCallbackUrl(relay.webhookUrl);
});

afterAll(async () => {
  relay?.child.kill('SIGKILL');
  redis?.disconnect();
  await nats?.close();
  await new Promise((resolve) => endpoint?.close(resolve));
  await Promise.all([emulator?.close(), redisServer?.stop(), natsServer?.stop()]);
});

it('several sinks at once: a result is in the Redis stream, the NATS stream and at the HTTP endpoint, each once, with one id', async () => {
  const started = await fetch(`${relay.apiUrl}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ externalUserId: 'user_sinks' }),
  });
  const { token } = (await started.json()) as { token: string };
  await emulator.completeSession(token, 'verified');
  await waitFor(async () => {
    const { state } = await manager.streams.info('RESULTS');
    return forwarded.length === 1 && state.messages === 1;
  }, 'the result at the endpoint and in NATS');
  await emulator.webhooksSettled();

  const entries = (await redis.xrange('faceverify:results', '-', '+')) as [string, string[]][];
  expect(entries).toHaveLength(1);
  const [, fields] = entries[0] as [string, string[]];
  const id = fields[fields.indexOf('id') + 1];
  const stored = await manager.streams.getMessage('RESULTS', { seq: 1 });
  expect(stored?.header.get('Nats-Msg-Id')).toBe(id);
  expect(stored?.json()).toMatchObject({ id, data: { external_user_id: 'user_sinks' } });
  expect(forwarded).toEqual([id]);

  const metrics = await (await fetch(`${relay.apiUrl}/metrics`)).text();
  for (const sink of ['redis', 'nats', 'http']) {
    expect(metrics).toContain(
      `faceverify_relay_sink_results_total{sink="${sink}",outcome="delivered"} 1`,
    );
    expect(metrics).toContain(
      `faceverify_relay_sink_results_total{sink="${sink}",outcome="failed"} 0`,
    );
  }
});
