import { type Clock, systemClock, type TimerHandle } from '../base/clock/clock.js';
import { onAbort } from '../base/signal/on-abort.js';

/** The system's timers with monotonic time: pacing must not jump with the wall clock. */
const monotonicClock: Clock = { ...systemClock, now: () => performance.now() };

/** At most `limit` sends in any `windowMs` long stretch of time. */
export interface PaceLimits {
  limit: number;
  windowMs: number;
}

/** Marks a send as finished (answered, failed or given up); calling it again does nothing. */
export type FinishSend = () => void;

interface Send {
  /** When the send finished; `undefined` while it is in flight. */
  finishedAt: number | undefined;
}

interface Waiter {
  limits: PaceLimits;
  resolve: (finish: FinishSend) => void;
  reject: (reason: unknown) => void;
  /** Stops waiting for the caller's signal: called when the waiter leaves the queue. */
  stopListening: () => void;
}

/**
 * A sliding-window limiter with a FIFO queue: callers wait for their turn instead of failing.
 *
 * The service counts a request when it arrives, which is some time after it was let through
 * here and before its answer is back. So a send occupies its slot from the moment it is let
 * through until `windowMs` after it finished: then no window of the service can hold more
 * than `limit` of them, whatever the network delays. Each waiter carries its own limits, so
 * clients configured differently can share one pacer; the head of the queue decides, which
 * keeps the order strict. Times are monotonic (`this.clock.now()`), immune to clock changes.
 */
export class SlidingWindowPacer {
  private sends: Send[] = [];
  private readonly queue: Waiter[] = [];
  private timer: TimerHandle | undefined;
  private heldUntil = 0;
  private longestWindowMs = 0;

  constructor(private readonly clock: Clock = monotonicClock) {}

  /**
   * Resolves when a send is allowed, with the function to call once it has finished. An
   * abort removes the caller from the queue and rejects with the signal's reason. `front`
   * puts the caller ahead of everyone, for a retry that had already had its turn.
   */
  acquire(limits: PaceLimits, signal?: AbortSignal, front = false): Promise<FinishSend> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.longestWindowMs = Math.max(this.longestWindowMs, limits.windowMs);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        limits,
        resolve,
        reject,
        stopListening: () => undefined,
      };
      waiter.stopListening = onAbort(signal, () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal?.reason);
        this.pump();
      });
      if (front) this.queue.unshift(waiter);
      else this.queue.push(waiter);
      this.pump();
    });
  }

  /**
   * After a `429`: lets nobody through for `delayMs`, since the service just said the key is
   * over its limit, then lets this caller go first.
   */
  acquireAfter(delayMs: number, limits: PaceLimits, signal?: AbortSignal): Promise<FinishSend> {
    this.heldUntil = Math.max(this.heldUntil, this.clock.now() + delayMs);
    return this.acquire(limits, signal, true);
  }

  /**
   * When a send of `limits` may go: `now`, a later time, or `undefined` when it depends on
   * sends still in flight, whose finishing calls `pump` again.
   */
  private readyAt(limits: PaceLimits, now: number): number | undefined {
    // A finished send counts while at most `windowMs` old: counting the boundary stays on the
    // safe side of the service's own comparison.
    const freedAt = this.sends
      .map((send) =>
        send.finishedAt === undefined
          ? Number.POSITIVE_INFINITY
          : send.finishedAt + limits.windowMs,
      )
      .filter((time) => time >= now)
      .sort((a, b) => a - b);
    const excess = freedAt.length - limits.limit;
    const windowFreeAt = excess < 0 ? now : (freedAt[excess] as number);
    if (windowFreeAt === Number.POSITIVE_INFINITY) return undefined;
    return Math.max(windowFreeAt + (excess < 0 ? 0 : 1), this.heldUntil);
  }

  private start(): FinishSend {
    const send: Send = { finishedAt: undefined };
    this.sends.push(send);
    return () => {
      if (send.finishedAt !== undefined) return;
      send.finishedAt = this.clock.now();
      this.pump();
    };
  }

  private pump(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const now = this.clock.now();
    this.sends = this.sends.filter(
      (send) => send.finishedAt === undefined || now - send.finishedAt <= this.longestWindowMs,
    );
    for (let head = this.queue[0]; head; head = this.queue[0]) {
      const readyAt = this.readyAt(head.limits, now);
      if (readyAt === undefined) return;
      if (readyAt > now) {
        // Timers may fire a little early; `pump` checks again and waits the rest.
        this.timer = this.clock.setTimeout(() => this.pump(), readyAt - now);
        return;
      }
      this.queue.shift();
      head.stopListening();
      head.resolve(this.start());
    }
  }
}
