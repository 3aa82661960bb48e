import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { EmulatorContext } from '../emulator-context.js';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse } from '../http/error-response.js';
import { renderInspectorPage } from '../inspector/render-inspector-page.js';
import { sessionIdOf } from '../sessions/session-store.js';
import { sendSessionWebhook } from '../webhook/send-session-webhook.js';
import { CONTROL_PREFIX } from './control.js';

/** The inspector page's own path: it is served without the control token (it holds no data). */
export const INSPECTOR_PATH: string = `${CONTROL_PREFIX}/inspector`;

/**
 * The inspector: a page (`/__emulator/inspector`) and the control endpoints it reads, the
 * sessions with their webhook attempts and a resend of a session's webhook.
 */
export function inspectorRoute(ctx: EmulatorContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get(INSPECTOR_PATH, (c) => {
    const nonce = randomBytes(16).toString('base64');
    return c.html(renderInspectorPage(nonce), 200, {
      'Content-Security-Policy': [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
      'Cache-Control': 'no-store',
    });
  });

  routes.get(`${CONTROL_PREFIX}/sessions`, (c) =>
    c.json({
      callbackUrl: ctx.accounts.first.callbackUrl,
      accounts: ctx.accounts.list.map(({ id, callbackUrl }) => ({ id, callbackUrl })),
      faults: ctx.faults.current(),
      sessions: ctx.sessions.list().map((record) => {
        const id = sessionIdOf(record);
        return {
          id,
          account: record.accountId,
          externalUserId: record.externalUserId,
          status: ctx.sessions.statusOf(record),
          createdAt: record.createdAt,
          completedAt: record.completedAt,
          attempts: ctx.deliveries.of(id),
        };
      }),
    }),
  );

  routes.post(`${CONTROL_PREFIX}/sessions/:id/resend`, async (c) => {
    const id = c.req.param('id');
    const record = ctx.sessions.findById(id);
    if (!record) return errorResponse(c, 404, 'session_not_found', 'No session has this id.');
    if (!record.result) {
      return errorResponse(
        c,
        409,
        'session_not_completed',
        'Only a completed session has a webhook to resend.',
      );
    }
    ctx.config.logger?.info(`webhook for ${JSON.stringify(record.externalUserId)} resent`);
    await sendSessionWebhook(ctx, record);
    return c.json({ resent: true }, 202);
  });

  return routes;
}
