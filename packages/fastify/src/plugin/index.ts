import { ConfigurationError } from '@faceverify/core';
import {
  DEFAULT_WEBHOOK_PATH,
  type WebhookPlatform,
  webhookMiddleware,
} from '@faceverify/core/adapter';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { readWebhookBody } from '../raw-body/read-webhook-body.js';
import type { VerificationWebhookOptions } from './options.js';

/** The `passThrough` handler, which answers an accepted webhook in the route's place. */
type Later = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * Fastify to the webhook pipeline: its request, its reply, and the route's `this` in the
 * place of `next`, which the `passThrough` handler is called with. Built once per
 * registration, not per request: `later` is that registration's handler.
 */
function fastifyPlatform(
  later: Later | undefined,
): WebhookPlatform<FastifyRequest, FastifyReply, FastifyInstance, unknown> {
  return {
    method: (request) => request.method,
    headers: (request) => request.headers,
    account: (request) => (request.params as Record<string, string> | undefined)?.account,
    readBody: readWebhookBody,
    keep(request, event) {
      Object.assign(request, { verification: event });
    },
    // The route resolves to what the handler returned: its answer.
    next: (request, reply, self) => later?.call(self, request, reply),
    // With `close` the rest of the body is not read and the socket is closed after the
    // answer, so the sender stops pushing a body nobody reads (HTTP/2 forbids the header and
    // ends the stream itself).
    respond(reply, answer, close) {
      if (close) {
        reply.request.raw.pause();
        if (reply.request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
      }
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    },
  };
}

const plugin: FastifyPluginAsync<VerificationWebhookOptions> = async (fastify, options) => {
  const { receiver: receiverOrOptions, handler: later, ...pipelineOptions } = options;
  const webhook = webhookMiddleware(
    fastifyPlatform(later),
    (pipeline) =>
      function route(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        return pipeline.handle(request, reply, this);
      },
  )(receiverOrOptions, pipelineOptions);
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
      webhook,
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
