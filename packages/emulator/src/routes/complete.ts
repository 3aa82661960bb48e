import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import type { EmulatorContext } from '../emulator-context.js';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse } from '../http/error-response.js';
import { rateLimit } from '../http/rate-limit.js';
import { readJsonObject } from '../http/read-json-object.js';
import { OUTCOMES, type Outcome } from '../sessions/session-record.js';
import { simulateResult } from '../sessions/simulate-result.js';
import { sendSessionWebhook } from '../webhook/send-session-webhook.js';

/** The body of a successful `POST /v1/sessions/:token/complete`. */
export interface CompletionResponse {
  status: 'verified' | 'failed';
  /** Where the hosted page sends the browser next, or `null` when no redirect was asked for. */
  redirect_url: string | null;
}

function isOutcome(value: unknown): value is Outcome {
  return OUTCOMES.some((outcome) => outcome === value);
}

/** The redirect address with the result attached: `redirect_url?token=<token>&status=<status>`. */
function redirectAddress(redirectUrl: string, token: string, status: string): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('token', token);
  url.searchParams.set('status', status);
  return url.toString();
}

/**
 * `POST /v1/sessions/:token/complete`: the hosted page's call, authenticated by the token
 * alone and limited per client IP. It records the result, starts the webhook without waiting
 * for it, and answers `200 { status, redirect_url }`.
 */
export function completeRoute(ctx: EmulatorContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post(
    '/v1/sessions/:token/complete',
    rateLimit(
      ctx.limiters.complete,
      // The socket's address: forwarding headers are client-controlled and would let a caller
      // pick a fresh limit for every request.
      (c) => getConnInfo(c).remote.address ?? 'unknown',
      () => {
        ctx.counters.rateLimited.complete += 1;
      },
    ),
    async (c) => {
      const body = readJsonObject(c);
      const outcome = body?.outcome;
      if (!isOutcome(outcome)) {
        return errorResponse(
          c,
          400,
          'invalid_request',
          `The body must be a JSON object with "outcome": one of ${OUTCOMES.join(', ')}.`,
        );
      }
      const token = c.req.param('token');
      const record = ctx.sessions.find(token);
      if (!record) return errorResponse(c, 404, 'session_not_found', 'No session has this token.');
      if (record.result) {
        return errorResponse(
          c,
          409,
          'session_already_completed',
          'This session is already completed: a session token can be used once.',
        );
      }
      if (ctx.sessions.statusOf(record) === 'expired') {
        return errorResponse(c, 410, 'session_expired', 'This session has expired.');
      }
      const result = simulateResult(outcome, ctx.random);
      ctx.sessions.complete(record, result);
      ctx.config.logger?.info(
        `session for ${JSON.stringify(record.externalUserId)} completed: ${outcome} → ${result.status}`,
      );
      await sendSessionWebhook(ctx, record);
      const response: CompletionResponse = {
        status: result.status,
        redirect_url:
          record.redirectUrl === null
            ? null
            : redirectAddress(record.redirectUrl, token, result.status),
      };
      return c.json(response);
    },
  );
  return routes;
}
