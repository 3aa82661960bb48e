import { gzipSync } from 'node:zlib';
import {
  assertAccepted,
  assertError,
  createFixture,
  LIMIT,
  type Listening,
  listen,
  SECRET,
} from '@faceverify/conformance';
import { ConfigurationError, createReceiver, MemoryStore } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import Koa2 from 'koa2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verificationWebhook } from '../src/index.js';

const open: Listening[] = [];

async function serve(app: Koa): Promise<string> {
  const listening = await listen(app.callback());
  open.push(listening);
  return listening.url;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((listening) => listening.close()));
  vi.unstubAllEnvs();
});

async function post(url: string, body: Uint8Array | string, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}

/** A signed body whose user id holds a byte that is not UTF-8 (still valid JSON). */
async function invalidUtf8Delivery() {
  const json = JSON.stringify(fixturePayload({ external_user_id: 'user_X' }));
  const bytes = new TextEncoder().encode(json);
  bytes[json.indexOf('user_X') + 5] = 0xff;
  return signedDelivery(fixturePayload(), { secret: SECRET, rawBody: bytes });
}

describe('verificationWebhook() configuration', () => {
  it('without arguments reads FACEVERIFY_WEBHOOK_SECRET', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const received: string[] = [];
    const app = new Koa();
    app.use(
      verificationWebhook().on('verification.completed', ({ data }) => {
        received.push(data.external_user_id);
      }),
    );
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}/webhooks/verification`, delivery.body, delivery.headers));
    expect(received).toEqual(['user_123']);
  });

  it('is built without configuration; a webhook before it is configured gets 500 and a log naming the variable', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', '');
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const logged: string[] = [];
    const received: string[] = [];
    // Built as an app module builds it on import, before the environment holds the secret.
    const webhook = verificationWebhook({
      logger: { error: (message) => logged.push(message) },
    }).on('verification.completed', ({ data }) => {
      received.push(data.external_user_id);
    });
    expect(() => webhook.receiver).toThrow(ConfigurationError);
    const app = new Koa();
    app.use(webhook);
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });

    const refused = await post(`${url}/webhooks/verification`, delivery.body, delivery.headers);
    expect(refused.status).toBe(500);
    expect(refused.json.error).toBe('receiver_not_configured');
    expect(logged).toEqual([expect.stringMatching(/FACEVERIFY_WEBHOOK_SECRET/)]);

    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    assertAccepted(await post(`${url}/webhooks/verification`, delivery.body, delivery.headers));
    expect(received).toEqual(['user_123']);
  });

  it('builds its Receiver from options, or uses the one given', () => {
    expect(
      verificationWebhook({ secret: SECRET, client: false, maxBodyBytes: 99 }).receiver,
    ).toHaveProperty('maxBodyBytes', 99);
    const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
    expect(verificationWebhook(receiver).receiver).toBe(receiver);
  });

  it('refuses a path that does not start with a slash', () => {
    expect(() => verificationWebhook({ secret: SECRET, client: false }, { path: 'x' })).toThrow(
      /must start with "\/"/,
    );
  });
});

describe('after @koa/bodyparser', () => {
  async function appWithBodyParser() {
    const fixture = createFixture();
    const app = new Koa();
    app.use(bodyParser());
    app.use(verificationWebhook(fixture.receiver));
    return { fixture, url: `${await serve(app)}/webhooks/verification` };
  }

  it('uses rawBody when it provably is the bytes received', async () => {
    const { fixture, url } = await appWithBodyParser();
    const payload = fixturePayload({ external_user_id: 'ünïcødé 😀' });
    const delivery = await signedDelivery(payload, {
      secret: SECRET,
      rawBody: JSON.stringify(payload, null, 3),
    });
    assertAccepted(await post(url, delivery.body, delivery.headers));
    expect(fixture.events[0]?.data).toEqual(payload);
  });

  it('refuses rawBody in which invalid UTF-8 was replaced', async () => {
    const { fixture, url } = await appWithBodyParser();
    const delivery = await invalidUtf8Delivery();
    const message = assertError(
      await post(url, delivery.body, delivery.headers),
      500,
      'raw_body_unavailable',
    );
    expect(message).toContain('@koa/bodyparser');
    expect(message).toContain('not valid UTF-8');
    expect(message).toContain('Mount verificationWebhook() before bodyParser()');
    expect(fixture.events).toHaveLength(0);
  });

  it('refuses rawBody the parser decompressed', async () => {
    const { fixture, url } = await appWithBodyParser();
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const message = assertError(
      await post(url, gzipSync(delivery.body), {
        ...delivery.headers,
        'content-encoding': 'gzip',
      }),
      500,
      'raw_body_unavailable',
    );
    expect(message).toContain('Content-Encoding');
    expect(fixture.events).toHaveLength(0);
  });

  it('refuses rawBody of a request that declared another charset', async () => {
    const { url } = await appWithBodyParser();
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(url, delivery.body, {
      ...delivery.headers,
      'content-type': 'application/json; charset=latin1',
    });
    expect(assertError(answer, 500, 'raw_body_unavailable')).toContain('charset other than UTF-8');
  });
});

describe('without a body parser', () => {
  it('verifies bytes that are not valid UTF-8 exactly, then rejects the payload', async () => {
    const fixture = createFixture();
    const app = new Koa();
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await invalidUtf8Delivery();
    const answer = await post(`${url}/webhooks/verification`, delivery.body, delivery.headers);
    expect(assertError(answer, 400, 'payload_invalid')).toContain('UTF-8');
  });

  it('closes the connection after refusing an oversize body', async () => {
    const fixture = createFixture();
    const app = new Koa();
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const answer = await post(`${url}/webhooks/verification`, new Uint8Array(LIMIT + 1), {
      'x-webhook-signature': '00',
    });
    assertError(answer, 413, 'payload_too_large');
    expect(answer.headers.get('connection')).toBe('close');
  });
});

describe.each([
  ['Koa 3', Koa],
  ['Koa 2', Koa2],
])('%s passThrough', (name, KoaApp) => {
  it(`hands over to middleware behind bodyParser(), which leaves the spent body alone [${name}]`, async () => {
    const fixture = createFixture();
    const app = new KoaApp();
    app.use(verificationWebhook(fixture.receiver, { passThrough: true }));
    app.use(bodyParser());
    app.use((ctx) => {
      ctx.body = { user: ctx.state.verification.data.external_user_id };
    });
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}/webhooks/verification`, delivery.body, delivery.headers);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ user: 'user_123' });
  });
});

describe('@koa/router', () => {
  it('router.use() middleware is not a route: it checks the path', async () => {
    const fixture = createFixture();
    const app = new Koa();
    const router = new Router();
    router.use(verificationWebhook(fixture.receiver));
    router.post('/other', (ctx) => {
      ctx.body = 'other route';
    });
    app.use(router.routes());
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const response = await fetch(`${url}/other`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.text,
    });
    expect(await response.text()).toBe('other route');
    expect(fixture.events).toHaveLength(0);
  });
});
