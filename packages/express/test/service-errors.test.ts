import { ApiError, createReceiver, MemoryStore } from '@faceverify/core';
import { type Emulator, startEmulator } from '@faceverify/emulator';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ seed: 'express-service-errors' });
});

afterAll(async () => {
  await emulator?.close();
});

/** An app whose start route lets the client's error reach Express's own error handling. */
function appWithApiKey(apiKey: string) {
  const receiver = createReceiver({
    secret: emulator.signingSecret,
    client: { apiKey, baseUrl: emulator.url, maxRetries: 0 },
    store: new MemoryStore(),
    logger: false,
  });
  const app = express();
  app.post('/verifications', express.json(), async (req, res) => {
    const { verifyUrl } = await receiver.startVerification({ externalUserId: req.body.userId });
    res.status(201).json({ verifyUrl });
  });
  return app;
}

describe("the service's errors in an Express app", () => {
  it("a refused API key is the app's 500 to its caller, never the service's 401, and names the variable", async () => {
    const app = appWithApiKey('fv_live_not_the_right_key_0000000000');
    const errors: unknown[] = [];
    // Express 5's default handler answers `err.status` (or `err.statusCode`) when it is 4xx/5xx.
    app.use(
      (
        error: unknown,
        _req: express.Request,
        _res: express.Response,
        next: express.NextFunction,
      ) => {
        errors.push(error);
        next(error);
      },
    );

    const response = await request(app).post('/verifications').send({ userId: 'alice' });

    expect(response.status).toBe(500);
    expect(errors).toHaveLength(1);
    const [error] = errors;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ serviceStatus: 401 });
    expect(error).not.toHaveProperty('status');
    expect(error).not.toHaveProperty('statusCode');
    expect((error as ApiError).message).toMatch(/FACEVERIFY_API_KEY/);
    expect((error as ApiError).message).not.toContain('not_the_right_key');
  });

  it('the right key starts a session through the same route', async () => {
    const response = await request(appWithApiKey(emulator.apiKey))
      .post('/verifications')
      .send({ userId: 'bob' });
    expect(response.status).toBe(201);
    expect(response.body.verifyUrl).toMatch(new RegExp(`^${emulator.url}/verify/`));
  });
});
