import { ConfigurationError } from '../base/errors.js';
import type { ReceiverEventName } from '../delivery/events.js';
import type { HandlerOptions } from '../delivery/handler-registry.js';
import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverOptions } from '../receiver/options.js';
import { type HeadersLike, readHeader } from '../receiver/webhook/headers.js';
import type { WebhookRequest } from '../receiver/webhook/receive-webhook.js';
import { createBodyDeadline } from './body-deadline.js';
import type { BodyRead } from './body-read.js';
import { type DeferredReceiver, deferReceiver } from './deferred-receiver.js';
import { systemTimers, type Timers } from './timers.js';
import type { WebhookPlatform } from './webhook-platform.js';

/** Where adapters listen when mounted app-wide and given no `path`. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks/verification';

/** How long a webhook body may take to arrive when `bodyTimeoutMs` is not set. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

const NO_BODY = new Uint8Array(0);
const TOO_LARGE: BodyRead = { kind: 'too-large' };

/** The options every adapter's `verificationWebhook()` shares. */
export interface WebhookPipelineOptions<Request = never> {
  /** The path webhooks are posted to; other requests pass on. Default `/webhooks/verification`. */
  path?: string;
  /** Hand an accepted webhook to later middleware instead of answering it. Default `false`. */
  passThrough?: boolean;
  /**
   * How long the whole body may take to arrive, in milliseconds. A slower body is answered
   * `408 body_timeout` and the connection is closed, so a sender that trickles bytes cannot
   * hold the request (and its buffer) for the server's request timeout. Default `10000`.
   */
  bodyTimeoutMs?: number;
  /**
   * On a Receiver of several accounts: the account a request is for. Default: the route
   * parameter `account` (`/webhooks/verification/:account`), where the framework has routes.
   */
  account?(request: Request): string | undefined;
}

function checkedOptions(options: WebhookPipelineOptions<unknown>) {
  const path = options.path ?? DEFAULT_WEBHOOK_PATH;
  if (!path.startsWith('/')) {
    throw new ConfigurationError(
      `verificationWebhook(): "path" must start with "/", got ${JSON.stringify(path)}.`,
    );
  }
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  if (!Number.isFinite(bodyTimeoutMs) || bodyTimeoutMs <= 0) {
    throw new ConfigurationError(
      `verificationWebhook(): "bodyTimeoutMs" must be a positive number of milliseconds, got ${String(bodyTimeoutMs)}.`,
    );
  }
  if (options.account !== undefined && typeof options.account !== 'function') {
    throw new ConfigurationError(
      'verificationWebhook(): "account" must be a function of the request that returns its account id.',
    );
  }
  return {
    path,
    bodyTimeoutMs,
    passThrough: options.passThrough === true,
    accountOf: options.account,
  };
}

/**
 * The request the pipeline hands the Receiver. Its account is read only by a Receiver of
 * several accounts (a router's parameters are not free), through a getter on the class: an
 * object literal with a getter costs a closure and an accessor per request, which Node 20
 * keeps until a full collection.
 */
class PlatformRequest<Request, Response, Next, Result> implements WebhookRequest {
  // Declared and assigned, not class fields: fields run an initializer for every request.
  declare private readonly pipeline: WebhookPipeline<Request, Response, Next, Result>;
  declare private readonly request: Request;
  declare private readonly response: Response;
  declare readonly method: string;
  declare readonly headers: HeadersLike;
  declare readonly body: WebhookRequest['body'];

  constructor(
    pipeline: WebhookPipeline<Request, Response, Next, Result>,
    request: Request,
    response: Response,
    method: string,
    headers: HeadersLike,
    body: WebhookRequest['body'],
  ) {
    this.pipeline = pipeline;
    this.request = request;
    this.response = response;
    this.method = method;
    this.headers = headers;
    this.body = body;
  }

  get account(): string | undefined {
    const { accountOf, platform } = this.pipeline;
    return accountOf ? accountOf(this.request) : platform.account?.(this.request);
  }

  waitUntil(promise: Promise<unknown>): void {
    this.pipeline.platform.waitUntil?.(this.request, this.response, promise);
  }
}

/**
 * The request flow of one framework adapter's middleware, from path matching to the written
 * answer, on the framework's own request and response (`handle`). It checks the options when
 * built and resolves the Receiver (given, or built from options or the environment) when the
 * first webhook arrives, so that a module building the middleware can be imported without
 * configuration (`next build`, tests). A webhook arriving while the configuration is missing
 * is answered `500 receiver_not_configured` and the `ConfigurationError`, which names what to
 * set, is logged. Built once per middleware, not per request; not exported: adapters reach it
 * through `webhookMiddleware`, which has the example; `timers` is for tests.
 */
