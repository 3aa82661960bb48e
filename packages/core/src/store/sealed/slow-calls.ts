import type { Clock } from '../../base/clock/clock.js';

/** A store call in flight: what it is, and when it began (on the elapsed clock). */
interface Call {
  method: string;
  at: number;
  reported: boolean;
  /** What `onSlow` asked to be called when this call, reported slow, ends. */
  ended: (() => void) | undefined;
}

/**
 * Store calls in flight, and the one that has waited `slowMs` reported to `onSlow` at that
 * moment, while it waits, not when (or if) it ends: a stalled store is otherwise silent, and
 * webhooks wait on it until their senders give up.
 *
 * A call costs an entry in a map, set when it begins and deleted when it ends; no timer is set
 * or cleared per call. One timer of `clock`, armed when a call begins and none is armed, fires
 * at the oldest call's threshold: it reports every call past it, and is armed again for the
 * next call's while any is in flight (never cleared: it finds nothing to do when all ended).
 */
export class SlowCalls {
  // Insertion order is start order, which is due order: a check stops at the first call not due.
  private readonly calls = new Map<number, Call>();
  private lastId = 0;
  private armed = false;
  // Elapsed time: the monotonic clock where the Clock has one, else its wall clock.
  private readonly elapsed: () => number;

  constructor(
    private readonly clock: Clock,
    private readonly slowMs: number,
    /** Told of a call past `slowMs` while it waits; what it returns is called when it ends. */
    private readonly onSlow: (method: string) => (() => void) | undefined,
  ) {
    this.elapsed = clock.monotonic ? () => clock.monotonic!() : () => clock.now();
  }

  /** Notes a call of `method` as in flight; `end` it with the id given. */
  begin(method: string): number {
    this.lastId += 1;
    this.calls.set(this.lastId, { method, at: this.elapsed(), reported: false, ended: undefined });
    if (!this.armed) this.arm(this.slowMs);
    return this.lastId;
  }

  end(id: number): void {
    const call = this.calls.get(id);
    if (!call) return;
    this.calls.delete(id);
    call.ended?.();
  }

  /** `answer`, watched while it is pending. */
  watch<T>(method: string, answer: Promise<T>): Promise<T> {
    const id = this.begin(method);
    return answer.then(
      (value) => {
        this.end(id);
        return value;
      },
      (error: unknown) => {
        this.end(id);
        throw error;
      },
    );
  }

  private arm(ms: number): void {
    this.armed = true;
    this.clock.setTimeout(this.check, ms);
  }

  private readonly check = (): void => {
    this.armed = false;
    const now = this.elapsed();
    const slow: Call[] = [];
    for (const call of this.calls.values()) {
      if (call.reported) continue;
      const dueIn = call.at + this.slowMs - now;
      if (dueIn > 0) {
        this.arm(dueIn);
        break;
      }
      call.reported = true;
      slow.push(call);
    }
    // Armed again first: a listener that throws does not stop the watch.
    for (const call of slow) call.ended = this.onSlow(call.method);
  };
}
