import { LuaScript } from '../lua-script.js';

/**
 * The reply of a script that found the store's marker gone or replaced: Redis lost what the
 * store wrote (a restart without persistence, a flush, an eviction) since this instance last
 * looked. The script stops before it reads or writes anything else.
 */
export const MARKER_MISMATCH = 'FACEVERIFY_MARKER_MISMATCH';

/**
 * The reply of a script that found this instance's write count lower than Redis had
 * acknowledged: Redis went back in time (a failover to a replica that was behind, a restore
 * from an older file). The count Redis holds follows, then the message. The script stops
 * before it reads or writes anything else.
 */
export const REWOUND = 'FACEVERIFY_REWOUND';

/** How long an instance's write count is kept after its last script (refreshed by each). */
export const WRITER_TTL_MS: number = 7 * 86_400_000;

/**
 * Lua run first by every script. KEYS[1] is the marker, written when the store is first used
 * and never given a TTL; ARGV[1] is the marker value this instance knows, taken off ARGV so
 * the script's own arguments start at ARGV[1]. A marker gone (or armed again by another
 * instance after a loss) is what tells a reset from a fresh install.
 *
 * Then the instance's write count: ARGV[1] (taken off too) names its key (declared in KEYS),
 * ARGV[2] is the highest count Redis acknowledged to this instance. Each script adds one and
 * returns the new count beside its reply (see `storeScript`): only this instance writes that
 * key, so Redis holding less than it acknowledged means acknowledged writes are gone, which
 * a marker that was replicated long before cannot tell. Costs one GET and one SET inside the
 * script, no round trip. An instance that counts nothing (`watchRewinds: false`) sends an
 * empty name: no count is read or written, and 0 comes back.
 */
export const CHECK_MARKER_LUA: string = `
if redis.call('GET', KEYS[1]) ~= table.remove(ARGV, 1) then
  return redis.error_reply('${MARKER_MISMATCH} the store marker changed: Redis lost its data')
end
local writerKey = table.remove(ARGV, 1)
local writerSeen = tonumber(table.remove(ARGV, 1))
WRITER_AT = 0
if writerKey ~= '' then
  WRITER_AT = tonumber(redis.call('GET', writerKey)) or 0
  if WRITER_AT < writerSeen then
    return redis.error_reply('${REWOUND} ' .. WRITER_AT .. ' Redis holds fewer writes of this instance than it acknowledged')
  end
  WRITER_AT = WRITER_AT + 1
  redis.call('SET', writerKey, WRITER_AT, 'PX', ${WRITER_TTL_MS})
end
`;

/**
 * A store script: `source` (which runs CHECK_MARKER_LUA first) inside a function, so that
 * its reply comes back as `[write count, reply]` whatever it returns. Errors pass as they are.
 */
export function storeScript(source: string): LuaScript {
  return new LuaScript(`local WRITER_AT
local reply = (function()
${source}
end)()
if type(reply) == 'table' and reply.err then return reply end
return { WRITER_AT, reply }
`);
}

/** Whether a script stopped because the marker is not the one this instance knows. */
export function isMarkerMismatch(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(MARKER_MISMATCH);
}

/** The write count Redis holds, when a script stopped because Redis went back in time. */
export function rewoundTo(error: unknown): number | undefined {
  if (!(error instanceof Error) || !error.message.startsWith(REWOUND)) return undefined;
  const count = Number(error.message.slice(REWOUND.length).trim().split(' ')[0]);
  return Number.isSafeInteger(count) ? count : undefined;
}
