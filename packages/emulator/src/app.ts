import { Hono } from 'hono';
import type { EmulatorContext } from './emulator-context.js';
import { apiKeyAuth } from './http/api-key-auth.js';
import type { AppEnv } from './http/app-env.js';
import { controlTokenAuth } from './http/control-token-auth.js';
import { errorResponse } from './http/error-response.js';
import { hostGuard } from './http/host-guard.js';
import { answerUnrouted } from './http/method-answers.js';
import { readBody } from './http/read-body.js';
import { completeRoute } from './routes/complete.js';
import { CONTROL_PREFIX, controlRoute } from './routes/control.js';
import { frontImagesRoute } from './routes/front-images.js';
import { hostedPageRoute } from './routes/hosted-page.js';
import { INSPECTOR_PATH, inspectorRoute } from './routes/inspector.js';
import { sessionsRoute } from './routes/sessions.js';
import { verifyRoute } from './routes/verify.js';

/** Largest request body accepted; every body the emulator takes is a small JSON object. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The emulator's HTTP application: the service's API, its hosted page, and the control API.
 * `allowedHosts` are the `Host` values it answers to, known once the server listens.
 */
export function createApp(
  ctx: EmulatorContext,
  allowedHosts: () => ReadonlySet<string>,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', hostGuard(allowedHosts));
  const limitBody = readBody(MAX_BODY_BYTES, ctx.config.bodyTimeoutMs);
  app.use('/v1/*', limitBody);
  app.use(`${CONTROL_PREFIX}/*`, limitBody);
  const requireControlToken = controlTokenAuth(ctx.config.controlToken);
  app.use(`${CONTROL_PREFIX}/*`, (c, next) =>
    // Health tells only that the emulator runs; container health checks call it without a
    // token. The inspector page holds no data: its script asks for the token when needed.
    c.req.path === `${CONTROL_PREFIX}/health` || c.req.path === INSPECTOR_PATH
      ? next()
      : requireControlToken(c, next),
  );
  // The hosted page may be served from another origin than the API (a proxy): its
  // completion call, authenticated by the token in its path alone, may be read from anywhere.
  app.use('/v1/sessions/:token/complete', async (c, next) => {
    await next();
    c.res.headers.set('Access-Control-Allow-Origin', '*');
  });

  const requireApiKey = apiKeyAuth(ctx.config.accounts);
  app.route('/', verifyRoute(ctx, requireApiKey));
  app.route('/', sessionsRoute(ctx, requireApiKey));
  app.route('/', completeRoute(ctx));
  app.route('/', hostedPageRoute(ctx));
  app.route('/', frontImagesRoute(ctx));
  app.route('/', controlRoute(ctx));
  app.route('/', inspectorRoute(ctx));

  app.notFound((c) => answerUnrouted(app, c));
  app.onError((error, c) => {
    ctx.config.logger?.warn(`request failed: ${error.stack ?? error.message}`);
    return errorResponse(c, 500, 'internal_error', 'The emulator failed to handle the request.');
  });
  return app;
}
