import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * KEYS: any key of the store (routing only). ARGV: prefix, now.
 * Returns [pending, delivering, completed, expired, failed].
 *
 * Each state has a sorted set of its records scored by when each ends (a closed record's
 * purge time, an open record's drop time of contract rule 8). The members past `now` are
 * trimmed, the rest counted: O(log N) plus what is trimmed, and no call scans the records.
 */
export const COUNTS: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}
local counts = {}
for i, state in ipairs({ 'pending', 'delivering', 'completed', 'expired', 'failed' }) do
  redis.call('ZREMRANGEBYSCORE', stateSet(state), '-inf', ARGV[2])
  counts[i] = redis.call('ZCARD', stateSet(state))
end
return counts
`);
