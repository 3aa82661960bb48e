import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverOptions } from '../receiver/options.js';
import type { BodyRead } from './body-read.js';
import {
  createWebhookPipeline,
  type WebhookExchange,
  type WebhookPipelineOptions,
} from './webhook-pipeline.js';
import { type WithReceiver, withReceiver } from './with-receiver.js';

/** How an adapter reads the exact body of its request type; see `WebhookExchange.readBody`. */
export type BodyReader<Request> = (
  request: Request,
  limit: number,
  signal: AbortSignal,
) => Promise<BodyRead>;

/**
 * An adapter's `verificationWebhook(receiverOrOptions?, options?)`: it returns the
 * framework's middleware carrying its Receiver and a chainable `.on()`.
 */
export type VerificationWebhookFactory<Middleware, Options> = (
  receiverOrOptions?: Receiver | ReceiverOptions,
  options?: Options,
) => Middleware;

/** Any framework's middleware function: its parameters are whatever the framework passes. */
// biome-ignore lint/suspicious/noExplicitAny: see above; `unknown[]` would reject every framework's signature.
export type MiddlewareFunction = (...args: any[]) => unknown;

/**
 * Builds an adapter's `verificationWebhook()` from one function: how a call of the
 * framework's middleware becomes a `WebhookExchange` (`self` is the middleware, for
 * frameworks whose router is asked whether it chose it). Every call of the factory checks
 * its options at once, and builds its Receiver (from options or the environment) when the
 * first webhook arrives, so a module that builds the middleware imports without
 * configuration; a webhook arriving while the configuration is missing is answered
 * `500 receiver_not_configured`, and the log names what to set. Every request then runs
 * through the pipeline all adapters share: whether the request is the webhook's, the body
 * read within `maxBodyBytes` and `bodyTimeoutMs`, the Receiver's answer, written back or
 * passed on. For adapter authors.
 *
 * @example
 * export const verificationWebhook = webhookMiddleware<WithReceiver<Middleware>>(
 *   (self, req, res, next) => ({
 *     method: req.method,
 *     headers: req.headers,
 *     isRouted: () => false,
 *     path: () => req.url,
 *     readBody: (limit, signal) => readRawBody(req, limit, signal), // rawBodyReader(getRawBody)
 *     keep: (event) => Object.assign(req, { verification: event }),
 *     next,
 *     respond: (answer, close) => writeNodeAnswer(res, answer, close),
 *   }),
 * );
 */
export function webhookMiddleware<
  Middleware extends WithReceiver<MiddlewareFunction>,
  Options extends WebhookPipelineOptions = WebhookPipelineOptions,
>(
  exchangeOf: (
    self: Middleware,
    ...args: Parameters<Middleware>
  ) => WebhookExchange<Awaited<ReturnType<Middleware>>>,
): VerificationWebhookFactory<Middleware, Options> {
  return (receiverOrOptions, options) => {
    const pipeline = createWebhookPipeline(receiverOrOptions, options);
    const handle = (...args: Parameters<Middleware>) =>
      pipeline.handle(exchangeOf(middleware, ...args));
    const middleware = withReceiver(handle, pipeline) as unknown as Middleware;
    return middleware;
  };
}
