import { Hono, type MiddlewareHandler } from 'hono';
import type { EmulatorContext } from '../emulator-context.js';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse } from '../http/error-response.js';
import { rateLimitedResponse } from '../http/rate-limited-response.js';
import { toSessionView } from '../sessions/session-view.js';

/**
 * `GET /v1/sessions/:token`: the polling fallback, answering for pending, completed and expired
 * sessions alike. The front image link is issued afresh on each read, so a poll made long
 * after completion still gets a working link. A token of another account's session is answered
 * as one that does not exist.
 */
export function sessionsRoute(
  ctx: EmulatorContext,
  requireApiKey: MiddlewareHandler<AppEnv>,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/v1/sessions/:token', requireApiKey, async (c) => {
    const fault = ctx.faults.nextPollFault();
    if (fault?.kind === 'server_error') {
      ctx.counters.pollFaults.serverErrors += 1;
      ctx.config.logger?.info(`session poll answered ${fault.status} (fault)`);
      return errorResponse(
        c,
        fault.status,
        'service_unavailable',
        'The service is temporarily unavailable. Try again later.',
      );
    }
    if (fault?.kind === 'rate_limited') {
      ctx.counters.pollFaults.rateLimited += 1;
      ctx.config.logger?.info('session poll answered 429 (fault)');
      return rateLimitedResponse(c, fault.retryAfterMs);
    }
    const token = c.req.param('token');
    const record = ctx.sessions.findOfAccount(token, c.get('accountId'));
    if (!record) return errorResponse(c, 404, 'session_not_found', 'No session has this token.');
    const imageUrl =
      record.frontImageId === null
        ? null
        : await ctx.images.issue(ctx.baseUrl(), record.frontImageId);
    return c.json(toSessionView(record, token, ctx.sessions.statusOf(record), imageUrl));
  });
  return routes;
}
