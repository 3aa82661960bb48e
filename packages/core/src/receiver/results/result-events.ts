import type { WaitedResult, WaitForResultOptions } from './wait-for-result.js';

/** Options of `resultEvents` and `sendResultEvents`. */
export interface ResultEventsOptions {
  /**
   * How long one connection waits before it answers `pending` and ends; the browser's
   * EventSource then reconnects by itself (after `retry`, 1 s) and waits again. Default 25 s,
   * under the idle timeout of most proxies.
   */
  timeoutMs?: number;
  /**
   * What the page is sent for an outcome. Default: `{ state }`, plus `status` (`verified` or
   * `failed`) when completed: the end user's browser needs no more, and the result's other
   * fields (the signed image link) stay on the server.
   */
  toData?: (outcome: WaitedResult) => unknown;
}

const encoder = new TextEncoder();
const HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // Proxies that buffer responses (nginx) would hold the event back until the end.
  'x-accel-buffering': 'no',
};

function defaultData(outcome: WaitedResult): unknown {
  return outcome.state === 'completed'
    ? { state: outcome.state, status: outcome.result.status }
    : { state: outcome.state };
}

const event = (data: unknown) => encoder.encode(`event: state\ndata: ${JSON.stringify(data)}\n\n`);

/**
 * A Server-Sent Events stream of one session's state, for the return page: `pending` at
 * once, then the outcome the moment any instance delivers it (`receiver.waitForResult`),
 * and the stream ends. A page that goes away cancels the wait; nothing stays subscribed.
 * Fetch-standard (Hono, the Fetch handler, Next.js, Workers); Node frameworks use
 * `sendResultEvents`.
 *
 * @example
 * app.get('/verification/events/:token', (c) => resultEvents(receiver, c.req.param('token')));
 * // in the page:
 * // new EventSource(`/verification/events/${token}`).addEventListener('state', (e) => {
 * //   const { state, status } = JSON.parse(e.data); if (state !== 'pending') show(status ?? state);
 * // });
 */
export function resultEvents(
  receiver: {
    waitForResult(token: string, options?: WaitForResultOptions): Promise<WaitedResult>;
  },
  token: string,
  options: ResultEventsOptions = {},
): Response {
  const toData = options.toData ?? defaultData;
  const cancelled = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode('retry: 1000\n\n'));
      controller.enqueue(event(toData({ state: 'pending' })));
      try {
        const outcome = await receiver.waitForResult(token, {
          timeoutMs: options.timeoutMs ?? 25_000,
          signal: cancelled.signal,
        });
        if (outcome.state !== 'pending') controller.enqueue(event(toData(outcome)));
        controller.close();
      } catch (error) {
        // Cancelled by the page leaving: the stream is already gone.
        if (!cancelled.signal.aborted) controller.error(error);
      }
    },
    cancel() {
      cancelled.abort();
    },
  });
  return new Response(body, { status: 200, headers: HEADERS });
}

/** The parts of Node's `ServerResponse` `sendResultEvents` writes to. */
export interface EventStreamTarget {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): unknown;
  end(): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * `resultEvents` written to a Node response (Express's `res`, Koa's `ctx.res` with
 * `ctx.respond = false`, Fastify's `reply.raw`): the same stream, and the wait is cancelled
 * when the connection closes.
 *
 * @example
 * app.get('/verification/events/:token', (req, res) => {
 *   void sendResultEvents(receiver, req.params.token, res);
 * });
 */
export async function sendResultEvents(
  receiver: {
    waitForResult(token: string, options?: WaitForResultOptions): Promise<WaitedResult>;
  },
  token: string,
  target: EventStreamTarget,
  options: ResultEventsOptions = {},
): Promise<void> {
  const response = resultEvents(receiver, token, options);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  target.once('close', () => {
    void reader.cancel().catch(() => undefined);
  });
  target.writeHead(response.status, HEADERS);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      target.write(value);
    }
  } catch {
    // The wait failed (the store is down): end the stream; the page's EventSource retries.
  }
  target.end();
}
