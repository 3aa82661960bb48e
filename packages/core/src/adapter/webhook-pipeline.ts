import type { ReceiverEventName, VerificationCompletedEvent } from '../delivery/events.js';
import type { HandlerOptions } from '../delivery/handler-registry.js';
import { ConfigurationError } from '../errors.js';
import type { Receiver } from '../receiver/create-receiver.js';
import type { ReceiverOptions } from '../receiver/options.js';
import type { ReceiverResponse } from '../webhook/answers.js';
import { type HeadersLike, readHeader } from '../webhook/headers.js';
import type { WebhookRequest } from '../webhook/receive-webhook.js';
import { createBodyDeadline, type DeadlineRead } from './body-deadline.js';
import type { BodyRead } from './body-read.js';
import { deferReceiver } from './deferred-receiver.js';
import { systemTimers, type Timers } from './timers.js';

/** Where adapters listen when mounted app-wide and given no `path`. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks/verification';

/** How long a webhook body may take to arrive when `bodyTimeoutMs` is not set. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

const NO_BODY = new Uint8Array(0);

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

/**
 * One request as an adapter hands it to the pipeline: what it is, and how to do the few
 * things only the framework knows. `Result` is what the framework's middleware returns.
 */
export interface WebhookExchange<Result> {
  readonly method: string;
  readonly headers: HeadersLike;
  /** The framework's request (or context), given to the `account` option. */
  readonly request?: unknown;
  /** A parameter of the route the framework matched (the default account is `account`). */
  routeParam?(name: string): string | undefined;
  /**
   * True when the framework's router chose this request for the middleware (a route).
   * Absent: the handler is only ever mounted on the webhook's route (a Fetch handler).
   */
  isRouted?(): boolean;
  /** The request path as sent; may throw (or say `undefined`) when it cannot be parsed. */
  path?(): string | undefined;
  /**
   * Reads the exact body bytes once, never past `limit`; stops when `signal` aborts. Remove
   * any listener from `signal` when the read ends: a signal that never aborted is reused.
   */
  readBody(limit: number, signal: AbortSignal): Promise<BodyRead>;
  /** The platform's `waitUntil`, for handlers that outlive the response. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Keeps the accepted event where later middleware reads it (`req.verification`, ...).
   * Absent where nothing runs after the handler.
   */
  keep?(event: VerificationCompletedEvent): void;
  /**
   * Hands the request on to the next middleware; the pipeline then resolves `undefined`.
   * Absent where nothing runs after the handler: it then answers every request itself.
   */
  next?(): unknown;
  /** Writes the answer; `close` asks to close the connection after it (body left unread). */
  respond(answer: ReceiverResponse, close: boolean): Result | Promise<Result>;
  /**
   * Takes an error thrown while passing on or answering (a response someone else already
   * sent, ...), for frameworks that ignore rejected promises (Express 4 wants `next(error)`).
   * Without it, `handle` rejects.
   */
  fail?(error: unknown): void;
}

/**
 * The request an exchange hands the Receiver. Its account is read only by a Receiver of
 * several accounts (a router's parameters are not free), through a getter on the class: an
 * object literal with a getter costs a closure and an accessor per request, which Node 20
 * keeps until a full collection.
 */
class ExchangeRequest implements WebhookRequest {
  readonly method: string;
  readonly headers: HeadersLike;
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;

  constructor(
    private readonly exchange: WebhookExchange<unknown>,
    readonly body: WebhookRequest['body'],
    private readonly accountFor: (exchange: WebhookExchange<unknown>) => string | undefined,
  ) {
    this.method = exchange.method;
    this.headers = exchange.headers;
    this.waitUntil = exchange.waitUntil;
  }

  get account(): string | undefined {
    return this.accountFor(this.exchange);
  }
}

