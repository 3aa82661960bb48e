import type { Receiver, ReceiverOptions } from '@faceverify/core';
import type { FastifyRequest, RouteHandlerMethod } from 'fastify';

/** Options of `fastify.register(verificationWebhook, options)`. */
export interface VerificationWebhookOptions {
  /**
   * The Receiver that checks and delivers the webhooks, or options to create one. Without
   * it the Receiver is configured from the environment (`FACEVERIFY_WEBHOOK_SECRET`, ...),
   * and a missing secret fails the registration with a `ConfigurationError`.
   *
   * @example
   * await app.register(verificationWebhook, { receiver: createReceiver() });
   */
  receiver?: Receiver | ReceiverOptions;
  /**
   * The path of the webhook route, below the prefix of the scope the plugin is registered
   * in. Other methods on it are answered `405`. Default `/webhooks/verification`.
   *
   * @example
   * await app.register(verificationWebhook, { receiver, path: '/hooks/faceverify' });
   */
  path?: string;
  /**
   * Lets `handler` answer an accepted webhook instead of the Receiver's `200`, with the
   * event on `request.verification`. Rejected webhooks (bad signature, too large, ...) and
   * duplicates, which carry no event, are still answered by the Receiver. Default `false`.
   *
   * @example
   * await app.register(verificationWebhook, {
   *   receiver,
   *   passThrough: true,
   *   handler: async (request) => ({ received: request.verification?.data.external_user_id }),
   * });
   */
  passThrough?: boolean;
  /** The route handler that answers accepted webhooks; required with `passThrough`. */
  handler?: RouteHandlerMethod;
  /**
   * How long the whole body may take to arrive, in milliseconds. A slower body (a sender
   * trickling bytes, or one that stopped) is answered `408 body_timeout` and the connection
   * is closed, instead of holding the request until the server's `requestTimeout`.
   * Default `10000`.
   *
   * @example
   * await app.register(verificationWebhook, { receiver, bodyTimeoutMs: 5_000 });
   */
  bodyTimeoutMs?: number;
  /**
   * On a Receiver of several accounts (`accounts`): the account a webhook is for. Default:
   * the route parameter `account` (request.params.account), so each account's callback URL is
   * `/webhooks/verification/<account id>`. Ignored by a Receiver of one account.
   *
   * @example
   * await app.register(verificationWebhook, { receiver, path: '/webhooks/verification/:account' });
   *
   * @example
   * await app.register(verificationWebhook, { receiver, account: (request) => request.headers['x-account'] as string })
   */
  account?(request: FastifyRequest): string | undefined;
}
