import { type NodeRequestLike, nodeBodyTaken } from './read-node-body.js';

/**
 * The Node request behind a Fetch `Request`, when the server passed it beside the Request
 * and nothing has read its body yet: `@hono/node-server` hands `{ incoming, outgoing }` as
 * the Fetch handler's second argument (Hono's `c.env`). There, reading `request.body`
 * builds a full undici Request and a web stream per request, several times the cost of
 * verifying a webhook, while the Node stream is framed by HTTP and read directly.
 * `undefined` anywhere else (Workers bindings, Next.js's `{ params }`), and when the
 * Request's body was used, so the Fetch reader gives the usual answer. For adapter authors.
 *
 * @example
 * const incoming = untouchedNodeIncoming(request, context);
 * const read = incoming
 *   ? await readNodeBody(incoming, limit, signal)
 *   : await readFetchBody(request, limit, signal, hint);
 */
export function untouchedNodeIncoming(request: Request, env: unknown): NodeRequestLike | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const incoming = (env as { incoming?: unknown }).incoming as Partial<NodeRequestLike> | null;
  if (
    typeof incoming !== 'object' ||
    incoming === null ||
    typeof incoming.on !== 'function' ||
    typeof incoming.readableEnded !== 'boolean' ||
    typeof incoming.headers !== 'object'
  ) {
    return undefined;
  }
  const node = incoming as NodeRequestLike;
  // `bodyUsed` is a plain flag on @hono/node-server's Request; `body` is what is costly.
  return nodeBodyTaken(node) || request.bodyUsed ? undefined : node;
}
