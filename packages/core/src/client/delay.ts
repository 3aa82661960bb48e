import type { Clock } from '../base/clock/clock.js';
import { onAbort } from '../base/signal/on-abort.js';

/** Waits `ms` milliseconds; an abort rejects at once with the signal's reason and clears the timer. */
export function delay(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = clock.setTimeout(() => {
      stopListening();
      resolve();
    }, ms);
    const stopListening = onAbort(signal, () => {
      clock.clearTimeout(timer);
      reject(signal?.reason);
    });
  });
}
