import { Readable } from 'node:stream';
import {
  type AppSpec,
  type ConformanceTarget,
  type LaterMiddlewareAnswer,
  OWN_ROUTE_PATH,
  OWN_ROUTE_TEXT,
} from '@faceverify/conformance';
import type Fastify from 'fastify';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preParsingAsyncHookHandler,
} from 'fastify';
import fastifyRawBody from 'fastify-raw-body';
import { type VerificationWebhookOptions, verificationWebhook } from '../src/index.js';

async function answerLater(request: FastifyRequest): Promise<LaterMiddlewareAnswer> {
  return {
    later: true,
    externalUserId: request.verification?.data.external_user_id ?? 'missing',
    source: request.verification?.source ?? 'missing',
  };
}

/**
 * A hook that reads the whole body before any parser (to log or decrypt it, say) and hands
 * Fastify a fresh stream of the same bytes, keeping none of them on the request.
 */
const bodyReadingHook: preParsingAsyncHookHandler = async (_request, _reply, payload) => {
  const chunks: Buffer[] = [];
  for await (const chunk of payload) chunks.push(chunk as Buffer);
  return Readable.from([Buffer.concat(chunks)]);
};

/**
 * What Fastify apps put before a webhook route: a hook that reads the body, or
 * fastify-raw-body (registered app-wide, as for other providers' webhooks).
 */
async function earlyBodyRead(app: FastifyInstance, setup: AppSpec['bodyParser']): Promise<void> {
  if (setup === 'parser-first') app.addHook('preParsing', bodyReadingHook);
  if (setup === 'parser-keeping-bytes') await app.register(fastifyRawBody);
}

async function buildApp(createApp: typeof Fastify, spec: AppSpec) {
  const app = createApp({ forceCloseConnections: true });
  await earlyBodyRead(app, spec.bodyParser);
  const { accountHeader } = spec;
  const options: VerificationWebhookOptions = {
    receiver: spec.receiver,
    ...spec.options,
    ...(spec.options.passThrough ? { handler: answerLater } : {}),
    ...(accountHeader === undefined
      ? {}
      : {
          account: (request: FastifyRequest) =>
            request.headers[accountHeader] as string | undefined,
        }),
  };
  let scope: FastifyInstance = app;
  if (spec.mount === 'use') {
    await app.register(verificationWebhook, options);
  } else if (spec.webhookPath.includes('/:')) {
    // A route parameter (`/webhooks/verification/:account`): the plugin's path, as documented.
    await app.register(verificationWebhook, { ...options, path: spec.webhookPath });
  } else {
    // Registered in a prefixed plugin: the path is relative to the prefix, as for any route.
    const cut = spec.webhookPath.lastIndexOf('/');
    await app.register(
      async (hooks) => {
        await hooks.register(verificationWebhook, {
          ...options,
          path: spec.webhookPath.slice(cut),
        });
        scope = hooks;
      },
      { prefix: spec.webhookPath.slice(0, cut) },
    );
  }
  app.route({
    method: ['GET', 'POST'],
    url: OWN_ROUTE_PATH,
    handler: (_request, reply: FastifyReply) => reply.type('text/plain').send(OWN_ROUTE_TEXT),
  });
  await app.ready();
  return { app, webhook: scope.verificationWebhook };
}

/** Fastify (whichever release of 5 `createApp` is) as a conformance target. */
export function fastifyTarget(name: string, createApp: typeof Fastify): ConformanceTarget {
  return {
    name,
    bodyParserFix: 'let no hook read the body on the webhook route',
    parserFirstKeepsNothing: true,
    async start(spec) {
      const { app, webhook } = await buildApp(createApp, spec);
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: address.replace(/\/$/, ''), webhook, close: () => app.close() };
    },
  };
}
