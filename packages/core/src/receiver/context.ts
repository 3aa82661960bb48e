import type { ResolvedReceiverOptions } from './options.js';
import type { WebhookContext } from './webhook/webhook-context.js';

/**
 * What the Receiver builds once and its parts share: the resolved options, and the parts'
 * contexts (a webhook's, which includes delivery's). Each part is typed by what it takes.
 */
export interface ReceiverContext extends ResolvedReceiverOptions, WebhookContext {}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function createOwnerFactory(): () => string {
  const instance = randomId();
  let counter = 0;
  return () => `${instance}:${++counter}`;
}
