/**
 * Turns a live object graph into plain JSON data: Maps become objects of their entries, Sets
 * arrays, class instances their own fields (TypeScript `private` fields included), functions
 * and repeated references are left out. It shows everything the emulator holds, not a curated
 * summary, so a check over it (say, that no plain token is kept) covers the real state.
 */
export function dumpToPlainData(
  value: unknown,
  seen: WeakSet<object> = new WeakSet<object>(),
): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  }
  if (seen.has(value)) return '[seen]';
  seen.add(value);
  if (value instanceof Map) {
    return Object.fromEntries(
      [...value].map(([key, entry]) => [String(key), dumpToPlainData(entry, seen)]),
    );
  }
  if (Array.isArray(value) || value instanceof Set) {
    return [...value].map((entry: unknown) => dumpToPlainData(entry, seen));
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [key, dumpToPlainData(entry, seen)]),
  );
}
