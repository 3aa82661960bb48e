import {
  type AppSpec,
  type ConformanceTarget,
  listen,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
} from '@faceverify/conformance';
import { getRequestListener } from '@hono/node-server';
import { verificationWebhook } from '../src/index.js';

/**
 * What apps do with a Request before a webhook handler: read it (`parser-first`), or read
 * a clone, which leaves the original's bytes untouched (`parser-keeping-bytes`).
 */
async function earlyBodyRead(request: Request, setup: AppSpec['bodyParser']): Promise<void> {
  if (request.method !== 'POST' || setup === 'none') return;
  if (setup === 'parser-first') await request.json().catch(() => undefined);
  else await request.clone().arrayBuffer();
}

/**
 * The webhook's route as a pattern: `:name` segments match one segment each (as Next.js's
 * `[name]` folders and Bun's `routes` do).
 */
function routePattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    );
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * The `account` option the route needs: a Fetch handler has no route parameters, so on a
 * route with `:account` it is the segment there (the account id of the callback URL); else,
 * when the case asks, a header.
 */
function accountOption(spec: AppSpec): { account?: (request: Request) => string | undefined } {
  const at = spec.webhookPath.split('/').indexOf(':account');
  if (at >= 0) {
    return { account: (request) => new URL(request.url).pathname.split('/')[at] };
  }
  const { accountHeader } = spec;
  if (accountHeader === undefined) return {};
  return { account: (request) => request.headers.get(accountHeader) ?? undefined };
}

/** A route table as Next.js, Bun.serve or a Worker's own routing would have it. */
function buildApp(spec: AppSpec) {
  const webhook = verificationWebhook(spec.receiver, { ...spec.options, ...accountOption(spec) });
  const route = routePattern(spec.webhookPath);
  const app = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname === OWN_ROUTE_PATH) return new Response(OWN_ROUTE_TEXT);
    if (!route.test(pathname)) return new Response('not found', { status: 404 });
    await earlyBodyRead(request, spec.bodyParser);
    return webhook(request);
  };
  return { app, webhook };
}

/** The Fetch handler on Node's HTTP server (through @hono/node-server) as a target. */
export const fetchNodeTarget: ConformanceTarget = {
  name: 'Fetch handler on Node',
  bodyParserFix: 'request.clone()',
  parserFirstKeepsNothing: true,
  passThrough: false,
  async start(spec) {
    const { app, webhook } = buildApp(spec);
    const listening = await listen(getRequestListener(app));
    return { url: listening.url, webhook, close: listening.close };
  },
};