export class WebhookPipeline<Request, Response = Request, Next = undefined, Result = unknown> {
  /** The middleware running this pipeline, which a framework's router is asked about. */
  middleware: unknown;
  readonly accountOf: ((request: Request) => string | undefined) | undefined;
  private readonly deferred: DeferredReceiver;
  /** The Receiver once there is one: given, or built by the first webhook. */
  private resolved: Receiver | undefined;
  private readonly path: string;
  private readonly passThrough: boolean;
  private readonly readBody: ReturnType<typeof createBodyDeadline>;

  constructor(
    readonly platform: WebhookPlatform<Request, Response, Next, Result>,
    receiverOrOptions: Receiver | ReceiverOptions | undefined,
    options: WebhookPipelineOptions<Request> = {},
    timers: Timers = systemTimers,
  ) {
    this.deferred = deferReceiver(receiverOrOptions);
    this.resolved = this.deferred.isResolved() ? this.deferred.get() : undefined;
    const { path, bodyTimeoutMs, passThrough, accountOf } = checkedOptions(
      options as WebhookPipelineOptions<unknown>,
    );
    this.path = path;
    this.passThrough = passThrough;
    this.accountOf = accountOf;
    this.readBody = createBodyDeadline(bodyTimeoutMs, timers);
  }

  /**
   * The Receiver, built on first use when options (or the environment) were given: reading
   * it throws the `ConfigurationError` while the configuration is missing.
   */
  get receiver(): Receiver {
    return this.deferred.get();
  }

  /** Registers a handler on the Receiver now, or when it is built. */
  on(
    name: ReceiverEventName,
    handler: (...args: never[]) => unknown,
    options?: HandlerOptions,
  ): void {
    this.deferred.on(name, handler, options);
  }

  /**
   * One request: passed on when it is not the webhook's; else its body read within
   * `maxBodyBytes` and `bodyTimeoutMs` (POST only), the Receiver's answer (a body not read
   * included), and that answer written, or the accepted event passed on. Resolves what the
   * framework's middleware resolves to: the written answer, or what `next` returned.
   */
  async handle(request: Request, response: Response, next: Next): Promise<Result | undefined> {
    const { platform } = this;
    try {
      // The webhook's path, or a route the framework's router chose for this middleware. The
      // path is compared first: it is what a webhook has, and cheaper to read than the
      // router's match (Hono lists every matched route to name one).
      if (platform.isRouted && platform.path) {
        let onPath = false;
        try {
          onPath = platform.path(request) === this.path;
        } catch {
          // A request line the framework cannot parse as a URL is no webhook of ours, unless
          // a route chose it.
        }
        if (!onPath && !platform.isRouted(request, this.middleware)) {
          return this.passOn(request, response, next);
        }
      }
      const method = platform.method(request);
      let receiver = this.resolved;
      if (!receiver) {
        try {
          receiver = this.resolved = this.deferred.get();
        } catch (error) {
          // No Receiver to answer: the deferred one answers, as the table says.
          const answer = this.deferred.notConfigured(error);
          return platform.respond(response, answer, method === 'POST');
        }
      }
      const headers = platform.headers(request, response);
      let body: WebhookRequest['body'] = NO_BODY;
      // Other methods get the Receiver's 405 without their body being read.
      if (method === 'POST') {
        const limit = receiver.maxBodyBytes;
        const declared = readHeader(headers, 'content-length');
        // A declared length over the limit is refused before a byte of the body is read.
        const read =
          declared !== undefined && Number(declared) > limit
            ? TOO_LARGE
            : this.readBody(platform, request, response, limit, declared);
        // A body not read is the Receiver's to answer too (413, 408, 400, 500).
        const settled = read instanceof Promise ? await read : read;
        body = settled.kind === 'bytes' ? settled.bytes : settled;
      }
      const answer = await receiver.receive(
        new PlatformRequest(this, request, response, method, headers, body),
      );
      // Only a body read whole is delivered: its event is kept, and passed on when asked.
      if (answer.event) {
        platform.keep?.(request, answer.event);
        if (this.passThrough && platform.next) return this.passOn(request, response, next);
      }
      // Unless a parser spent it, the rest of a body not read is still on the connection.
      const leftOnConnection = !(body instanceof Uint8Array) && body.kind !== 'unavailable';
      return platform.respond(response, answer, leftOnConnection);
    } catch (error) {
      if (!platform.fail) throw error;
      platform.fail(error, next);
      return undefined;
    }
  }

  /** What the middleware resolves to when it passes the request on: what `next` returned. */
  private passOn(
    request: Request,
    response: Response,
    next: Next,
  ): Result | Promise<Result> | undefined {
    return this.platform.next?.(request, response, next) as Result | Promise<Result> | undefined;
  }
}
