import { type Emulator, startEmulator } from '@faceverify/emulator';
import { freePort, type RedisServer, startRedisServer } from '@faceverify/test-support';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RelayProcess, relayEnv, startRelayProcess } from './support/relay-process.js';

const TOKEN = 'relay-e2e-token-0123456789abcdef0123456789abcdef';
const STREAM = 'relay:results';

let emulator: Emulator;
let redisServer: RedisServer;
let redis: Redis;
let relay: RelayProcess;

beforeAll(async () => {
  [emulator, redisServer] = await Promise.all([startEmulator(), startRedisServer()]);
  redis = new Redis(redisServer.url);
  const webhookPort = await freePort();
  emulator.setCallbackUrl(`http://127.0.0.1:${webhookPort}/webhooks/verification`);
  relay = await startRelayProcess({
    ...relayEnv(emulator, TOKEN),
    FACEVERIFY_RELAY_WEBHOOK_PORT: String(webhookPort),
    FACEVERIFY_STORE_URL: redisServer.url,
    FACEVERIFY_STORE_PREFIX: 'relay:store:',
    FACEVERIFY_SINKS: 'redis',
    FACEVERIFY_SINK_REDIS_URL: redisServer.url,
    FACEVERIFY_SINK_REDIS_STREAM: STREAM,
    FACEVERIFY_STARTS_PER_USER_PER_DAY: '2',
  });
});

afterAll(async () => {
  relay?.child.kill('SIGKILL');
  redis?.disconnect();
  await Promise.all([emulator?.close(), redisServer?.stop()]);
});

function api(path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = TOKEN, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  if (rest.body !== undefined) headers.set('content-type', 'application/json');
  return fetch(`${relay.apiUrl}${path}`, { ...rest, headers });
}

