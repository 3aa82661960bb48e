import { createServer, type Server } from 'node:http';
import { isIPv6 } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import {
  accountHandle,
  type EmulatorAccount,
  type EmulatorAccountInfo,
} from './accounts/account-handle.js';
import { createApp } from './app.js';
import { createEmulatorContext } from './emulator-context.js';
import type { FaultSettings } from './faults/fault-settings.js';
import { ownHosts } from './http/own-hosts.js';
import { type EmulatorOptions, isLoopbackHost, resolveOptions } from './options.js';
import { requestJson } from './request-json.js';
import type { CompletionResponse } from './routes/complete.js';
import type { Outcome } from './sessions/session-record.js';
import { dumpToPlainData } from './state-dump.js';
import { type EmulatorStats, snapshotStats } from './stats.js';
import { sendSessionWebhook } from './webhook/send-session-webhook.js';

/** What `POST /v1/verify` answers: the new session. */
export interface CreatedSession {
  token: string;
  verify_url: string;
  status: 'pending';
  external_user_id: string;
  expires_at: string;
}

/** Parameters of {@link Emulator.createSession}. */
export interface CreateSessionParams {
  externalUserId: string;
  /** Where the hosted page sends the browser once the session is completed. */
  redirectUrl?: string | undefined;
  /**
   * The API key to call with, which makes the session its account's; default the first
   * account's first key.
   */
  apiKey?: string | undefined;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL of the service, without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** The first account's first API key. */
  readonly apiKey: string;
  /** The first account's API keys: with one account, every accepted key. */
  readonly apiKeys: readonly string[];
  /** The secret the first account's webhooks are signed with now. */
  readonly signingSecret: string;
  /**
   * The token the `/__emulator` control endpoints require (`Authorization: Bearer <token>`),
   * or `null` when they need none (on loopback, unless the `controlToken` option was given).
   */
  readonly controlToken: string | null;
  /** Where the first account's webhooks go now, or `null`. */
  readonly callbackUrl: string | null;
  /**
   * Sends the first account's webhooks of completions from now on to `url`; `null` sends none.
   * @throws ConfigurationError when `url` is not an absolute http(s) URL.
   */
  setCallbackUrl(url: string | null): void;
  /**
   * Signs the first account's webhooks with `secret` from now on, as the service does once
   * its Settings switch to a new secret: the way to rehearse a rotation (docs/security.md).
   * `account(id).setSigningSecret` does it for another account.
   * @throws ConfigurationError when `secret` is empty.
   *
   * @example
   * // The app lists both (FACEVERIFY_WEBHOOK_SECRET=whsec_new,whsec_old), then:
   * emulator.setSigningSecret('whsec_new');
   */
  setSigningSecret(secret: string): void;
  /**
   * Every account, in the order given: those of the `accounts` option, or the one account
   * `default` of the single-account options. Each shows the callback URL in force now.
   */
  readonly accounts: readonly EmulatorAccountInfo[];
  /**
   * The account `id`: its credentials, and where its webhooks go.
   * @throws Error naming the accounts there are, when none has this id.
   *
   * @example
   * const emulator = await startEmulator({ accounts: [{ id: 'acme' }, { id: 'globex' }] });
   * const globex = emulator.account('globex');
   * globex.setCallbackUrl('http://127.0.0.1:3001/webhooks/verification');
   * await emulator.createSession({ externalUserId: 'user-7', apiKey: globex.apiKey });
   */
  account(id: string): EmulatorAccount;
  /**
   * Replaces every fault setting; `setFaults({})` turns all faults off.
   * @throws ConfigurationError naming an invalid setting.
   */
  setFaults(faults: FaultSettings): void;
  /** The faults now on, with what is left of their `next` counts. */
  faults(): FaultSettings;
  /** Webhook, fault and rate-limit counts since the start, and sessions by their state now. */
  stats(): EmulatorStats;
  /** Calls `POST /v1/verify` over HTTP, as an integrator's backend would. */
  createSession(params: CreateSessionParams): Promise<CreatedSession>;
  /**
   * Completes a session with `outcome` by making the very HTTP call the hosted page makes,
   * `POST /v1/sessions/:token/complete`, so it is subject to the same checks and limits.
   * @throws EmulatorRequestError when the call is refused (for instance `409` on reuse).
   */
  completeSession(token: string, outcome: Outcome): Promise<CompletionResponse>;
  /**
   * Sends a completed session's webhook again now, as the inspector's resend does: newly
   * serialized and signed, to its account's callback URL, through the faults in force. With
   * `dropWebhooks: { next: 1 }` on its completion, it is the late webhook of a session whose
   * user has since started and passed another (see "Rehearse a superseded result").
   * @throws Error when the token names no session, or one not completed.
   *
   * @example
   * emulator.setFaults({ dropWebhooks: { next: 1 } });
   * await emulator.completeSession(first.token, 'failed'); // its webhook is lost on the way
   * await emulator.completeSession(second.token, 'verified');
   * await emulator.resendWebhook(first.token); // and arrives late
   */
  resendWebhook(token: string): Promise<void>;
  /** Resolves once every webhook delivery started so far has ended, delayed ones included. */
  webhooksSettled(): Promise<void>;
  /** Everything the emulator holds in memory, as plain JSON data, for debugging and audits. */
  dumpState(): unknown;
  /** Stops listening, closes open connections and abandons pending webhooks. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** How `host` appears in a URL; a wildcard host is reached through `wildcardAs`. */
function urlHost(host: string, wildcardAs: string): string {
  if (host === '0.0.0.0' || host === '::') return wildcardAs;
  return isIPv6(host) ? `[${host}]` : host;
}

/**
 * Starts a local emulator of the face verification service: the `/v1` API, the hosted
 * verification page, signed webhooks, rate limits, and fault injection.
 *
 * @throws ConfigurationError for an invalid option, or the listen error (such as
 * `EADDRINUSE`) when the port cannot be used.
 *
 * @example
 * import { startEmulator } from '@faceverify/emulator';
 *
 * const emulator = await startEmulator({ callbackUrl: 'http://127.0.0.1:3000/webhooks/verification' });
 * const session = await emulator.createSession({ externalUserId: 'user-42' });
 * await emulator.completeSession(session.token, 'verified'); // the webhook is on its way
 * await emulator.close();
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const config = resolveOptions(options);
  let baseUrl = '';
  const ctx = createEmulatorContext(config, () => baseUrl);
  let allowedHosts: ReadonlySet<string> = new Set();
  const app = createApp(ctx, () => allowedHosts);
  // Hono's Node adapter would otherwise replace the global Request and Response classes.
  const server = createServer(getRequestListener(app.fetch, { overrideGlobalObjects: false }));
  const port = await listen(server, config.port, config.host);
  allowedHosts = ownHosts(config.host, port, config.publicUrl, config.allowedHosts);
  baseUrl = config.publicUrl ?? `http://${urlHost(config.host, 'localhost')}:${port}`;
  if (!isLoopbackHost(config.host)) {
    config.logger?.warn(
      `Warning: the emulator listens on ${config.host}, beyond this machine. Anyone who can ` +
        'reach it can create and complete sessions with its API keys; its /__emulator control ' +
        'endpoints require the control token (Authorization: Bearer <token>).',
    );
  }
  // The helpers below call the server directly, even when it is announced through a proxy.
  const directUrl = `http://${urlHost(config.host, '127.0.0.1')}:${port}/`;
  const url = (path: string) => new URL(path, directUrl);
  let closing: Promise<void> | undefined;
  // The single-account members stand for the first account, as they did before accounts.
  const first = accountHandle(ctx.accounts.first);

  return {
    url: baseUrl,
    port,
    apiKey: first.apiKey,
    apiKeys: first.apiKeys,
    get signingSecret() {
      return first.signingSecret;
    },
    controlToken: config.controlToken,
    get callbackUrl() {
      return first.callbackUrl;
    },
    setCallbackUrl: (callbackUrl) => first.setCallbackUrl(callbackUrl),
    setSigningSecret: (secret) => first.setSigningSecret(secret),
    accounts: Object.freeze(ctx.accounts.list.map(accountHandle)),
    account: (id) => accountHandle(ctx.accounts.get(id)),
    setFaults(faults) {
      ctx.faults.set(faults);
    },
    faults: () => ctx.faults.current(),
    stats: () => snapshotStats(ctx.counters, ctx.sessions.countByStatus()),
    async createSession({ externalUserId, redirectUrl, apiKey }) {
      const body = await requestJson(
        'POST',
        url('v1/verify'),
        { authorization: `Bearer ${apiKey ?? first.apiKey}` },
        {
          external_user_id: externalUserId,
          ...(redirectUrl === undefined ? {} : { redirect_url: redirectUrl }),
        },
      );
      return body as CreatedSession;
    },
    async completeSession(token, outcome) {
      const path = `v1/sessions/${encodeURIComponent(token)}/complete`;
      return (await requestJson('POST', url(path), {}, { outcome })) as CompletionResponse;
    },
    async resendWebhook(token) {
      const record = ctx.sessions.find(token);
      if (!record?.result) {
        throw new Error(
          record
            ? 'Only a completed session has a webhook to resend: complete it first.'
            : 'No session has this token.',
        );
      }
      await sendSessionWebhook(ctx, record);
    },
    webhooksSettled: () => ctx.webhooks.settled(),
    dumpState: () => dumpToPlainData(ctx),
    close() {
      closing ??= new Promise<void>((resolve) => {
        ctx.webhooks.close();
        server.close(() => resolve());
        // Keep-alive connections (browsers, fetch) would otherwise hold the server open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
