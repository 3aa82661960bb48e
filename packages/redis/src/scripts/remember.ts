import type { LuaScript } from '../lua-script.js';
import { CHECK_MARKER_LUA, storeScript } from './marker.js';
import { CLEANUP_GRACE_MS } from './record-lifetime.js';

/**
 * KEYS: the marker, the digest's key. ARGV: now, end of the window (now + ttlMs), Redis TTL in ms.
 * Returns 1 when the digest was not remembered at `now`, and remembers it until the end
 * of the window; 0 otherwise. The key holds the window's end, so that the `now` passed in
 * decides, not Redis' clock; its TTL only cleans up.
 */
export const REMEMBER: LuaScript = storeScript(`${CHECK_MARKER_LUA}
local rememberedUntil = tonumber(redis.call('GET', KEYS[2]))
if rememberedUntil and rememberedUntil > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`);

/** The Redis TTL of a digest remembered for `ttlMs`: the window, plus cleanup grace. */
export function digestTtlMs(ttlMs: number): number {
  return Math.max(0, Math.ceil(ttlMs)) + CLEANUP_GRACE_MS;
}
