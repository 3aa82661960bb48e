import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { EmulatorContext } from './emulator-context.js';
import { apiKeyAuth } from './http/api-key-auth.js';
import type { AppEnv } from './http/app-env.js';
import { errorResponse } from './http/error-response.js';
import { completeRoute } from './routes/complete.js';
import { CONTROL_PREFIX, controlRoute } from './routes/control.js';
import { frontImagesRoute } from './routes/front-images.js';
import { hostedPageRoute } from './routes/hosted-page.js';
import { sessionsRoute } from './routes/sessions.js';
import { verifyRoute } from './routes/verify.js';

/** Largest request body accepted; every body the emulator takes is a small JSON object. */
const MAX_BODY_BYTES = 64 * 1024;

/** The emulator's HTTP application: the service's API, its hosted page, and the control API. */
export function createApp(ctx: EmulatorContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      errorResponse(c, 413, 'payload_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`),
  });
  app.use('/v1/*', limitBody);
  app.use(`${CONTROL_PREFIX}/*`, limitBody);

  const requireApiKey = apiKeyAuth(ctx.config.apiKeys);
  app.route('/', verifyRoute(ctx, requireApiKey));
  app.route('/', sessionsRoute(ctx, requireApiKey));
  app.route('/', completeRoute(ctx));
  app.route('/', hostedPageRoute(ctx));
  app.route('/', frontImagesRoute(ctx));
  app.route('/', controlRoute(ctx));

  app.notFound((c) => errorResponse(c, 404, 'not_found', 'There is no such endpoint.'));
  app.onError((error, c) => {
    ctx.config.logger?.warn(`request failed: ${error.stack ?? error.message}`);
    return errorResponse(c, 500, 'internal_error', 'The emulator failed to handle the request.');
  });
  return app;
}
