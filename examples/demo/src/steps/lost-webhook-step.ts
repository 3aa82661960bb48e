import { formatDuration } from '../format-duration.js';
import { POLL_SCHEDULE_MS } from '../settings.js';
import type { Step } from './step.js';

const USER_ID = 'bob';

export const lostWebhookStep: Step = {
  title: 'A lost webhook, recovered by polling',
  name: 'Lost webhook recovered by polling',
  timeoutMs: 20_000,
  async run({ emulator, receiver, events, terminal }) {
    emulator.setFaults({ dropWebhooks: { next: 1 } });
    terminal.info(
      'the emulator will drop the next webhook: setFaults({ dropWebhooks: { next: 1 } })',
    );
    const { token } = await receiver.startVerification({ externalUserId: USER_ID });
    terminal.info(
      `receiver.startVerification({ externalUserId: '${USER_ID}' }) tracks the session; first poll due after ${formatDuration(POLL_SCHEDULE_MS[0])}`,
    );

    const droppedBefore = emulator.stats().webhooks.dropped;
    await emulator.completeSession(token, 'liveness_failed');
    const completedAt = performance.now();
    await emulator.webhooksSettled();
    const dropped = emulator.stats().webhooks.dropped - droppedBefore;
    terminal.info(
      `${USER_ID} completes the page (liveness fails) and never comes back; webhooks dropped: ${dropped}`,
    );
    terminal.info(
      "waiting for the receiver's timer (receiver.start()) to poll GET /v1/sessions/:token",
    );
    const event = await events.next(USER_ID, 15_000);
    const after = formatDuration(performance.now() - completedAt);
    terminal.info(
      `verification.completed for ${USER_ID}: ${event.data.status} (${event.data.reason}), source ${event.source}, ${after} after completion`,
    );
    return {
      passed: dropped === 1 && event.source === 'poll' && event.data.status === 'failed',
      detail: `webhook dropped; source ${event.source} after ${after}`,
    };
  },
};
