import type { Server } from 'node:http';
import {
  assertAccepted,
  assertError,
  createFixture,
  type Fixture,
  LIMIT,
  SECRET,
} from '@faceverify/conformance';
import { ConfigurationError, MemoryStore } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import Fastify, { type FastifyHttpOptions, type FastifyInstance } from 'fastify';
import fastifyRawBody from 'fastify-raw-body';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verificationWebhook } from '../src/index.js';

const WEBHOOK_PATH = '/webhooks/verification';
const open: FastifyInstance[] = [];

function newApp(options: FastifyHttpOptions<Server> = {}): FastifyInstance {
  const app = Fastify({ forceCloseConnections: true, ...options });
  open.push(app);
  return app;
}

async function serve(app: FastifyInstance): Promise<string> {
  return (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '');
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((app) => app.close()));
  vi.unstubAllEnvs();
});

async function post(url: string, body: Uint8Array | string, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });
  const text = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** An app with the webhook plugin and a JSON route of its own, as most apps have. */
async function appWithJsonRoute(fixture: Fixture, app = newApp()) {
  await app.register(verificationWebhook, { receiver: fixture.receiver });
  const parsed: unknown[] = [];
  app.post('/api/profile', async (request) => {
    parsed.push(request.body);
    return { ok: true };
  });
  return { app, parsed, url: await serve(app) };
}

