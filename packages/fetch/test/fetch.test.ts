import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, createReceiver, MemoryStore } from '@faceverify/core';
import { fixturePayload, signedDelivery } from '@faceverify/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verificationWebhook } from '../src/index.js';

const SECRET = 'whsec_fetch_unit_4d9e1a';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('verificationWebhook() setup', () => {
  it('is built without configuration (next build imports the route); a request then gets 500 and a log naming the variable', async () => {
    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', '');
    vi.stubEnv('FACEVERIFY_API_KEY', '');
    const errors: unknown[][] = [];
    // No logger option: the default writes to the console, which is where a newcomer looks.
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      errors.push(args);
    });
    const received: string[] = [];
    const POST = verificationWebhook().on('verification.completed', ({ data }) => {
      received.push(data.external_user_id);
    });
    expect(() => POST.receiver).toThrow(ConfigurationError);
    const delivery = await signedDelivery(fixturePayload(), { secret: SECRET });
    const request = () =>
      new Request('http://localhost/webhooks/verification', {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.text,
      });

    const refused = await POST(request());
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({ error: 'receiver_not_configured' });
    expect(errors.map((args) => args.join(' '))).toEqual([
      expect.stringMatching(/FACEVERIFY_WEBHOOK_SECRET/),
    ]);

    vi.stubEnv('FACEVERIFY_WEBHOOK_SECRET', SECRET);
    expect((await POST(request())).status).toBe(200);
    expect(received).toEqual(['user_123']);
  });

  it('uses a Receiver it is given as is, or builds one from options', () => {
    const receiver = createReceiver({ secret: 'whsec_x', client: false, store: new MemoryStore() });
    expect(verificationWebhook(receiver).receiver).toBe(receiver);
    expect(verificationWebhook({ secret: 'whsec_y', client: false }).receiver.maxBodyBytes).toBe(
      256 * 1024,
    );
  });

  it('refuses a bodyTimeoutMs that is not a positive number', () => {
    const receiver = createReceiver({ secret: 'whsec_x', client: false });
    expect(() => verificationWebhook(receiver, { bodyTimeoutMs: -1 })).toThrow(/bodyTimeoutMs/);
  });

  it('the package sources import no node: modules (they must bundle for Workers)', () => {
    const sourceDir = join(import.meta.dirname, '..', 'src');
    const files = readdirSync(sourceDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(0);
    const importing = files.filter((file) =>
      /from\s+['"]node:|import\(\s*['"]node:/.test(readFileSync(join(sourceDir, file), 'utf8')),
    );
    expect(importing).toEqual([]);
  });
});
