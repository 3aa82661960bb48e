/**
 * The reply of a script that found the store's marker gone or replaced: Redis lost what the
 * store wrote (a restart without persistence, a flush, an eviction) since this instance last
 * looked. The script stops before it reads or writes anything else.
 */
export const MARKER_MISMATCH = 'FACEVERIFY_MARKER_MISMATCH';

/**
 * Lua run first by every script. KEYS[1] is the marker, written when the store is first used
 * and never given a TTL; ARGV[1] is the marker value this instance knows, taken off ARGV so
 * the script's own arguments start at ARGV[1]. A marker gone (or armed again by another
 * instance after a loss) is what tells a reset from a fresh install.
 */
export const CHECK_MARKER_LUA = `
if redis.call('GET', KEYS[1]) ~= table.remove(ARGV, 1) then
  return redis.error_reply('${MARKER_MISMATCH} the store marker changed: Redis lost its data')
end
`;

/** Whether a script stopped because the marker is not the one this instance knows. */
export function isMarkerMismatch(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(MARKER_MISMATCH);
}
