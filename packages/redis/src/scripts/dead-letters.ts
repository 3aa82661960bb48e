import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

// Both scripts act on a record only while it is a dead letter (`failed` and retained), so of
// concurrent calls on one record, from any instance, exactly one applies.
const DEAD_LETTER_LUA = `
local key, now = ARGV[2], tonumber(ARGV[3])
if not declaredRecord(key) then return needsKeys() end
local rk = recordKey(key)
local f = redis.call('HMGET', rk, 'state', 'user', 'createdAt')
if f[1] ~= 'failed' or isPurged(rk, now) then return 0 end
`;

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, now.
 * Reopens a dead letter: `delivering`, due at now, attempts 0, result kept; back in the due
 * set and its user's open index, with an open record's TTL. Returns 1 when reopened, else 0.
 */
export const REDELIVER_DEAD_LETTER: LuaScript =
  storeScript(`${RECORD_LIFETIME_LUA}${DEAD_LETTER_LUA}
redis.call('ZREM', closedIndex(f[2]), key)
redis.call('HDEL', rk, 'purgeAt')
redis.call('HSET', rk, 'state', 'delivering', 'dueAt', ARGV[3], 'attempts', '0')
redis.call('ZADD', DUE, ARGV[3], key)
redis.call('ZADD', openIndex(f[2]), f[3], key)
keepOpen(key, now, 'failed')
return 1
`);

/**
 * KEYS: marker, due, state sets, record, its user's indexes. ARGV: prefix, key, now.
 * Removes a dead letter and every index entry of it. Returns 1 when removed, else 0.
 */
export const DISCARD_DEAD_LETTER: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${DEAD_LETTER_LUA}
purge(key)
return 1
`);

/**
 * KEYS: marker, due, state sets. ARGV: prefix, now.
 * Returns [due count, earliest due time or false]. A leased record is scored by its lease
 * end, so what is counted is what the next sweep can take. Two O(log N) reads of the due set.
 */
export const DUE_SUMMARY: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}
local due = redis.call('ZCOUNT', DUE, '-inf', ARGV[2])
local first = redis.call('ZRANGEBYSCORE', DUE, '-inf', ARGV[2], 'WITHSCORES', 'LIMIT', 0, 1)
return { due, first[2] or false }
`);