/** The request flow every adapter shares, from path matching to the written answer. */
export interface WebhookPipeline {
  /**
   * The Receiver, built on first use when options (or the environment) were given: reading
   * it throws the `ConfigurationError` while the configuration is missing.
   */
  readonly receiver: Receiver;
  /** Registers a handler on the Receiver now, or when it is built. */
  on(
    name: ReceiverEventName,
    handler: (...args: never[]) => unknown,
    options?: HandlerOptions,
  ): void;
  handle<Result>(exchange: WebhookExchange<Result>): Promise<Result | undefined>;
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
 * Builds the request flow of a framework adapter: it checks the options now and resolves
 * the Receiver (given, or built from options or the environment) when the first webhook
 * arrives, so that a module building the middleware can be imported without configuration
 * (`next build`, tests). A webhook arriving while the configuration is missing is answered
 * `500 receiver_not_configured` and the `ConfigurationError`, which names what to set, is
 * logged. For each request the adapter hands over a `WebhookExchange`; the pipeline decides
 * whether the request is the webhook's, reads the body within `maxBodyBytes` and
 * `bodyTimeoutMs`, lets the Receiver answer it (a body not read included), and answers or
 * passes on. Not exported: adapters reach it through `webhookMiddleware`, which has the
 * example; `timers` is for tests.
 */
export function createWebhookPipeline(
  receiverOrOptions: Receiver | ReceiverOptions | undefined,
  options: WebhookPipelineOptions<unknown> = {},
  timers: Timers = systemTimers,
): WebhookPipeline {
  const deferred = deferReceiver(receiverOrOptions);
  const { path, bodyTimeoutMs, passThrough, accountOf } = checkedOptions(options);
  const accountFor = (exchange: WebhookExchange<unknown>): string | undefined =>
    accountOf ? accountOf(exchange.request) : exchange.routeParam?.('account');
  const readWithDeadline = createBodyDeadline(bodyTimeoutMs, timers);

  function readBody(exchange: WebhookExchange<unknown>, limit: number): Promise<DeadlineRead> {
    // A declared length over the limit is refused before a byte of the body is read.
    const declared = readHeader(exchange.headers, 'content-length');
    if (declared !== undefined && Number(declared) > limit) {
      return Promise.resolve({ kind: 'too-large' });
    }
    return readWithDeadline((signal) => exchange.readBody(limit, signal));
  }

  function isForWebhook(exchange: WebhookExchange<unknown>): boolean {
    if (!exchange.isRouted || exchange.isRouted() || !exchange.path) return true;
    try {
      return exchange.path() === path;
    } catch {
      // A request line the framework cannot parse as a URL is no webhook of ours.
      return false;
    }
  }

  async function passOn(exchange: WebhookExchange<unknown>): Promise<undefined> {
    await exchange.next?.();
    return undefined;
  }

  async function handle<Result>(exchange: WebhookExchange<Result>): Promise<Result | undefined> {
    if (!exchange.fail) return flow(exchange);
    try {
      return await flow(exchange);
    } catch (error) {
      exchange.fail(error);
      return undefined;
    }
  }

  async function flow<Result>(exchange: WebhookExchange<Result>): Promise<Result | undefined> {
    if (!isForWebhook(exchange)) return passOn(exchange);
    let receiver: Receiver;
    try {
      receiver = deferred.get();
    } catch (error) {
      // No Receiver to answer: the deferred one answers, as the table says.
      return exchange.respond(deferred.notConfigured(error), exchange.method === 'POST');
    }
    let body: WebhookRequest['body'] = NO_BODY;
    // Other methods get the Receiver's 405 without their body being read.
    if (exchange.method === 'POST') {
      const read = await readBody(exchange, receiver.maxBodyBytes);
      // A body not read is the Receiver's to answer too (413, 408, 400, 500).
      body = read.kind === 'bytes' ? read.bytes : read;
    }
    const answer = await receiver.receive(new ExchangeRequest(exchange, body, accountFor));
    // Only a body read whole is delivered: its event is kept, and passed on when asked.
    if (answer.event) {
      exchange.keep?.(answer.event);
      if (passThrough && exchange.next) return passOn(exchange);
    }
    // Unless a parser spent it, the rest of a body not read is still on the connection.
    const leftOnConnection = !(body instanceof Uint8Array) && body.kind !== 'unavailable';
    return exchange.respond(answer, leftOnConnection);
  }

  // Built once per middleware, not per request (per-request-literals.test.ts).
  return {
    get receiver() {
      return deferred.get();
    },
    on: deferred.on,
    handle,
  };
}
