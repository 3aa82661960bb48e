import { ConfigurationError } from '@faceverify/core';
import {
  DEFAULT_WEBHOOK_PATH,
  type WithReceiver,
  webhookMiddleware,
} from '@faceverify/core/adapter';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';
import type { VerificationWebhookOptions } from './options.js';

/** What the `passThrough` handler returned: the route's answer when it takes the request. */
type Answered = { value: unknown };

/**
 * One request on the route: `later` is the `passThrough` handler, called with the route's
 * `this` when a webhook is accepted; what it returns is kept in `answered`.
 */
type Route = WithReceiver<
  (
    request: FastifyRequest,
    reply: FastifyReply,
    answered: Answered,
    later: ((request: FastifyRequest, reply: FastifyReply) => unknown) | undefined,
    self: FastifyInstance,
  ) => Promise<unknown>
>;

const route = webhookMiddleware<Route>((_route, request, reply, answered, later, self) => ({
  method: request.method,
  headers: request.headers,
  request,
  routeParam: (name) => (request.params as Record<string, string> | undefined)?.[name],
  isRouted: () => true,
  path: () => request.url,
  readBody: (limit, signal) => readWebhookBody(request, limit, signal),
  keep: (event) => Object.assign(request, { verification: event }),
  next: async () => {
    answered.value = await later?.call(self, request, reply);
  },
  // With `close` the socket is closed after the answer, so the sender stops pushing a body
  // nobody reads (HTTP/2 forbids the header and ends the stream itself).
  respond: (answer, close) => {
    if (close && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    void reply.code(answer.status).headers(answer.headers).send(answer.body);
  },
}));

const plugin: FastifyPluginAsync<VerificationWebhookOptions> = async (fastify, options) => {
  const { receiver: receiverOrOptions, handler: later, ...pipelineOptions } = options;
  const webhook = route(receiverOrOptions, pipelineOptions);
  if (options.passThrough === true && later === undefined) {
    throw new ConfigurationError(
      'verificationWebhook: "passThrough" needs a "handler" to answer accepted webhooks, e.g. { passThrough: true, handler: async (request) => ({ ok: true }) }.',
    );
  }
  // Registration is when a Fastify app starts (`ready()`, `listen()`): the Receiver is built
  // here, so a missing configuration fails the start, and the route's bodyLimit is known.
  const { maxBodyBytes } = webhook.receiver;
  fastify.decorate('verificationWebhook', webhook);
  // Encapsulated: the app's own parsers, on every other route, stay as they are.
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Leaves the stream unread: the pipeline reads it within maxBodyBytes and bodyTimeoutMs.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.decorateRequest('verification', undefined);
    scope.all(
      options.path ?? DEFAULT_WEBHOOK_PATH,
      // fastify-raw-body skips the route; a hook honouring bodyLimit agrees with the Receiver.
      { bodyLimit: maxBodyBytes, config: { rawBody: false } },
      async function webhookRoute(request, reply) {
        const answered: Answered = { value: reply };
        await webhook(request, reply, answered, later, this);
        return answered.value;
      },
    );
  });
};

/**
 * Fastify 5 plugin that receives the signed `verification.completed` webhook on its own
 * route: it reads the exact raw body (size-limited and time-limited, before any JSON
 * parsing), lets the Receiver verify and deliver it, and sends the Receiver's answer. Its
 * content-type parser is encapsulated with the route, so JSON parsing everywhere else in
 * the app is untouched. The Receiver and a chainable `.on()` are on
 * `app.verificationWebhook`.
 *
 * Without a `receiver` option the Receiver is configured from the environment
 * (`FACEVERIFY_WEBHOOK_SECRET`, ...) and a missing secret fails the registration with a
 * `ConfigurationError`.
 *
 * @example
 * const app = Fastify();
 * await app.register(verificationWebhook, { receiver, path: '/webhooks/verification' });
 * app.verificationWebhook.on('verification.completed', async ({ data }) => {
 *   await users.markVerified(data.external_user_id, data.status === 'verified');
 * });
 * await app.listen({ port: 3000 });
 */
export const verificationWebhook: FastifyPluginAsync<VerificationWebhookOptions> = fastifyPlugin(
  plugin,
  {
    fastify: '5.x',
    name: '@faceverify/fastify',
  },
);
