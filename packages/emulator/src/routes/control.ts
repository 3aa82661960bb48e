import { ConfigurationError } from '@faceverify/core';
import { type Context, Hono } from 'hono';
import type { Account } from '../accounts/accounts.js';
import { checkCallbackUrl } from '../accounts/callback-url.js';
import { checkSigningSecret } from '../accounts/signing-secret.js';
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
 * The one field a settings body holds, or the `400` that says what the body must be: a JSON
 * object with only `field`, which is `what`.
 */
function onlyField(c: Context<AppEnv>, field: string, what: string): unknown {
  const body = readJsonObject(c);
  const unknown = body === null ? [] : Object.keys(body).filter((key) => key !== field);
  if (body === null || !(field in body) || unknown.length > 0) {
    return errorResponse(
      c,
      400,
      'invalid_request',
      `The body must be a JSON object with only "${field}": ${what}.`,
    );
  }
  return body[field];
}

/** Applies a setting; one its check refuses is the `400` naming why, and changes nothing. */
function refusedSetting(c: Context<AppEnv>, apply: () => void): Response | undefined {
  try {
    apply();
    return undefined;
  } catch (error) {
    if (error instanceof ConfigurationError) {
      return errorResponse(c, 400, 'invalid_request', error.message);
    }
    throw error;
  }
}

/** How a log line names `account`: only when there are several to tell apart. */
function whoseAccount(ctx: EmulatorContext, account: Account): string {
  return ctx.accounts.list.length > 1 ? ` of account "${account.id}"` : '';
}

/**
 * The control endpoints tests and demos drive the emulator with: health, stats, faults, and
 * the callback URL and signing secret (of the first account, or of the one `?account=<id>`
 * names). They need no credentials, which is why the emulator listens on loopback by default.
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
    const refused = refusedSetting(c, () => ctx.faults.set(body));
    if (refused) return refused;
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
    const callbackUrl = onlyField(c, 'callbackUrl', 'a URL, or null for none');
    if (callbackUrl instanceof Response) return callbackUrl;
    if (callbackUrl !== null && typeof callbackUrl !== 'string') {
      return errorResponse(c, 400, 'invalid_request', 'callbackUrl must be a string or null.');
    }
    const refused = refusedSetting(c, () => {
      account.callbackUrl = checkCallbackUrl(callbackUrl);
    });
    if (refused) return refused;
    ctx.config.logger?.info(
      `callback URL${whoseAccount(ctx, account)} set to ${account.callbackUrl ?? '(none)'}`,
    );
    return c.json({ callbackUrl: account.callbackUrl });
  });

  // The service's Settings switching to a new signing secret: the step of a rotation that
  // an app must survive. The answer and the log never repeat the secret.
  routes.put('/signing-secret', async (c) => {
    const account = accountOf(ctx, c);
    if (!account) return accountNotFound(ctx, c);
    const secret = onlyField(c, 'signingSecret', 'the new secret, a string');
    if (secret instanceof Response) return secret;
    const refused = refusedSetting(c, () => {
      account.signingSecret = checkSigningSecret(secret);
    });
    if (refused) return refused;
    ctx.config.logger?.info(
      `signing secret${whoseAccount(ctx, account)} switched: webhooks from now on are signed with the new one`,
    );
    return c.json({ account: account.id, switched: true });
  });

  return routes;
}
