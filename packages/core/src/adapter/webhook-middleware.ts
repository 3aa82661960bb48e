import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverOptions } from '../receiver/options.js';
import { WebhookPipeline, type WebhookPipelineOptions } from './webhook-pipeline.js';
import type { WebhookPlatform } from './webhook-platform.js';
import { type WithReceiver, withReceiver } from './with-receiver.js';

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
 * What an adapter's middleware calls for each request, with the framework's own objects
 * (see `WebhookPlatform`): it resolves what the middleware resolves to.
 */
export interface WebhookHandler<Request, Response, Next, Result> {
  /**
   * Runs one request through the pipeline: passed on when it is not the webhook's, else its
   * body read, the Receiver's answer written (or the accepted event passed on).
   */
  handle(request: Request, response: Response, next: Next): Promise<Result | undefined>;
}

/**
 * Builds an adapter's `verificationWebhook()` from its platform, described once (how to read
 * the framework's request and answer it), and `middlewareOf`, which gives the framework's
 * middleware function for a handler: it hands the framework's arguments to
 * `handler.handle(request, response, next)`. Every call of the factory checks its options at
 * once, and builds its Receiver (from options or the environment) when the first webhook
 * arrives, so a module that builds the middleware imports without configuration; a webhook
 * arriving while the configuration is missing is answered `500 receiver_not_configured`, and
 * the log names what to set. Every request then runs through the pipeline all adapters share:
 * whether the request is the webhook's, the body read within `maxBodyBytes` and
 * `bodyTimeoutMs`, the Receiver's answer, written back or passed on. For adapter authors.
 *
 * @example
 * const platform: WebhookPlatform<Request, Response, NextFunction> = {
 *   method: (req) => req.method,
 *   headers: (req) => req.headers,
 *   readBody: rawBodyReader(getRawBody), // getRawBody: the raw-body package's
 *   next: (_req, _res, next) => next(),
 *   respond: writeNodeAnswer,
 * };
 * export const verificationWebhook = webhookMiddleware(
 *   platform,
 *   (webhook) => webhook.handle.bind(webhook),
 * );
 */
export function webhookMiddleware<
  Request,
  Response,
  Next,
  Result,
  Middleware extends MiddlewareFunction,
>(
  platform: WebhookPlatform<Request, Response, Next, Result>,
  middlewareOf: (handler: WebhookHandler<Request, Response, Next, Result>) => Middleware,
): VerificationWebhookFactory<WithReceiver<Middleware>, WebhookPipelineOptions<Request>> {
  return (receiverOrOptions, options) => {
    const pipeline = new WebhookPipeline(platform, receiverOrOptions, options);
    const middleware = withReceiver(middlewareOf(pipeline), pipeline);
    // A framework's router is asked whether it chose this middleware for a request.
    pipeline.middleware = middleware;
    return middleware;
  };
}
