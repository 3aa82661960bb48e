import { fixturePayload, tamperedDelivery } from '@faceverify/core/testing';
import type { Step } from './step.js';

const USER_ID = 'mallory';

export const tamperedWebhookStep: Step = {
  title: 'A tampered webhook, rejected',
  name: 'Tampered webhook rejected',
  timeoutMs: 10_000,
  async run({ appUrl, emulator, events, terminal }) {
    const delivery = await tamperedDelivery(fixturePayload({ external_user_id: USER_ID }), {
      secret: emulator.signingSecret,
    });
    terminal.info(
      'a body signed with the real secret, then one bit flipped (tamperedDelivery from @faceverify/core/testing)',
    );
    const response = await fetch(`${appUrl}/webhooks/verification`, {
      method: 'POST',
      headers: delivery.headers,
      body: new Uint8Array(delivery.body),
    });
    const answer = (await response.json()) as { error?: string; message?: string };
    terminal.info(`POST /webhooks/verification → ${response.status} ${answer.error}`);
    terminal.info(terminal.style('dim', `"${answer.message}"`));
    const handled = events.forUser(USER_ID).length;
    terminal.info(`handlers run for ${USER_ID}: ${handled}`);
    return {
      passed: response.status === 401 && answer.error === 'signature_invalid' && handled === 0,
      detail: `${response.status} ${answer.error ?? ''}; no handler ran`.trim(),
    };
  },
};
