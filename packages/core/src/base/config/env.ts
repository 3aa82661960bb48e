/**
 * Reads an environment variable where one exists (Node, Bun, Deno with env access). On
 * Workers there is no process environment: pass options explicitly there. A variable the
 * runtime refuses to show (Deno without `--allow-env` for it throws `NotCapable`) is unset:
 * an optional one must not stop an app that was not granted it, and a required one is then
 * reported missing by name, with the fix.
 */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  let value: string | undefined;
  try {
    value = env?.[name];
  } catch {
    return undefined;
  }
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export const ENV = {
  webhookSecret: 'FACEVERIFY_WEBHOOK_SECRET',
  apiKey: 'FACEVERIFY_API_KEY',
  baseUrl: 'FACEVERIFY_BASE_URL',
  pollScheduleMs: 'FACEVERIFY_POLL_SCHEDULE_MS',
  tokenKeys: 'FACEVERIFY_TOKEN_KEYS',
} as const;
