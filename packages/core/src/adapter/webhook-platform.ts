import type { VerificationCompletedEvent } from '../delivery/events.js';
import type { ReceiverResponse } from '../receiver/webhook/answers.js';
import type { HeadersLike } from '../receiver/webhook/headers.js';
import type { BodyRead } from './body-read.js';

/**
 * What a platform's `readBody` gives: a read decided at once (a body a parser consumed, a
 * request already aborted), or the platform's own promise of the body: raw-body's bytes, a
 * Fetch `arrayBuffer()`, or a read the reader decided itself. The pipeline races that promise
 * against the body deadline and maps its end in one step: bytes not as long as their
 * Content-Length are `unreadable`, and a rejection is read by its raw-body `type` (the names
 * body-parser users know), or else `unreadable`.
 */
export type BodyReading = BodyRead | Promise<Uint8Array | ArrayBuffer | BodyRead>;

/**
 * What a framework is to the webhook pipeline, described once per adapter (a module-level
 * object, not one per request): how to read its request, and how to answer or pass it on.
 * `Request` and `Response` are the framework's own objects as its middleware receives them
 * (Koa and Hono have one context for both; a Fetch handler's `Response` is its second
 * argument, the platform's context), `Next` its third argument, `Result` what its middleware
 * resolves to.
 * The pipeline calls these with those objects, so no function is built per request.
 */
export interface WebhookPlatform<Request, Response = Request, Next = undefined, Result = unknown> {
  /** The request's method. */
  method(request: Request): string;
  /** The request's headers, as the Receiver reads them. */
  headers(request: Request, response: Response): HeadersLike;
  /** The route's `account` parameter, the account of a request when no `account` option is given. */
  account?(request: Request): string | undefined;
  /**
   * True when the framework's router chose this request for `middleware` (a route): it is
   * the webhook's whatever its path. Asked only for a request off the webhook's path. Absent:
   * the handler is only ever mounted on the webhook's route (a Fetch handler).
   */
  isRouted?(request: Request, middleware: unknown): boolean;
  /** The request path as sent; may throw (or say `undefined`) when it cannot be parsed. */
  path?(request: Request): string | undefined;
  /**
   * Reads the exact body bytes once, never past `limit` (see `BodyReading`). A reader that
   * reads a web stream stops when `signal` aborts (the body deadline), and removes any
   * listener from `signal` when the read ends: a signal that never aborted is reused.
   */
  readBody(request: Request, limit: number, signal: AbortSignal, response: Response): BodyReading;
  /**
   * Told that the body was read whole: marks the stream spent for the body parsers behind
   * (`req._body`, `ctx.disableBodyParser`) or keeps the bytes where they look (Hono's cache).
   */
  spent?(request: Request, bytes: Uint8Array): void;
  /** The platform's `waitUntil`, for handlers that outlive the response; absent where the process outlives it. */
  waitUntil?(request: Request, response: Response, promise: Promise<unknown>): void;
  /** Keeps the accepted event where later middleware reads it (`req.verification`, ...). */
  keep?(request: Request, event: VerificationCompletedEvent): void;
  /**
   * Hands the request on to the next middleware; what it returns (awaited) is what the
   * middleware resolves to. Absent where nothing runs after the handler: every request is
   * then answered.
   */
  next?(request: Request, response: Response, next: Next): unknown;
  /**
   * Writes the answer; `close` asks to close the connection after it, and to read no more
   * of the body (it is left unread).
   */
  respond(response: Response, answer: ReceiverResponse, close: boolean): Result | Promise<Result>;
  /**
   * Takes an error thrown while passing on or answering (a response someone else already
   * sent, ...), for frameworks that ignore rejected promises (Express 4 wants `next(error)`).
   * Without it, the middleware rejects, as it does with a promise `next` or `respond` rejects.
   */
  fail?(error: unknown, next: Next): void;
}
