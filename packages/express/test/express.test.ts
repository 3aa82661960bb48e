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
import express from 'express';
import express4 from 'express4';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureRawBody, verificationWebhook } from '../src/index.js';

const open: Listening[] = [];

async function serve(app: express.Express): Promise<string> {
  const listening = await listen(app);
  open.push(listening);
  return listening.url;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((listening) => listening.close()));
  vi.unstubAllEnvs();
});

async function post(url: string, body: BodyInit, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: JSON.parse(text) as Record<string, unknown>,
  };
}

describe('verificationWebhook() configuration', () => {
  it('without arguments reads FACEVERIFY_WEBHOOK_SECRET', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const webhook = verificationWebhook();
    const received: string[] = [];
    webhook.on('verification.completed', ({ data }) => {
      received.push(data.external_user_id);
    });
    const app = express();
    app.use(webhook);
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}/webhooks/verification`, delivery.text, delivery.headers);
    expect(answer.status).toBe(200);
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
    const app = express();
    app.use(webhook);
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });

    const refused = await post(`${url}/webhooks/verification`, delivery.text, delivery.headers);
    expect(refused.status).toBe(500);
    expect(refused.json.error).toBe('receiver_not_configured');
    expect(logged).toEqual([expect.stringMatching(/FACEVERIFY_WEBHOOK_SECRET/)]);

    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    const accepted = await post(`${url}/webhooks/verification`, delivery.text, delivery.headers);
    expect(accepted.status).toBe(200);
    expect(received).toEqual(['user_123']);
  });

  it('.on takes the options of receiver.on: a transactional handler on a store without transactions is refused', async () => {
    const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
    expect(() =>
      verificationWebhook(receiver).on('verification.completed', () => undefined, {
        transactional: true,
      }),
    ).toThrow(/transactional handler needs a store/);

    // Built from options, the Receiver (and the refusal) comes with the first webhook.
    const logged: string[] = [];
    const webhook = verificationWebhook({
      secret: SECRET,
      client: false,
      logger: { error: (message) => logged.push(message) },
    }).on('verification.completed', () => undefined, { transactional: true });
    const app = express();
    app.use(webhook);
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}/webhooks/verification`, delivery.text, delivery.headers);
    expect(answer.status).toBe(500);
    expect(answer.json.error).toBe('receiver_not_configured');
    expect(logged).toEqual([expect.stringMatching(/Remove \{ transactional: true \}/)]);
  });

  it('builds its Receiver from options', () => {
    const webhook = verificationWebhook({ secret: SECRET, client: false, maxBodyBytes: 1234 });
    expect(webhook.receiver.maxBodyBytes).toBe(1234);
  });

  it('uses a Receiver it is given as is', () => {
    const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
    expect(verificationWebhook(receiver).receiver).toBe(receiver);
  });

  it('refuses a path that does not start with a slash', () => {
    const receiver = createReceiver({ secret: SECRET, client: false });
    expect(() => verificationWebhook(receiver, { path: 'webhooks' })).toThrow(
      /must start with "\/"/,
    );
  });
});

describe.each([
  ['Express 5', express],
  ['Express 4', express4],
])('%s body parsers', (name, createApp) => {
  it(`express.json() first, even with Content-Length: 500 with the exact fix [${name}]`, async () => {
    const fixture = createFixture();
    const app = createApp();
    app.use(createApp.json());
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}/webhooks/verification`, delivery.text, delivery.headers);
    const message = assertError({ ...answer }, 500, 'raw_body_unavailable');
    expect(message).toContain(
      'mount verificationWebhook() before body parsers, or use express.json({ verify: captureRawBody })',
    );
    expect(fixture.events).toHaveLength(0);
  });

  it(`express.raw() first: its Buffer is the exact body [${name}]`, async () => {
    const fixture = createFixture();
    const app = createApp();
    app.use(createApp.raw({ type: '*/*' }));
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const payload = fixturePayload({ external_user_id: 'raw_user' });
    const delivery = await signedDelivery(payload, {
      secret: SECRET,
      rawBody: JSON.stringify(payload, null, 4),
    });
    assertAccepted(await post(`${url}/webhooks/verification`, delivery.text, delivery.headers));
    expect(fixture.events.map((event) => event.data.external_user_id)).toEqual(['raw_user']);
  });

  it(`a platform's req.rawBody (Google Cloud Functions) is the exact body [${name}]`, async () => {
    const fixture = createFixture();
    const app = createApp();
    app.use(
      createApp.json({
        verify: (req, _res, bytes) => {
          (req as typeof req & { rawBody?: Buffer }).rawBody = bytes;
        },
      }),
    );
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}/webhooks/verification`, delivery.text, delivery.headers));
    expect(fixture.events).toHaveLength(1);
  });

  it(`captureRawBody also keeps a chunked body [${name}]`, async () => {
    const fixture = createFixture();
    const app = createApp();
    app.use(createApp.json({ verify: captureRawBody }));
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(delivery.body.slice(0, 10));
        controller.enqueue(delivery.body.slice(10));
        controller.close();
      },
    });
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: delivery.headers,
      body,
      duplex: 'half',
    };
    const response = await fetch(`${url}/webhooks/verification`, init);
    expect(response.status).toBe(200);
    expect(fixture.events).toHaveLength(1);
  });

  it(`captured bytes a parser decompressed are not the bytes sent: 500 saying so [${name}]`, async () => {
    const fixture = createFixture();
    const app = createApp();
    app.use(createApp.json({ verify: captureRawBody }));
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}/webhooks/verification`, gzipSync(delivery.body), {
      ...delivery.headers,
      'content-encoding': 'gzip',
    });
    const message = assertError(answer, 500, 'raw_body_unavailable');
    expect(message).toContain('decompressed');
    expect(fixture.events).toHaveLength(0);
  });
});

