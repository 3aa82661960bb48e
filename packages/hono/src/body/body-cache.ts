import type { HonoRequest } from 'hono';

/**
 * The entries of Hono's body cache that can hold the bytes, as they are at run time: the
 * promise a body method returned (Hono's own type names the resolved values). Other
 * entries (`json`, `formData`) hold parsed results only. An entry is only ever added by
 * reading the body, so any entry means the stream is spent.
 */
export interface BodyCache {
  arrayBuffer?: Promise<ArrayBuffer>;
  blob?: Promise<Blob>;
  text?: Promise<string>;
}

export function bodyCacheOf(req: HonoRequest): BodyCache {
  return req.bodyCache as unknown as BodyCache;
}
