import type { VerificationCompletedEvent } from '@faceverify/core';
import type { DemoContext } from './demo-context.js';

const USER_ID = 'you';

/**
 * Hands over to a person: prints a hosted page address to open in a browser, reports each
 * result as it arrives with a fresh address, and returns on Ctrl+C.
 */
export async function waitForPerson(context: DemoContext, signal: AbortSignal): Promise<void> {
  const { terminal, appUrl, receiver } = context;
  const offerSession = async () => {
    const response = await fetch(`${appUrl}/verifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: USER_ID }),
    });
    const { verifyUrl } = (await response.json()) as { verifyUrl: string };
    terminal.line(`  ${terminal.style('cyan', verifyUrl)}`);
  };
  const onCompleted = (event: VerificationCompletedEvent) => {
    if (event.data.external_user_id !== USER_ID) return;
    terminal.line(
      `  ${terminal.style('green', '✔')} verification.completed for ${USER_ID}: ${event.data.status} (source ${event.source}). Another one:`,
    );
    offerSession().catch((error: unknown) => terminal.warn(String(error)));
  };

  terminal.line();
  terminal.line(terminal.style('bold', 'Your turn'));
  terminal.line('  Open this address in a browser and pick an outcome; you land on the app again:');
  await offerSession();
  terminal.line(`  The result appears here, and at ${appUrl}/verifications/${USER_ID}.`);
  terminal.line(terminal.style('dim', '  Press Ctrl+C to stop.'));
  receiver.on('verification.completed', onCompleted);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  receiver.off('verification.completed', onCompleted);
}