describe('registration', () => {
  it('without a receiver reads FACEVERIFY_WEBHOOK_SECRET', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const app = newApp();
    await app.register(verificationWebhook);
    const received: string[] = [];
    app.verificationWebhook.on('verification.completed', ({ data }) => {
      received.push(data.external_user_id);
    });
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}${WEBHOOK_PATH}`, delivery.body, delivery.headers));
    expect(received).toEqual(['user_123']);
  });

  it('without a secret anywhere fails the registration with a ConfigurationError naming the variable', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', '');
    const registering = newApp().register(verificationWebhook);
    await expect(registering).rejects.toThrow(ConfigurationError);
    await expect(newApp().register(verificationWebhook)).rejects.toThrow(
      /FACEVERIFY_WEBHOOK_SECRET/,
    );
  });

  it('refuses passThrough without a handler, and a path without a leading slash', async () => {
    const receiver = createFixture().receiver;
    await expect(
      newApp().register(verificationWebhook, { receiver, passThrough: true }),
    ).rejects.toThrow(/"passThrough" needs a "handler"/);
    await expect(
      newApp().register(verificationWebhook, { receiver, path: 'hooks' }),
    ).rejects.toThrow(ConfigurationError);
  });

  it('builds its Receiver from options', async () => {
    const app = newApp();
    await app.register(verificationWebhook, {
      receiver: { secret: SECRET, client: false, store: new MemoryStore(), maxBodyBytes: 1234 },
    });
    expect(app.verificationWebhook.receiver.maxBodyBytes).toBe(1234);
  });

  it('two webhooks with their own receivers live side by side in sibling plugins', async () => {
    const first = createFixture();
    const second = createFixture({ secret: 'whsec_second_account_77' });
    const app = newApp();
    await app.register(async (scope) => {
      await scope.register(verificationWebhook, { receiver: first.receiver, path: '/a' });
    });
    await app.register(async (scope) => {
      await scope.register(verificationWebhook, { receiver: second.receiver, path: '/b' });
    });
    const url = await serve(app);
    const toFirst = await signedDelivery(fixturePayload(), { secret: SECRET });
    const toSecond = await signedDelivery(fixturePayload(), { secret: 'whsec_second_account_77' });
    assertAccepted(await post(`${url}/a`, toFirst.body, toFirst.headers));
    assertAccepted(await post(`${url}/b`, toSecond.body, toSecond.headers));
    assertError(await post(`${url}/a`, toSecond.body, toSecond.headers), 401, 'signature_invalid');
    expect(first.events).toHaveLength(1);
    expect(second.events).toHaveLength(1);
  });
});

describe('the content-type parser is scoped to the webhook route', () => {
  it("another route of the same app still gets Fastify's parsed JSON", async () => {
    const fixture = createFixture();
    const { parsed, url } = await appWithJsonRoute(fixture);
    const profile = await post(`${url}/api/profile`, '{"name":"Ada","age":36}', {
      'content-type': 'application/json',
    });
    expect(profile.json).toEqual({ ok: true });
    expect(parsed).toEqual([{ name: 'Ada', age: 36 }]);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}${WEBHOOK_PATH}`, delivery.body, delivery.headers));
    expect(fixture.events).toHaveLength(1);
  });

  it("the app's own parsers keep answering its other routes, malformed JSON included", async () => {
    const fixture = createFixture();
    const app = newApp();
    app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => {
      done(null, String(body).split(','));
    });
    const { parsed, url } = await appWithJsonRoute(fixture, app);
    await post(`${url}/api/profile`, 'a,b,c', { 'content-type': 'text/csv' });
    expect(parsed).toEqual([['a', 'b', 'c']]);
    const malformed = await post(`${url}/api/profile`, '{"name":', {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json?.code).toBe('FST_ERR_CTP_INVALID_JSON_BODY');
  });

  it("the receiver's maxBodyBytes is the route's bodyLimit, whatever the server's is", async () => {
    const fixture = createFixture();
    const app = newApp({ bodyLimit: 1024 });
    const limits: Record<string, number> = {};
    app.addHook('onRequest', async (request) => {
      limits[request.url] = request.routeOptions.bodyLimit ?? 0;
    });
    const { url } = await appWithJsonRoute(fixture, app);
    const payload = fixturePayload();
    const json = JSON.stringify(payload);
    // Ten times the server's bodyLimit, well within the receiver's.
    const rawBody = json + ' '.repeat(10 * 1024 - json.length);
    const delivery = await signedDelivery(payload, { secret: SECRET, rawBody });
    assertAccepted(await post(`${url}${WEBHOOK_PATH}`, delivery.body, delivery.headers));
    const big = await post(`${url}/api/profile`, rawBody, { 'content-type': 'application/json' });
    expect(big.status).toBe(413);
    expect(limits).toEqual({ [WEBHOOK_PATH]: LIMIT, '/api/profile': 1024 });
  });

  it('fastify-raw-body, registered app-wide, keeps serving the other routes', async () => {
    const fixture = createFixture();
    const app = newApp();
    await app.register(fastifyRawBody);
    const rawBodies: unknown[] = [];
    app.addHook('preHandler', async (request) => {
      rawBodies.push(request.rawBody);
    });
    const { url } = await appWithJsonRoute(fixture, app);
    await post(`${url}/api/profile`, '{ "name": "Ada" }', { 'content-type': 'application/json' });
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}${WEBHOOK_PATH}`, delivery.body, delivery.headers));
    // The webhook route reads the stream itself; fastify-raw-body skipped it.
    expect(rawBodies).toEqual(['{ "name": "Ada" }', undefined]);
    expect(fixture.events).toHaveLength(1);
  });
});

describe('the request carries the event', () => {
  it('request.verification is set for the app-wide hooks after an accepted webhook', async () => {
    const fixture = createFixture();
    const app = newApp();
    const seen: (string | undefined)[] = [];
    app.addHook('onResponse', async (request) => {
      seen.push(request.verification?.data.external_user_id);
    });
    const { url } = await appWithJsonRoute(fixture, app);
    const payload = fixturePayload({ external_user_id: 'user_on_request' });
    const delivery = await signedDelivery(payload, { secret: SECRET });
    assertAccepted(await post(`${url}${WEBHOOK_PATH}`, delivery.body, delivery.headers));
    await post(`${url}/api/profile`, '{}', { 'content-type': 'application/json' });
    expect(seen).toEqual(['user_on_request', undefined]);
  });

  it('a passThrough handler may answer with reply.send() instead of returning', async () => {
    const fixture = createFixture();
    const app = newApp();
    await app.register(verificationWebhook, {
      receiver: fixture.receiver,
      passThrough: true,
      handler: (request, reply) => {
        void reply.code(201).send({ user: request.verification?.data.external_user_id });
      },
    });
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}${WEBHOOK_PATH}`, delivery.body, delivery.headers);
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({ user: 'user_123' });
  });
});
