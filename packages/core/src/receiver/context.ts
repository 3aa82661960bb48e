import type { Client } from '../client/index.js';
import type { FixedDelayTimers } from '../clock/fixed-delay-timers.js';
import { ENV, readEnv } from '../config/env.js';
import { ConfigurationError } from '../errors.js';
import type { ActivityWindow } from './activity-window.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { ResolvedReceiverOptions } from './options.js';
import type { RefusedBodies } from './refused-bodies.js';

/** Everything the Receiver's parts share: resolved options, handlers and lease owners. */
export interface ReceiverContext extends ResolvedReceiverOptions {
  handlers: HandlerRegistry;
  /** A lease owner unique to one piece of work, so two tasks in one process never share a lease. */
  newOwner(): string;
  /** Acknowledgement deadlines (`ackAfterMs`) of the requests in flight, on one clock timer. */
  ackTimers: FixedDelayTimers;
  /** Lease renewals (every `leaseMs / 3`) of the work in flight, on one clock timer. */
  renewalTimers: FixedDelayTimers;
  /** What happened recently, for `health()` and the alarms. */
  activity: ActivityWindow;
  /** Users named by refused bodies: evidence that they were the service's (alarms). */
  refusedBodies: RefusedBodies;
  /**
   * Before the first work on the store's clock (`storeClock`): a promise of its first
   * reading, else `undefined`. Awaited only when it is a promise.
   */
  clockReady(): Promise<void> | undefined;
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function createOwnerFactory(): () => string {
  const instance = randomId();
  let counter = 0;
  return () => `${instance}:${++counter}`;
}

/**
 * The Receiver's client, or a `ConfigurationError` that names the unset variables: without
 * one, starting sessions, confirming and polling cannot work, and must not fail later as a 500.
 */
export function requireClient(context: ReceiverContext, action: string): Client {
  if (!context.client) {
    const unset = [ENV.apiKey, ENV.baseUrl].filter((name) => readEnv(name) === undefined);
    const reason =
      unset.length > 0 ? `: ${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} not set` : '';
    throw new ConfigurationError(
      `${action} needs the API client, and this Receiver has none${reason}. Set ${ENV.apiKey} and ${ENV.baseUrl}, or pass \`client: { apiKey, baseUrl }\` to createReceiver().`,
    );
  }
  return context.client;
}
