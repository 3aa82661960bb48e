/**
 * The first element of a script's reply that asks to be run again with more keys: it found
 * it must touch keys it was not given in KEYS, and it stopped before writing anything.
 * The second element lists them (full names, the client's `keyPrefix` included).
 */
export const NEEDS_KEYS = 'faceverify:needs-keys';

/**
 * Lua shared by the record scripts (after RECORD_LIFETIME_LUA). Redis Cluster moves a slot
 * key by key and decides where a script runs, or asks it to wait (TRYAGAIN), from the keys in
 * KEYS alone; a script touching a key it did not declare could read or write on a node that
 * no longer holds it. So every script first works out every key it will touch, reading only
 * declared keys; `declared` notes the ones missing, and when there are any the script returns
 * `needsKeys()` before its first write, and the store runs it again with them.
 */
export const DECLARED_KEYS_LUA: string = `
local DECLARED, UNDECLARED = {}, {}
for _, k in ipairs(KEYS) do DECLARED[k] = true end

-- Whether every key given is in KEYS; the missing ones are noted for needsKeys().
local function declared(...)
  local all = true
  for _, k in ipairs({ ... }) do
    if DECLARED[k] == nil then
      DECLARED[k] = false
      UNDECLARED[#UNDECLARED + 1] = k
    end
    if not DECLARED[k] then all = false end
  end
  return all
end

-- Whether a record and both indexes of its user are declared (reading the record if it is).
local function declaredRecord(key)
  local rk = recordKey(key)
  if not declared(rk) then return false end
  local user = redis.call('HGET', rk, 'user')
  if not user then return true end
  return declared(openIndex(user), closedIndex(user))
end

local function needsKeys() return { '${NEEDS_KEYS}', UNDECLARED } end
`;