describe.each([
  ['Express 5', express],
  ['Express 4', express4],
])('%s passThrough', (name, createApp) => {
  it(`hands over to routes behind express.json(), which leaves the spent body alone [${name}]`, async () => {
    const fixture = createFixture();
    const app = createApp();
    app.use(verificationWebhook(fixture.receiver, { passThrough: true }));
    app.use(createApp.json());
    app.post('/webhooks/verification', (req, res) => {
      res.json({ user: req.verification?.data.external_user_id });
    });
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const answer = await post(`${url}/webhooks/verification`, delivery.text, delivery.headers);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ user: 'user_123' });
  });
});

describe('captureRawBody', () => {
  it('stores the exact bytes under a non-enumerable symbol', () => {
    const req = { headers: {} } as Parameters<typeof captureRawBody>[0];
    const bytes = Buffer.from('{"a": 1}');
    captureRawBody(req, {} as Parameters<typeof captureRawBody>[1], bytes);
    const keys = Object.getOwnPropertySymbols(req);
    expect(keys).toHaveLength(1);
    expect(Object.keys(req)).toEqual(['headers']);
    expect((req as unknown as Record<symbol, { bytes: Buffer }>)[keys[0]!]?.bytes).toBe(bytes);
  });
});

describe('mounting', () => {
  it('app.use(path, middleware) serves exactly that path', async () => {
    const fixture = createFixture();
    const app = express();
    app.use('/webhooks/verification', verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}/webhooks/verification`, delivery.text, delivery.headers));
  });

  it('in a router mounted below a prefix, path is the whole request path', async () => {
    const fixture = createFixture();
    const app = express();
    const router = express.Router();
    router.use(verificationWebhook(fixture.receiver, { path: '/api/hook' }));
    app.use('/api', router);
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}/api/hook`, delivery.text, delivery.headers));
  });

  it('after an earlier route called next(), it is app-level middleware again', async () => {
    const fixture = createFixture();
    const app = express();
    app.get('/elsewhere', (_req, _res, next) => next());
    app.use(verificationWebhook(fixture.receiver));
    app.get('/elsewhere', (_req, res) => {
      res.send('reached');
    });
    const url = await serve(app);
    const response = await fetch(`${url}/elsewhere`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('reached');
  });

  it('leaves req.verification for response listeners even without passThrough', async () => {
    const fixture = createFixture();
    const app = express();
    const seen: string[] = [];
    app.use((req, res, next) => {
      res.on('finish', () => seen.push(req.verification?.data.external_user_id ?? 'none'));
      next();
    });
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    assertAccepted(await post(`${url}/webhooks/verification`, delivery.text, delivery.headers));
    await vi.waitFor(() => expect(seen).toEqual(['user_123']));
  });
});

describe('oversize bodies', () => {
  it('closes the connection after refusing a body it did not read', async () => {
    const fixture = createFixture();
    const app = express();
    app.use(verificationWebhook(fixture.receiver));
    const url = await serve(app);
    const answer = await post(`${url}/webhooks/verification`, new Uint8Array(LIMIT + 1), {
      'x-webhook-signature': '00',
    });
    assertError(answer, 413, 'payload_too_large');
    expect(answer.headers.get('connection')).toBe('close');
  });
});
