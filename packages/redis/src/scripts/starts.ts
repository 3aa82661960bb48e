import type { LuaScript } from '../lua-script.js';
import { storeScript } from './marker.js';
import { RECORD_LIFETIME_LUA } from './record-lifetime.js';

/**
 * Lua shared by the scripts that touch starts (`claimStart`, `endStart`, `insert` with a start,
 * `forgetUser`), after RECORD_LIFETIME_LUA. A start is a hash, `st:<startKey>`:
 * - `user`: the user, as records hold it; the start is listed in that user's `us:<user>`.
 * - `record`: the record it was last inserted with.
 * - `owner`, `claimUntil`: the claim of whoever is creating its session, while it holds.
 * A count is a hash, `c:<counter key>`: `count`, and `until`, the end of its period.
 *
 * Every key of the store shares the prefix's hash tag, so on a Cluster a start, its record,
 * its user's indexes and every count, the account's as well as the user's, are in one slot:
 * one script checks and counts them all with the claim, atomically.
 *
 * A start is kept while its claim holds or its record can still be reused (until the record's
 * `expiresAt`), plus CLEANUP_GRACE_MS: past that, a claim would be granted anyway.
 */
export const START_LUA: string = `
local function startKey(start) return P .. 'st:' .. start end
local function startIndex(user) return P .. 'us:' .. user end
local function startCountKey(counter) return P .. 'c:' .. counter end

-- Keeps a start until keepUntil at least, listed in its user's index until then. Entries of
-- the index that ended long ago go, so the index stays as small as the user's live starts.
local function keepStart(start, user, keepUntil, now)
  local ttl = math.max(math.ceil(keepUntil - now), 0) + CLEANUP_GRACE_MS
  outlive(startKey(start), ttl)
  local index = startIndex(user)
  redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. fmt(now - CLEANUP_GRACE_MS))
  local score = tonumber(redis.call('ZSCORE', index, start))
  if not score or score < keepUntil then redis.call('ZADD', index, fmt(keepUntil), start) end
  outlive(index, ttl)
end

-- The start names the record inserted with it from now on; owner's claim ends, and another
-- owner's (a claim that lapsed and was taken over) is left to it.
local function startInserted(start, owner, key, user, now)
  local sk = startKey(start)
  local claim = redis.call('HMGET', sk, 'owner', 'claimUntil')
  local rk = recordKey(key)
  local expiresAt = redis.call('HGET', rk, 'expiresAt')
  local keepUntil = finite(expiresAt)
  -- An endless expiry: the start is kept as long as Redis keeps the record now.
  if not keepUntil then keepUntil = now + math.max(redis.call('PTTL', rk), 0) end
  redis.call('HSET', sk, 'user', user, 'record', key)
  if claim[1] and claim[1] ~= owner then
    keepUntil = math.max(keepUntil, finite(claim[2]) or now)
  else
    redis.call('HDEL', sk, 'owner', 'claimUntil')
  end
  keepStart(start, user, keepUntil, now)
end
`;

/**
 * KEYS: marker, due, state sets, the start, its user's start index, every counter, and the
 * record the start names when known (see RedisStore's `startRecords`). ARGV: prefix,
 * startKey, externalUserId, owner, now, end of the claim, reuseMinLifetimeMs ('' for a fresh
 * session), then four per counter: its key, limit ('' for none), '1' when read only, ttlMs.
 *
 * Returns `{ 'reuse', key, fields }` (the record to hand out again, as HGETALL gives it),
 * `{ 'busy', claimUntil }`, `{ 'limited', counter index from 0, counts }` or
 * `{ 'granted', counts }` (each count after this claim's). The outcomes, in this order, are
 * `StartClaims.claim`'s (core): one script, so concurrent claims on any instance see each
 * other's whole step, and a claim refused counts nothing.
 */
export const CLAIM_START: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${START_LUA}
local start, user, owner = ARGV[2], ARGV[3], ARGV[4]
local now, claimUntil = tonumber(ARGV[5]), tonumber(ARGV[6])
local reuseBy = ARGV[7] ~= '' and now + tonumber(ARGV[7]) or nil
local sk = startKey(start)
local counters = {}
for i = 8, #ARGV, 4 do
  counters[#counters + 1] = {
    key = startCountKey(ARGV[i]),
    limit = tonumber(ARGV[i + 1]),
    readOnly = ARGV[i + 2] == '1',
    ttl = tonumber(ARGV[i + 3]),
  }
end
declared(sk, startIndex(user))
for _, counter in ipairs(counters) do declared(counter.key) end
local s = redis.call('HMGET', sk, 'record', 'owner', 'claimUntil')
-- The record is read only when a session is to be reused.
local candidate = reuseBy and s[1]
if candidate then declared(recordKey(s[1])) end
if #UNDECLARED > 0 then return needsKeys() end

local counts, live = {}, {}
for i, counter in ipairs(counters) do
  local f = redis.call('HMGET', counter.key, 'count', 'until')
  live[i] = (finite(f[2]) or now) > now
  counts[i] = live[i] and tonumber(f[1]) or 0
end

if candidate then
  local rk = recordKey(s[1])
  local f = redis.call('HMGET', rk, 'state', 'expiresAt')
  local expiresAt = tonumber(f[2])
  if f[1] == 'pending' and expiresAt and expiresAt >= reuseBy then
    return { 'reuse', s[1], redis.call('HGETALL', rk) }
  end
end
if s[2] and s[2] ~= owner and (finite(s[3]) or now) > now then return { 'busy', s[3] } end
for i, counter in ipairs(counters) do
  if not counter.readOnly and counter.limit and counts[i] >= counter.limit then
    return { 'limited', i - 1, counts }
  end
end

for i, counter in ipairs(counters) do
  if not counter.readOnly then
    if live[i] then
      counts[i] = redis.call('HINCRBY', counter.key, 'count', 1)
    else
      counts[i] = 1
      redis.call('HSET', counter.key, 'count', 1, 'until', fmt(now + counter.ttl))
      redis.call('PEXPIRE', counter.key, math.ceil(counter.ttl) + CLEANUP_GRACE_MS)
    end
  end
end
redis.call('HSET', sk, 'user', user, 'owner', owner, 'claimUntil', fmt(claimUntil))
keepStart(start, user, claimUntil, now)
return { 'granted', counts }
`);

/**
 * KEYS: marker, due, state sets, the start. ARGV: prefix, startKey, owner, now.
 * Ends `owner`'s claim of the start, when it still holds it; a start that names no record
 * then holds nothing and goes (its entry in the user's index ends with the index).
 * Returns 1 when it ended the claim, 0 otherwise.
 */
export const END_START: LuaScript = storeScript(`${RECORD_LIFETIME_LUA}${START_LUA}
local sk = startKey(ARGV[2])
if not declared(sk) then return needsKeys() end
local s = redis.call('HMGET', sk, 'owner', 'record')
if s[1] ~= ARGV[3] then return 0 end
if s[2] then
  redis.call('HDEL', sk, 'owner', 'claimUntil')
else
  redis.call('DEL', sk)
end
return 1
`);
