import type { Receiver, ReceiverEventMap, ReceiverEventName } from '@faceverify/core';

/** Where `verificationWebhook()` listens when it is given no `path`. */
export const DEFAULT_WEBHOOK_PATH = '/webhooks/verification';

/** A route of the app itself: requests to it must pass the webhook middleware untouched. */
export const OWN_ROUTE_PATH = '/app/own-route';
/** What the app's own route answers (status 200, text) for GET and POST. */
export const OWN_ROUTE_TEXT = 'own route';

/**
 * `use`: app-level middleware (`app.use(verificationWebhook(...))`) that checks the path.
 * `route`: mounted on a route of the framework's router, which already chose the path.
 */
export type MountStyle = 'use' | 'route';

/**
 * `parser-first`: the framework's usual JSON body parser runs before the webhook
 * middleware, as users often mount it (Express `express.json()`, Koa `@koa/bodyparser`,
 * Hono `c.req.json()` in an earlier middleware; Fastify, whose parsers are scoped to
 * routes, a `preParsing` hook that reads the body).
 * `parser-keeping-bytes`: the same parser set up so the exact bytes survive
 * (`express.json({ verify: captureRawBody })`, `@koa/bodyparser`'s `rawBody`, Hono
 * `c.req.arrayBuffer()`, Fastify `fastify-raw-body` registered app-wide).
 */
export type BodyParserSetup = 'none' | 'parser-first' | 'parser-keeping-bytes';

/**
 * The route parameter a Receiver of several accounts reads by default, in the path each
 * account's callback URL follows: `/webhooks/verification/<account id>`.
 */
export const ACCOUNT_ROUTE_PATH = '/webhooks/verification/:account';

/** The request header the cases' `account` function reads the account id from. */
export const ACCOUNT_HEADER = 'x-account';

/** The options handed to the adapter's `verificationWebhook(receiver, options)`. */
export interface WebhookOptionsUnderTest {
  path?: string;
  passThrough?: boolean;
  bodyTimeoutMs?: number;
}

/** The app a target must start for one case. */
export interface AppSpec {
  receiver: Receiver;
  mount: MountStyle;
  /**
   * Where webhooks are posted. With `mount: 'route'` the target registers a POST route
   * here, which may hold the route parameter `:account` (`ACCOUNT_ROUTE_PATH`): the target
   * routes it the framework's way (Fastify: the plugin's `path`; a Fetch handler, which has no
   * route parameters: its `account` option given the path's segment). With `use` it equals
   * `options.path`, or the default path when that is unset.
   */
  webhookPath: string;
  options: WebhookOptionsUnderTest;
  bodyParser: BodyParserSetup;
  /**
   * Set: the adapter gets an `account` option, a function that reads the account id from this
   * request header the framework's way (`req.get()`, `ctx.get()`, `c.req.header()`,
   * `request.headers[...]`, `request.headers.get()`), instead of the route parameter.
   */
  accountHeader?: string;
}

/**
 * With `passThrough`, the app answers POST `webhookPath` after the webhook middleware with
 * status 200 and this JSON, read from the framework's `verification` value
 * (`req.verification`, `ctx.state.verification`, `c.get('verification')`,
 * Fastify `request.verification`).
 */
export interface LaterMiddlewareAnswer {
  later: true;
  externalUserId: string;
  source: string;
}

/** What every adapter's middleware carries besides being a middleware. */
export interface WebhookHandle {
  readonly receiver: Receiver;
  on<Name extends ReceiverEventName>(name: Name, handler: ReceiverEventMap[Name]): WebhookHandle;
}

export interface RunningApp {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** The middleware the app mounted. */
  webhook: WebhookHandle;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** One framework (and version) under test, able to start real servers on loopback. */
export interface ConformanceTarget {
  name: string;
  /**
   * Text that the `raw_body_unavailable` message must contain for this framework: the
   * concrete fix (e.g. `captureRawBody`).
   */
  bodyParserFix: string;
  /**
   * Its `parser-first` setup keeps nothing of the body (a hook read the stream), so the
   * signature of a refused webhook cannot be checked and the refusal is logged only once
   * polling shows that the service's webhooks do not get through.
   */
  parserFirstKeepsNothing?: boolean;
  /**
   * `false` for a target with no later middleware to hand an accepted webhook to (a Fetch
   * handler): the passThrough rows are left out. Default `true`.
   */
  passThrough?: boolean;
  /** Starts an app for `spec` listening on 127.0.0.1 with an OS-chosen port. */
  start(spec: AppSpec): Promise<RunningApp>;
}
