/**
 * Reads an environment variable where one exists (Node, Bun, Deno with env access). On
 * Workers there is no process environment: pass options explicitly there.
 */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const value = env?.[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export const ENV = {
  webhookSecret: 'FACEVERIFY_WEBHOOK_SECRET',
  apiKey: 'FACEVERIFY_API_KEY',
  baseUrl: 'FACEVERIFY_BASE_URL',
  pollScheduleMs: 'FACEVERIFY_POLL_SCHEDULE_MS',
} as const;
