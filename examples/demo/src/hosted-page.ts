import type { Emulator } from '@faceverify/emulator';
import type { Browser } from 'playwright-core';

/** Where the browser ended up after the hosted page, and the status the app showed there. */
export interface Landing {
  path: string;
  /** The status on the app's return page, which it got from `receiver.confirm`. */
  status: string | undefined;
}

const RETURN_PATH = '/verification/return';

/** The session token at the end of a hosted page address (`<base>/verify/<token>`). */
export function tokenFromVerifyUrl(verifyUrl: string): string {
  return new URL(verifyUrl).pathname.split('/').at(-1) ?? '';
}

function statusFromHeading(heading: string | null | undefined): string | undefined {
  return heading?.match(/^Verification (\w+)$/)?.[1];
}

/**
 * A person's visit, in headless Chromium: open the page, click "Verified", follow the redirect.
 * The request back to the app waits for `beforeReturn`.
 */
export async function completeInBrowser(
  browser: Browser,
  verifyUrl: string,
  beforeReturn: () => Promise<void>,
): Promise<Landing> {
  const page = await browser.newPage();
  try {
    await page.route(
      (url) => url.pathname === RETURN_PATH,
      async (route) => {
        await beforeReturn();
        await route.continue();
      },
    );
    await page.goto(verifyUrl);
    await page.getByRole('button', { name: 'Verified', exact: true }).click();
    await page.waitForURL((url) => url.pathname === RETURN_PATH);
    const heading = await page.getByRole('heading', { level: 1 }).textContent();
    return { path: new URL(page.url()).pathname, status: statusFromHeading(heading) };
  } finally {
    await page.close();
  }
}

/**
 * Without a browser: the very call the hosted page makes (`POST /v1/sessions/:token/complete`),
 * then a visit to the redirect address it returns.
 */
export async function completeByCall(
  emulator: Emulator,
  token: string,
  beforeReturn: () => Promise<void>,
): Promise<Landing> {
  const completion = await emulator.completeSession(token, 'verified');
  if (completion.redirect_url === null) return { path: '(no redirect)', status: undefined };
  await beforeReturn();
  const response = await fetch(completion.redirect_url);
  const heading = (await response.text()).match(/<h1>([^<]*)<\/h1>/)?.[1];
  return { path: new URL(completion.redirect_url).pathname, status: statusFromHeading(heading) };
}
