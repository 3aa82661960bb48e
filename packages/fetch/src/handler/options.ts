/** Options of `verificationWebhook()`. */
export interface VerificationWebhookOptions {
  /**
   * How long the whole body may take to arrive, in milliseconds. A slower body (a sender
   * trickling bytes, or one that stopped) is answered `408 body_timeout` instead of holding
   * the request until the platform's own timeout. Default `10000`.
   *
   * @example
   * export const POST = verificationWebhook(receiver, { bodyTimeoutMs: 5_000 });
   */
  bodyTimeoutMs?: number;
  /**
   * On a Receiver of several accounts (`accounts`): the account a webhook is for, read from
   * the request (a Fetch handler has no route parameters). Ignored by a Receiver of one
   * account.
   *
   * @example
   * export const POST = verificationWebhook(receiver, {
   *   account: (request) => new URL(request.url).pathname.split('/').at(-1),
   * });
   */
  account?(request: Request): string | undefined;
}
