import { ConfigurationError } from '@faceverify/core';
import { type Context, Hono } from 'hono';
import type { Account } from '../accounts/accounts.js';
import { checkCallbackUrl } from '../accounts/callback-url.js';
import type { EmulatorContext } from '../emulator-context.js';
import type { AppEnv } from '../http/app-env.js';
import { errorResponse } from '../http/error-response.js';
import { readJsonObject } from '../http/read-json-object.js';
import { snapshotStats } from '../stats.js';

/** Prefix of the control endpoints, kept apart from the service's own `/v1` paths. */
export const CONTROL_PREFIX = '/__emulator';

/** The account a settings request is about: the one `?account=<id>` names, else the first. */
function accountOf(ctx: EmulatorContext, c: Context<AppEnv>): Account | undefined {
  const id = c.req.query('account');
  return id === undefined ? ctx.accounts.first : ctx.accounts.find(id);
}

function accountNotFound(ctx: EmulatorContext, c: Context<AppEnv>): Response {
  const ids = ctx.accounts.list.map((account) => account.id).join(', ');
  return errorResponse(
    c,
    404,
    'account_not_found',
    `No account has this id; the accounts are ${ids}.`,
  );
}

/**
 * The control endpoints tests and demos drive the emulator with: health, stats, faults and
 * the callback URL (of the first account, or of the one `?account=<id>` names). They need no
 * credentials, which is why the emulator listens on loopback by default.
 */
export function controlRoute(ctx: EmulatorContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>().basePath(CONTROL_PREFIX);

  routes.get('/health', (c) => c.json({ ok: true }));

  routes.get('/stats', (c) => c.json(snapshotStats(ctx.counters, ctx.sessions.countByStatus())));

  routes.get('/faults', (c) => c.json(ctx.faults.current()));

  routes.put('/faults', async (c) => {
    const body = readJsonObject(c);
    if (body === null) {
      return errorResponse(c, 400, 'invalid_request', 'The body must be a JSON object.');
    }
    try {
      ctx.faults.set(body);
    } catch (error) {
      if (error instanceof ConfigurationError) {
        return errorResponse(c, 400, 'invalid_request', error.message);
      }
      throw error;
    }
    ctx.config.logger?.info(`faults set: ${JSON.stringify(ctx.faults.current())}`);
    return c.json(ctx.faults.current());
  });

  routes.get('/settings', (c) => {
    const account = accountOf(ctx, c);
    if (!account) return accountNotFound(ctx, c);
    return c.json({ callbackUrl: account.callbackUrl });
  });

  routes.put('/settings', async (c) => {
    const account = accountOf(ctx, c);
    if (!account) return accountNotFound(ctx, c);
    const body = readJsonObject(c);
    const unknown = body === null ? [] : Object.keys(body).filter((key) => key !== 'callbackUrl');
    if (body === null || !('callbackUrl' in body) || unknown.length > 0) {
      return errorResponse(
        c,
        400,
        'invalid_request',
        'The body must be a JSON object with only "callbackUrl": a URL, or null for none.',
      );
    }
    const { callbackUrl } = body;
    if (callbackUrl !== null && typeof callbackUrl !== 'string') {
      return errorResponse(c, 400, 'invalid_request', 'callbackUrl must be a string or null.');
    }
    try {
      account.callbackUrl = checkCallbackUrl(callbackUrl);
    } catch (error) {
      if (error instanceof ConfigurationError) {
        return errorResponse(c, 400, 'invalid_request', error.message);
      }
      throw error;
    }
    const whose = ctx.accounts.list.length > 1 ? ` of account "${account.id}"` : '';
    ctx.config.logger?.info(`callback URL${whose} set to ${account.callbackUrl ?? '(none)'}`);
    return c.json({ callbackUrl: account.callbackUrl });
  });

  return routes;
}
