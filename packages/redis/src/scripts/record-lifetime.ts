import { OPEN_RECORD_GRACE_MS } from '@faceverify/core/store';
import { DECLARED_KEYS_LUA } from './declared-keys.js';
import { CHECK_MARKER_LUA } from './marker.js';

// How long past both its `expiresAt` and its `dueAt` an open record is kept (the Store
// contract's rule 8): its Redis TTL is set from this, and refreshed whenever its due time moves.
export { OPEN_RECORD_GRACE_MS };

/**
 * How long Redis keeps a closed record or a digest past its logical end. Reads decide by the
 * `now` they are given, so this only delays cleanup: it keeps a record readable for an
 * instance whose clock lags a little, or while a read is on its way.
 */
export const CLEANUP_GRACE_MS = 60_000;

/**
 * Lua shared by the record scripts, after the marker check. ARGV[1] is the full key prefix
 * (the client's `keyPrefix` and the store's `prefix`). KEYS holds every key the script
 * touches (see declared-keys.ts): the marker first, `due` and the state sets always.
 *
 * Every key the store writes gets a TTL. A set that holds members (`due`, a user's indexes,
 * the per-state sets) is given a TTL no shorter than that of any record it was last told
 * about (`outlive`), so it outlives its members and vanishes after the last of them.
 */
export const RECORD_LIFETIME_LUA: string = `${CHECK_MARKER_LUA}
local P = ARGV[1]
local DUE = P .. 'due'
local OPEN_RECORD_GRACE_MS = ${OPEN_RECORD_GRACE_MS}
local CLEANUP_GRACE_MS = ${CLEANUP_GRACE_MS}

local function recordKey(key) return P .. 's:' .. key end
local function openIndex(user) return P .. 'uo:' .. user end
local function closedIndex(user) return P .. 'uc:' .. user end
local function stateSet(state) return P .. 'n:' .. state end

local function isOpen(state) return state == 'pending' or state == 'delivering' end

-- A finite number, or nil (a missing field, 'inf' or 'nan').
local function finite(text)
  local n = tonumber(text)
  if n and n == n and n > -math.huge and n < math.huge then return n end
  return nil
end

-- Integers up to 2^53 exactly, as Redis reads a score or a hash field.
local function fmt(n) return string.format('%.17g', n) end

local function outlive(container, ttl)
  local current = redis.call('PTTL', container)
  if current == -1 or (current >= 0 and current < ttl) then
    redis.call('PEXPIRE', container, ttl)
  end
end

-- Gives an open record the TTL of contract rule 8 (a day past both expiresAt and dueAt),
-- scores it in its state set by that same instant (so counts drop it with the record), and
-- makes the sets holding it outlive it. previous: its state before, when it changed.
local function keepOpen(key, now, previous)
  local rk = recordKey(key)
  local f = redis.call('HMGET', rk, 'user', 'state', 'expiresAt', 'dueAt')
  local lastUseful = finite(f[4]) or now
  local expiresAt = finite(f[3])
  if expiresAt and expiresAt > lastUseful then lastUseful = expiresAt end
  local dropAt = lastUseful + OPEN_RECORD_GRACE_MS
  local ttl = math.max(math.ceil(dropAt - now), CLEANUP_GRACE_MS)
  redis.call('PEXPIRE', rk, ttl)
  if previous and previous ~= f[2] then redis.call('ZREM', stateSet(previous), key) end
  redis.call('ZADD', stateSet(f[2]), fmt(dropAt), key)
  outlive(stateSet(f[2]), ttl)
  outlive(DUE, ttl)
  outlive(openIndex(f[1]), ttl)
end

-- Keeps a closed record readable until purgeAt, then lets Redis remove it; one whose
-- retention has already passed is removed at once.
local function retainClosed(key, user, state, purgeAt, now)
  local rk = recordKey(key)
  if purgeAt <= now then
    redis.call('DEL', rk)
    redis.call('ZREM', closedIndex(user), key)
    return
  end
  redis.call('HSET', rk, 'state', state, 'purgeAt', fmt(purgeAt))
  local ttl = math.ceil(purgeAt - now) + CLEANUP_GRACE_MS
  redis.call('PEXPIRE', rk, ttl)
  redis.call('ZADD', closedIndex(user), fmt(purgeAt), key)
  redis.call('ZADD', stateSet(state), fmt(purgeAt), key)
  outlive(closedIndex(user), ttl)
  outlive(stateSet(state), ttl)
end

-- Closes an open record: it ends its lease, leaves the due set and the user's open index.
local function close(key, state, purgeAt, now)
  local rk = recordKey(key)
  local f = redis.call('HMGET', rk, 'user', 'state')
  -- The sealed token is only needed to poll: once closed, nothing polls it again.
  redis.call('HDEL', rk, 'leaseOwner', 'leaseUntil', 'token')
  redis.call('ZREM', DUE, key)
  redis.call('ZREM', openIndex(f[1]), key)
  redis.call('ZREM', stateSet(f[2]), key)
  retainClosed(key, f[1], state, purgeAt, now)
end

-- Whether a closed record's retention has passed at now: it is gone, whatever Redis holds.
local function isPurged(rk, now)
  local purgeAt = finite(redis.call('HGET', rk, 'purgeAt'))
  return purgeAt ~= nil and purgeAt <= now
end

-- Removes a record and every index entry of it.
local function purge(key)
  local rk = recordKey(key)
  local f = redis.call('HMGET', rk, 'user', 'state')
  if f[1] then
    redis.call('ZREM', openIndex(f[1]), key)
    redis.call('ZREM', closedIndex(f[1]), key)
  end
  if f[2] then redis.call('ZREM', stateSet(f[2]), key) end
  redis.call('ZREM', DUE, key)
  redis.call('DEL', rk)
end
${DECLARED_KEYS_LUA}`;
