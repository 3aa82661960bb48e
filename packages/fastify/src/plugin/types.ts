import type { VerificationCompletedEvent } from '@faceverify/core';
import type { WithReceiver } from '@faceverify/core/adapter';

/**
 * What the plugin puts on the Fastify instance it is registered in: the Receiver and a
 * chainable `.on()` that registers handlers on it.
 *
 * @example
 * await app.register(verificationWebhook, { receiver });
 * app.verificationWebhook.on('verification.completed', async ({ data }) => {
 *   await users.markVerified(data.external_user_id, data.status === 'verified');
 * });
 */
export type VerificationWebhookHandle = WithReceiver<object>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The webhook registered with `verificationWebhook`: its Receiver and `.on()`. */
    verificationWebhook: VerificationWebhookHandle;
  }
  interface FastifyRequest {
    /**
     * The verified `verification.completed` event, set on the webhook route when the
     * webhook was accepted. The `passThrough` handler reads it.
     */
    verification?: VerificationCompletedEvent;
  }
}
