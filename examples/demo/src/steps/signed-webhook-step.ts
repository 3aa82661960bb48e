import { printEvent } from '../print-event.js';
import type { Step } from './step.js';

export const signedWebhookStep: Step = {
  title: 'The signed webhook, received as a typed event',
  name: 'Signed webhook → typed event',
  timeoutMs: 15_000,
  async run({ hostedSession, events, emulator, terminal }) {
    if (!hostedSession) return { passed: false, detail: 'no session from step 1' };
    const event = await events.next(hostedSession.userId, 10_000);
    await emulator.webhooksSettled();
    const delivered = emulator.stats().webhooks.delivered - hostedSession.deliveredBefore;
    terminal.info(
      `the emulator POSTed it with X-Webhook-Signature; the receiver checked the raw bytes and answered 2xx (${delivered} delivered)`,
    );
    terminal.info("receiver.on('verification.completed', handler) got:");
    printEvent(terminal, event);
    if (event.source === 'poll') {
      terminal.info(
        'confirm() on the redirect delivered it first; the webhook was then a duplicate',
      );
    }
    const handledOnce = events.forUser(hostedSession.userId).length === 1;
    return {
      passed:
        delivered === 1 &&
        event.source === 'webhook' &&
        handledOnce &&
        event.sessionToken === hostedSession.token &&
        event.data.status === 'verified',
      detail: `source ${event.source}; handled ${handledOnce ? 'once' : 'more than once'}`,
    };
  },
};