it('the internal API refuses every session route without the token, or with another', async () => {
  const requests: [string, RequestInit][] = [
    ['/sessions', { method: 'POST', body: JSON.stringify({ externalUserId: 'user_refused' }) }],
    ['/sessions/some-token', { method: 'GET' }],
    ['/sessions/some-token/confirm', { method: 'POST' }],
  ];
  for (const [path, init] of requests) {
    for (const token of [null, 'wrong-token', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
      const response = await api(path, { ...init, token });
      expect(response.status, `${init.method} ${path}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual({
        error: 'unauthorized',
        message: 'Send Authorization: Bearer <FACEVERIFY_RELAY_TOKEN>.',
      });
    }
  }
  // None of them started a session.
  expect(emulator.stats().sessions).toMatchObject({ pending: 0 });
});

it('the internal API answers a request it cannot serve with the reason, and a token it does not track as unknown', async () => {
  const cases: [string, RequestInit, number, string][] = [
    [
      '/sessions',
      { method: 'POST', body: '{"externalUserId": ""}' },
      400,
      'external_user_id_invalid',
    ],
    ['/sessions', { method: 'POST', body: 'not json' }, 400, 'body_invalid'],
    [
      '/sessions',
      { method: 'POST', body: JSON.stringify({ externalUserId: 'u', redirectUrl: 7 }) },
      400,
      'redirect_url_invalid',
    ],
    ['/sessions', { method: 'GET' }, 405, 'method_not_allowed'],
    [
      '/sessions',
      { method: 'POST', body: JSON.stringify({ externalUserId: 'u'.repeat(20_000) }) },
      413,
      'body_too_large',
    ],
    ['/sessions/some-token?waitMs=-1', { method: 'GET' }, 400, 'wait_invalid'],
    ['/sessions/some-token/confirm', { method: 'GET' }, 405, 'method_not_allowed'],
    ['/elsewhere', { method: 'GET' }, 404, 'not_found'],
  ];
  for (const [path, init, status, error] of cases) {
    const response = await api(path, init);
    expect(response.status, `${init.method} ${path}`).toBe(status);
    expect(await response.json()).toMatchObject({ error });
  }
  expect(await (await api('/sessions/never-started')).json()).toEqual({ state: 'unknown' });
  const confirmed = await api('/sessions/never-started/confirm', { method: 'POST' });
  expect(await confirmed.json()).toEqual({ status: 'unknown' });
  expect(emulator.stats().sessions).toMatchObject({ pending: 0 });
});

it('a retry gets the open session back (200, reused), fresh creates one, and past the day a 429 start_limit_reached', async () => {
  const start = (body: Record<string, unknown>) =>
    api('/sessions', {
      method: 'POST',
      body: JSON.stringify({ externalUserId: 'user_retry', ...body }),
    });
  const before = emulator.stats().sessions.pending;
  const first = await start({});
  expect(first.status).toBe(201);
  const created = (await first.json()) as { token: string; reused: boolean; expiresAt: string };
  expect(created.reused).toBe(false);
  expect(Date.parse(created.expiresAt)).toBeGreaterThan(Date.now());
  const again = await start({});
  expect(again.status).toBe(200);
  expect(await again.json()).toMatchObject({ token: created.token, reused: true });
  const fresh = await start({ fresh: true });
  expect(fresh.status).toBe(201);
  expect(emulator.stats().sessions.pending - before).toBe(2);
  const refused = await start({ fresh: true });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await refused.json()).toMatchObject({ error: 'start_limit_reached' });
  expect(emulator.stats().sessions.pending - before).toBe(2);
  expect((await start({ fresh: 'yes' })).status).toBe(400);
});

it('end to end: a session started through the internal API, completed at the service, arrives in the Redis stream once', async () => {
  const started = await api('/sessions', {
    method: 'POST',
    body: JSON.stringify({
      externalUserId: 'user_e2e',
      redirectUrl: 'https://app.example.test/back',
    }),
  });
  expect(started.status).toBe(201);
  const { token, verifyUrl } = (await started.json()) as { token: string; verifyUrl: string };
  expect(verifyUrl).toContain(emulator.url);

  const pending = await api(`/sessions/${encodeURIComponent(token)}`);
  expect(await pending.json()).toEqual({ state: 'pending' });

  await emulator.completeSession(token, 'verified');
  const looked = await api(`/sessions/${encodeURIComponent(token)}?waitMs=20000`);
  const outcome = (await looked.json()) as { state: string; result: { external_user_id: string } };
  expect(outcome.state).toBe('completed');
  expect(outcome.result.external_user_id).toBe('user_e2e');

  const confirmed = await api(`/sessions/${encodeURIComponent(token)}/confirm`, { method: 'POST' });
  expect(await confirmed.json()).toMatchObject({ status: 'verified' });

  // Once, whatever was asked since: the webhook, the lookup and the confirmation.
  await emulator.webhooksSettled();
  const entries = (await redis.xrange(STREAM, '-', '+')) as [string, string[]][];
  expect(entries).toHaveLength(1);
  const [, fields] = entries[0] as [string, string[]];
  const message = JSON.parse(fields[fields.indexOf('message') + 1] as string);
  expect(message).toMatchObject({
    type: 'verification.completed',
    source: 'webhook',
    confirmed: true,
    data: { status: 'verified', external_user_id: 'user_e2e' },
  });
  expect(fields[fields.indexOf('id') + 1]).toBe(message.id);
  // The session token is a credential: never in a message.
  expect(JSON.stringify(entries)).not.toContain(token);

  const metrics = await (await fetch(`${relay.apiUrl}/metrics`)).text();
  expect(metrics).toContain(
    'faceverify_relay_sink_results_total{sink="redis",outcome="delivered"} 1',
  );
  expect(metrics).toContain('faceverify_ready 1');
});

it('probes: /readyz 200 while the store answers, /healthz the Receiver health', async () => {
  const ready = await fetch(`${relay.apiUrl}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ ready: true });
  const health = await (await fetch(`${relay.apiUrl}/healthz`)).json();
  expect(health).toMatchObject({ ready: true, store: { reachable: true } });
  expect(health.deliveries.byWebhook).toBe(1);
});

it('SIGTERM stops it cleanly, exit code 0, and nothing it printed holds a secret or the token', async () => {
  relay.child.kill('SIGTERM');
  expect(await relay.exited).toBe(0);
  const output = relay.output();
  expect(output).toContain('faceverify-relay: SIGTERM: stopping');
  expect(output).toContain('faceverify-relay: stopped.');
  for (const secret of [TOKEN, emulator.apiKey, emulator.signingSecret]) {
    expect(output).not.toContain(secret);
  }
  // It no longer accepts connections.
  await expect(fetch(`${relay.apiUrl}/readyz`)).rejects.toThrow();
});
