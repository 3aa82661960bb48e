import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';

const decoder = new TextDecoder();

/** The request body (read by `readBody`) parsed as a JSON object, or `null` when it is not one. */
export function readJsonObject(c: Context<AppEnv>): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(decoder.decode(c.get('body')));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
