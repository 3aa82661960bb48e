import type { Context } from 'hono';

/** The request body parsed as a JSON object, or `null` when it is not one. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = JSON.parse(await c.req.text());
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
