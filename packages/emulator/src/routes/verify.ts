import { Hono, type MiddlewareHandler } from 'hono';
import type { EmulatorContext } from '../emulator-context.js';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse } from '../http/error-response.js';
import { rateLimit } from '../http/rate-limit.js';
import { readJsonObject } from '../http/read-json-object.js';
import { isHttpUrl } from '../http-url.js';
import { HOSTED_PAGE_PATH } from './hosted-page.js';

/** Longest `external_user_id` accepted; the interface sets none, this keeps memory bounded. */
const MAX_EXTERNAL_USER_ID_LENGTH = 256;

/**
 * `POST /v1/verify`: opens a session for `{ external_user_id, redirect_url? }` and answers
 * `201 { token, verify_url, status: "pending", external_user_id, expires_at }`.
 */
export function verifyRoute(
  ctx: EmulatorContext,
  requireApiKey: MiddlewareHandler<AppEnv>,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(
    '/v1/verify',
    requireApiKey,
    rateLimit(
      ctx.limiters.verify,
      (c) => c.get('apiKeyId'),
      () => {
        ctx.counters.rateLimited.verify += 1;
      },
    ),
    async (c) => {
      const body = readJsonObject(c);
      if (body === null) {
        return errorResponse(c, 400, 'invalid_request', 'The body must be a JSON object.');
      }
      const externalUserId = body.external_user_id;
      if (
        typeof externalUserId !== 'string' ||
        externalUserId.length === 0 ||
        externalUserId.length > MAX_EXTERNAL_USER_ID_LENGTH
      ) {
        return errorResponse(
          c,
          400,
          'invalid_request',
          `external_user_id is required: a string of 1 to ${MAX_EXTERNAL_USER_ID_LENGTH} characters.`,
        );
      }
      const redirectUrl = body.redirect_url ?? null;
      if (redirectUrl !== null && (typeof redirectUrl !== 'string' || !isHttpUrl(redirectUrl))) {
        return errorResponse(
          c,
          400,
          'invalid_request',
          'redirect_url, when given, must be an absolute http or https URL.',
        );
      }
      const fault = ctx.faults.planVerify();
      if (fault.error && !fault.error.created) {
        return errorResponse(
          c,
          fault.error.status,
          'service_unavailable',
          'The service is temporarily unavailable. Try again later.',
        );
      }
      const { token, record } = ctx.sessions.create(
        c.get('accountId'),
        externalUserId,
        redirectUrl,
      );
      ctx.config.logger?.info(`session created for ${JSON.stringify(externalUserId)}`);
      // The session exists, whatever the starter is told: what a timeout or a 5xx hides.
      if (fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (fault.error) {
        return errorResponse(
          c,
          fault.error.status,
          'service_unavailable',
          'The service is temporarily unavailable. Try again later.',
        );
      }
      return c.json(
        {
          token,
          verify_url: `${ctx.baseUrl()}${HOSTED_PAGE_PATH}${token}`,
          status: 'pending',
          external_user_id: record.externalUserId,
          expires_at: new Date(record.expiresAt).toISOString(),
        },
        201,
      );
    },
  );
  return routes;
}
