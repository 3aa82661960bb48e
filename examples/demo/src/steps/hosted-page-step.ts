import type { DemoContext } from '../demo-context.js';
import {
  completeByCall,
  completeInBrowser,
  type Landing,
  tokenFromVerifyUrl,
} from '../hosted-page.js';
import { shortToken } from '../redaction.js';
import type { Step, StepResult } from './step.js';

const USER_ID = 'alice';

export const hostedPageStep: Step = {
  title: 'A session started through the client, completed on the hosted page',
  name: 'Session started, hosted page completed',
  timeoutMs: 30_000,
  async run(context) {
    const { receiver } = context;
    // A first poll (3 s here) can come due while a slow machine is still completing the page,
    // and then deliver the result before the webhook does: both are right, but step 2 is about
    // the webhook. The Tracker waits until the webhook has been answered.
    await receiver.stop();
    try {
      return await startAndComplete(context);
    } finally {
      receiver.start();
    }
  },
};

async function startAndComplete(context: DemoContext): Promise<StepResult> {
  const { terminal, emulator, browser } = context;
  terminal.info(
    `the app's POST /verifications calls receiver.startVerification({ externalUserId: '${USER_ID}' })`,
  );
  const response = await fetch(`${context.appUrl}/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId: USER_ID }),
  });
  if (response.status !== 201) {
    return { passed: false, detail: `POST /verifications answered ${response.status}` };
  }
  const { verifyUrl } = (await response.json()) as { verifyUrl: string };
  const token = tokenFromVerifyUrl(verifyUrl);
  terminal.info(
    `the browser gets the hosted page's address only (session token ${shortToken(token)})`,
  );
  context.hostedSession = {
    userId: USER_ID,
    token,
    deliveredBefore: emulator.stats().webhooks.delivered,
  };

  // Over the internet the webhook usually lands before the person's browser is back; on one
  // machine it is a race. Holding the return until the webhook is answered keeps step 2 about
  // the webhook. Either order delivers the result once.
  const webhookFirst = () => emulator.webhooksSettled();
  terminal.info(
    'the return to the app waits until the webhook has been answered (polling waits too)',
  );
  let landing: Landing;
  if (browser) {
    terminal.info('headless Chromium opens the hosted page and clicks "Verified"');
    landing = await completeInBrowser(browser, verifyUrl, webhookFirst);
  } else {
    terminal.info(
      "no browser: the demo makes the hosted page's own call, POST /v1/sessions/:token/complete",
    );
    landing = await completeByCall(emulator, token, webhookFirst);
  }
  terminal.info(
    `redirected to the app's ${landing.path}, which asked the service with receiver.confirm(token): ${landing.status ?? 'no status shown'}`,
  );
  return {
    passed: landing.status === 'verified',
    detail: `${browser ? 'headless Chromium' : 'completion call'}; confirm() → ${landing.status ?? '?'}`,
  };
}
