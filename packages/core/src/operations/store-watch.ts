import type { Clock } from '../clock/clock.js';
import { FixedDelayTimers } from '../clock/fixed-delay-timers.js';
import type { Store } from '../store/store.js';

// The calls a Receiver waits on. `settleWith` is not among them: it runs the handlers in its
// transaction, for as long as they take.
const WATCHED: ReadonlySet<PropertyKey> = new Set<keyof Store>([
  'insert',
  'get',
  'findByUser',
  'remember',
  'forget',
  'attachResult',
  'attachAndLease',
  'lease',
  'leaseDue',
  'settle',
  'counts',
  'listDeadLetters',
  'redeliverDeadLetter',
  'discardDeadLetter',
  'dueSummary',
  'forgetUser',
]);

/**
 * `store`, with each call it answers watched: a call still unanswered after `slowMs` (on
 * `clock`) is reported to `onSlow` at that moment, while it waits, not when (or if) it ends;
 * what `onSlow` returns is called when it ends.
 * A stalled store is otherwise silent: webhooks wait on it until their senders give up. One
 * timer of `clock` serves every call in flight (`FixedDelayTimers`), started and cancelled
 * per call.
 */
export function watchStore<S extends Store>(
  store: S,
  clock: Clock,
  slowMs: number,
  /** May return what to do when the slow call ends (answered or failed). */
  onSlow: (method: string) => (() => void) | undefined,
): S {
  const timers = new FixedDelayTimers(clock, slowMs);
  const watched = new Map<PropertyKey, unknown>();
  const watch = (method: string, call: (...args: unknown[]) => unknown) =>
    function watchedCall(...args: unknown[]) {
      const answer = call.apply(store, args);
      if (!(answer instanceof Promise)) return answer;
      let ended: (() => void) | undefined;
      const timer = timers.start(() => {
        ended = onSlow(method);
      });
      const settled = () => {
        timers.cancel(timer);
        ended?.();
      };
      answer.then(settled, settled);
      return answer;
    };
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || !WATCHED.has(property)) return value;
      let wrapped = watched.get(property);
      if (wrapped === undefined) {
        wrapped = watch(String(property), value as (...args: unknown[]) => unknown);
        watched.set(property, wrapped);
      }
      return wrapped;
    },
  });
}
