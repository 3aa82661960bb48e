import { Accounts } from './accounts/accounts.js';
import { FaultInjector } from './faults/fault-injector.js';
import { FrontImageLinks } from './images/front-image-links.js';
import type { EmulatorConfig } from './options.js';
import { createRandomSource, type RandomSource } from './random.js';
import { SlidingWindowLimiter } from './rate-limit/sliding-window.js';
import { SessionStore } from './sessions/session-store.js';
import { type Counters, createCounters } from './stats.js';
import { DeliveryLog } from './webhook/delivery-log.js';
import { WebhookSender } from './webhook/webhook-sender.js';

/** Everything one running emulator holds: its whole state lives here, in memory. */
export interface EmulatorContext {
  config: EmulatorConfig;
  /** The base URL announced in `verify_url` and image links; known once the server listens. */
  baseUrl: () => string;
  /** The accounts served, with the callback URLs in force now. */
  accounts: Accounts;
  sessions: SessionStore;
  limiters: { verify: SlidingWindowLimiter; complete: SlidingWindowLimiter };
  faults: FaultInjector;
  images: FrontImageLinks;
  webhooks: WebhookSender;
  /** Every webhook attempt, by session, for the inspector. */
  deliveries: DeliveryLog;
  random: RandomSource;
  counters: Counters;
}

export function createEmulatorContext(
  config: EmulatorConfig,
  baseUrl: () => string,
): EmulatorContext {
  const random = createRandomSource(config.seed);
  const counters = createCounters();
  const faults = new FaultInjector(random, config.faults);
  const { verify, complete } = config.rateLimits;
  const deliveries = new DeliveryLog();
  return {
    config,
    baseUrl,
    accounts: new Accounts(config.accounts),
    sessions: new SessionStore(config.sessionTtlMs, config.now),
    limiters: {
      verify: new SlidingWindowLimiter(verify.limit, verify.windowMs, config.now),
      complete: new SlidingWindowLimiter(complete.limit, complete.windowMs, config.now),
    },
    faults,
    images: new FrontImageLinks(config.imageUrlTtlMs, config.now),
    webhooks: new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      faults,
      random,
      counters: counters.webhooks,
      logger: config.logger,
      log: deliveries,
    }),
    deliveries,
    random,
    counters,
  };
}
