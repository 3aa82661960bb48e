import { ApiError, createReceiver, MemoryStore, RateLimitError } from '@faceverify/core';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import Koa from 'koa';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ seed: 'koa-service-errors' });
});

afterAll(async () => {
  await emulator?.close();
});

/** An app whose start route lets the client's error reach Koa's own error handling. */
function appWithApiKey(apiKey: string) {
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey, baseUrl: emulator.url, maxRetries: 0 },
    store: new MemoryStore(),
    logger: false,
  });
  const app = new Koa();
  const errors: unknown[] = [];
  // Koa answers `err.status` (or `err.statusCode`), and with `err.expose` the message too.
  app.on('error', (error) => errors.push(error));
  app.use(async (ctx) => {
    const { verifyUrl } = await receiver.startVerification({ externalUserId: 'alice' });
    ctx.status = 201;
    ctx.body = { verifyUrl };
  });
  return { app, errors };
}

describe("the service's errors in a Koa app", () => {
  it("a refused API key is the app's 500 to its caller, never the service's 401 or its message", async () => {
    const { app, errors } = appWithApiKey('fv_live_not_the_right_key_0000000000');

    const response = await request(app.callback()).post('/verifications');

    expect(response.status).toBe(500);
    expect(response.text).toBe('Internal Server Error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ApiError);
    expect(errors[0]).toMatchObject({
      serviceStatus: 401,
      message: expect.stringMatching(/FACEVERIFY_API_KEY/),
    });
  });

  it('a RateLimitError carries no status Koa would answer with', () => {
    const error = new RateLimitError('POST /v1/verify was rate limited (429).', 1000);
    expect(error.serviceStatus).toBe(429);
    expect(error).not.toHaveProperty('status');
    expect(error).not.toHaveProperty('statusCode');
    expect(error).not.toHaveProperty('expose');
  });

  it('the right key starts a session through the same app', async () => {
    const { app } = appWithApiKey(emulator.apiKey);
    const response = await request(app.callback()).post('/verifications');
    expect(response.status).toBe(201);
    expect(response.body.verifyUrl).toMatch(new RegExp(`^${emulator.url}/verify/`));
  });
});
