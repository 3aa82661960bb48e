import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigurationError, createReceiver, MemoryStore } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verificationWebhook } from '../src/index.js';

const SECRET = 'whsec_hono_unit_7b2c4f';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('verificationWebhook() configuration', () => {
  it('without arguments reads FACEVERIFY_WEBHOOK_SECRET', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const received: string[] = [];
    const app = new Hono();
    app.use(
      verificationWebhook().on('verification.completed', ({ data }) => {
        received.push(data.external_user_id);
      }),
    );
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const response = await app.request('/webhooks/verification', {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.text,
    });
    expect(response.status).toBe(200);
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
    const app = new Hono();
    app.use(webhook);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const send = () =>
      app.request('/webhooks/verification', {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.text,
      });

    const refused = await send();
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({ error: 'receiver_not_configured' });
    expect(logged).toEqual([expect.stringMatching(/FACEVERIFY_WEBHOOK_SECRET/)]);

    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    expect((await send()).status).toBe(200);
    expect(received).toEqual(['user_123']);
  });

  it('builds its Receiver from options, or uses the one given', () => {
    expect(
      verificationWebhook({ secret: SECRET, client: false, maxBodyBytes: 77 }).receiver,
    ).toHaveProperty('maxBodyBytes', 77);
    const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
    expect(verificationWebhook(receiver).receiver).toBe(receiver);
  });

  it('refuses a path that does not start with a slash', () => {
    expect(() => verificationWebhook({ secret: SECRET, client: false }, { path: 'x' })).toThrow(
      /must start with "\/"/,
    );
  });
});

describe('mounting', () => {
  it("app.use('/api/*', middleware) checks the path; app.use(exactPath) does not need to", async () => {
    const receiver = createReceiver({ secret: SECRET, client: false, store: new MemoryStore() });
    const app = new Hono();
    app.use('/api/*', verificationWebhook(receiver, { path: '/api/hook' }));
    app.use('/exact', verificationWebhook(receiver));
    app.post('/api/other', (c) => c.text('other'));
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const init = { method: 'POST', headers: delivery.headers, body: delivery.text };
    expect(await (await app.request('/api/other', init)).text()).toBe('other');
    expect((await app.request('/api/hook', init)).status).toBe(200);
    const second = await signedDelivery(fixturePayload({ external_user_id: 'u2' }), {
      secret: SECRET,
    });
    const exact = await app.request('/exact', {
      method: 'POST',
      headers: second.headers,
      body: second.text,
    });
    expect(exact.status).toBe(200);
  });
});

describe('portability', () => {
  it('the package sources import no node: modules (they must bundle for Workers)', () => {
    const sourceDir = fileURLToPath(new URL('../src', import.meta.url));
    const files = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    const offenders = files.filter((file) =>
      /from\s+['"]node:|import\(\s*['"]node:/.test(readFileSync(join(sourceDir, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
