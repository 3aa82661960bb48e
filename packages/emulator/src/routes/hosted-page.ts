import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { EmulatorContext } from '../emulator-context.js';
import { type HostedPageView, renderHostedPage } from '../hosted-page/render-hosted-page.js';
import type { AppEnv } from '../http/app-env.js';

/** Path of the hosted page; the session token follows. */
export const HOSTED_PAGE_PATH = '/verify/';

function statusOf(view: HostedPageView): 200 | 404 | 410 {
  if (view.kind === 'not_found') return 404;
  if (view.kind === 'expired') return 410;
  return 200;
}

function viewOf(ctx: EmulatorContext, token: string): HostedPageView {
  const record = ctx.sessions.find(token);
  if (!record) return { kind: 'not_found' };
  if (record.result) {
    return {
      kind: 'completed',
      externalUserId: record.externalUserId,
      status: record.result.status,
    };
  }
  if (ctx.sessions.statusOf(record) === 'expired') return { kind: 'expired' };
  return {
    kind: 'pending',
    externalUserId: record.externalUserId,
    expiresAt: record.expiresAt,
    completeUrl: `${ctx.baseUrl()}/v1/sessions/${encodeURIComponent(token)}/complete`,
  };
}

/**
 * `GET /verify/:token`: the page a person opens from `verify_url`. Its headers keep the token
 * in its address from leaking: no `Referer` to the page it redirects to, no caching, no
 * framing.
 */
export function hostedPageRoute(ctx: EmulatorContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(`${HOSTED_PAGE_PATH}:token`, (c) => {
    const view = viewOf(ctx, c.req.param('token'));
    const nonce = randomBytes(16).toString('base64');
    return c.html(renderHostedPage(view, nonce), statusOf(view), {
      'Content-Security-Policy': [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "connect-src 'self'",
        "img-src 'self' data:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    });
  });
  return routes;
}
