import type { Receiver } from '@faceverify/core';
import type { VerificationEnv } from '@faceverify/hono';
import type { ExecutionContext, Hono } from 'hono';
import { createApp } from './app.js';
import { type Bindings, receiverFromBindings } from './bindings.js';
import { UserVerifications } from './user-verifications.js';

/** The part of a cron trigger's controller this Worker reads. */
interface ScheduledController {
  readonly cron: string;
}

interface Instance {
  app: Hono<VerificationEnv>;
  receiver: Receiver;
}

// Built on an isolate's first event, from that event's bindings: a Worker has no process
// environment and may not generate randomness at startup. Later events reuse it.
let instance: Instance | undefined;

function instanceFor(env: Bindings): Instance {
  if (!instance) {
    const receiver = receiverFromBindings(env);
    instance = {
      receiver,
      app: createApp({ receiver, verifications: new UserVerifications(env.DB) }),
    };
  }
  return instance;
}

export default {
  fetch(request: Request, env: Bindings, ctx: ExecutionContext): Response | Promise<Response> {
    return instanceFor(env).app.fetch(request, env, ctx);
  },

  // No timer outlives a request on Workers, so the cron trigger in wrangler.toml polls the
  // sessions whose webhook is overdue. The event lasts until the returned promise settles.
  async scheduled(controller: ScheduledController, env: Bindings): Promise<void> {
    const report = await instanceFor(env).receiver.sweep();
    console.log(`sweep (${controller.cron}): ${JSON.stringify(report)}`);
  },
};
