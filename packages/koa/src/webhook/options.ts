import type { Context } from 'koa';
/** Options of `verificationWebhook()`. */
export interface VerificationWebhookOptions {
  /**
   * The path webhooks are posted to, compared with `ctx.path`. Other requests pass on
   * untouched. Ignored on a @koa/router route, where the route chose the path. Default
   * `/webhooks/verification`.
   *
   * @example
   * app.use(verificationWebhook(receiver, { path: '/hooks/faceverify' }));
   */
  path?: string;
  /**
   * Lets later middleware answer an accepted webhook: instead of writing the Receiver's
   * `200`, the middleware calls `next()` with the event on `ctx.state.verification`.
   * Rejected webhooks (bad signature, too large, ...) and duplicates, which carry no event,
   * are still answered by the Receiver. Body parsers behind it leave the spent body
   * alone: read the payload from `ctx.state.verification.data`. Default `false`.
   *
   * @example
   * router.post('/webhooks/verification', verificationWebhook(receiver, { passThrough: true }), (ctx) => {
   *   ctx.body = { received: ctx.state.verification.data.external_user_id };
   * });
   */
  passThrough?: boolean;
  /**
   * How long the whole body may take to arrive, in milliseconds. A slower body (a sender
   * trickling bytes, or one that stopped) is answered `408 body_timeout` and the connection
   * is closed, instead of holding the request until Node's `requestTimeout`. Default `10000`.
   *
   * @example
   * app.use(verificationWebhook(receiver, { bodyTimeoutMs: 5_000 }));
   */
  bodyTimeoutMs?: number;
  /**
   * On a Receiver of several accounts (`accounts`): the account a webhook is for. Default:
   * the route parameter `account` (ctx.params.account (@koa/router)), so each account's callback URL is
   * `/webhooks/verification/<account id>`. Ignored by a Receiver of one account.
   *
   * @example
   * router.post('/webhooks/verification/:account', verificationWebhook(receiver));
   *
   * @example
   * verificationWebhook(receiver, { account: (ctx) => ctx.get('x-account') })
   */
  account?(request: Context): string | undefined;
}
