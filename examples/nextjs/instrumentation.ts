import { FaceverifyError } from '@faceverify/core';

/**
 * Runs once when the Next.js server starts. A missing `FACEVERIFY_*` variable, an API key the
 * service refuses, a base URL where its API is not, or no service answering there (the
 * emulator not running) stops the server with its message: Next.js would log the error and
 * answer every request 500. Then polling for lost webhooks begins.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { faceverify } = await import('@/lib/faceverify');
  try {
    const { receiver } = faceverify();
    await receiver.check(); // a wrong API key or base URL fails here, not at the first user
    receiver.start();
  } catch (error) {
    if (!(error instanceof FaceverifyError)) throw error;
    console.error(`${error.message}

Is the emulator running? Start it in another terminal with
  npx faceverify-emulator --callback-url http://127.0.0.1:${process.env.PORT ?? 3000}/api/webhooks/verification
and export the FACEVERIFY_* variables it prints.`);
    process.exit(1);
  }
}
