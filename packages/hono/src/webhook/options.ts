import type { Context } from 'hono';
/** Options of `verificationWebhook()`. */
export interface VerificationWebhookOptions {
  /**
   * The path webhooks are posted to, compared with `c.req.path`. Other requests pass on
   * untouched. Ignored when the middleware is mounted on a route without a wildcard
   * (`app.post(path, ...)`), where the route chose the path. Default
   * `/webhooks/verification`.
   *
   * @example
   * app.use(verificationWebhook(receiver, { path: '/hooks/faceverify' }));
   */
  path?: string;
  /**
   * Lets later handlers answer an accepted webhook: instead of returning the Receiver's
   * `200`, the middleware calls `next()` with the event in `c.get('verification')`.
   * Rejected webhooks (bad signature, too large, ...) and duplicates, which carry no event,
   * are still answered by the Receiver. Default `false`.
   *
   * @example
   * app.post('/webhooks/verification', verificationWebhook(receiver, { passThrough: true }), (c) =>
   *   c.json({ received: c.get('verification').data.external_user_id }),
   * );
   */
  passThrough?: boolean;
  /**
   * How long the whole body may take to arrive, in milliseconds. A slower body (a sender
   * trickling bytes, or one that stopped) is answered `408 body_timeout` and the connection
   * is closed, instead of holding the request until the platform's request timeout. Default `10000`.
   *
   * @example
   * app.use(verificationWebhook(receiver, { bodyTimeoutMs: 5_000 }));
   */
  bodyTimeoutMs?: number;
  /**
   * On a Receiver of several accounts (`accounts`): the account a webhook is for. Default:
   * the route parameter `account` (c.req.param('account')), so each account's callback URL is
   * `/webhooks/verification/<account id>`. Ignored by a Receiver of one account.
   *
   * @example
   * app.post('/webhooks/verification/:account', verificationWebhook(receiver));
   *
   * @example
   * verificationWebhook(receiver, { account: (c) => c.req.header('x-account') })
   */
  account?(request: Context): string | undefined;
}
