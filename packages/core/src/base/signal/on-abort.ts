type Entry = () => void;

/** The callbacks waiting on each signal, behind the one listener this module gave it. */
const waiting = new WeakMap<AbortSignal, { entries: Set<Entry>; listener: () => void }>();

const nothing = () => undefined;

/**
 * Calls `callback` once when `signal` aborts; returns the function that stops waiting. However
 * many operations wait on one signal at once (a server's shutdown signal handed to every
 * request or every return page), the signal holds one listener of this library, added with
 * the first and removed with the last. One listener each would be no leak (each is removed
 * when its operation ends), but from the eleventh on Node warns of one
 * (MaxListenersExceededWarning), in the integrator's production log.
 */
export function onAbort(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal || signal.aborted) return nothing;
  let waiters = waiting.get(signal);
  if (!waiters) {
    const entries = new Set<Entry>();
    const listener = () => {
      waiting.delete(signal);
      for (const entry of [...entries]) entry();
      entries.clear();
    };
    waiters = { entries, listener };
    waiting.set(signal, waiters);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { entries, listener } = waiters;
  // Its own function, so that one callback registered twice is two entries.
  const entry: Entry = () => callback();
  entries.add(entry);
  return () => {
    if (!entries.delete(entry) || entries.size > 0) return;
    if (waiting.get(signal)?.entries === entries) waiting.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}
