/**
 * Runs once when the Next.js server starts: a missing `FACEVERIFY_*` variable stops it here
 * with a ConfigurationError that names it, and polling for lost webhooks begins.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { faceverify } = await import('@/lib/faceverify');
  faceverify().receiver.start();
}
