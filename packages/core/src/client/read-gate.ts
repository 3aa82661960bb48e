import type { Clock } from '../base/clock/clock.js';
import { RateLimitError } from '../base/errors.js';
import { onAbort } from '../base/signal/on-abort.js';

/**
 * Who asked for a session read. `background` reads (the Tracker's polls, a webhook's
 * confirmation) keep results flowing and go first; `interactive` reads (`confirm()` on the
 * redirect, reachable by anyone who can load the integrator's return page) take what is left
 * and never wait out a `429`.
 */
export type ReadPriority = 'background' | 'interactive';

/** Marks a read as finished; calling it again does nothing. */
export type FinishRead = () => void;

interface Waiter {
  waitOut: boolean;
  resolve: (finish: FinishRead) => void;
  reject: (reason: unknown) => void;
  /** Stops waiting for the caller's signal: called when the waiter leaves the queue. */
  stopListening: () => void;
}

/**
 * The gate every `GET /v1/sessions/:token` of one API key passes: at most `maxInFlight`
 * reads at once, background readers served before interactive ones, and, after the
 * service answered `429`, nobody let through until its `retry_after_ms` has passed.
 * An interactive read that would have to wait out a `429` fails at once with
 * `RateLimitError` (its `retryAfterMs` says when to try again), so a flood on a public page
 * neither holds requests open nor crowds out the polls that deliver results.
 */
export class ReadGate {
  private inFlight = 0;
  private heldUntil = 0;
  private timer: unknown;
  private readonly queues: Record<ReadPriority, Waiter[]> = { background: [], interactive: [] };

  constructor(
    private readonly clock: Clock,
    private readonly maxInFlight: number,
  ) {}

  /**
   * Resolves with the function to call when the read is done. A reader that does not wait
   * out a `429` (`waitOut: false`) is refused at once while the key is held.
   */
  acquire(
    priority: ReadPriority,
    {
      signal,
      waitOut = priority === 'background',
    }: { signal?: AbortSignal | undefined; waitOut?: boolean } = {},
  ): Promise<FinishRead> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!waitOut) this.refuseWhileHeld();
    return new Promise((resolve, reject) => {
      const queue = this.queues[priority];
      const waiter: Waiter = {
        waitOut,
        resolve,
        reject,
        stopListening: () => undefined,
      };
      waiter.stopListening = onAbort(signal, () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(signal?.reason);
      });
      queue.push(waiter);
      this.pump();
    });
  }

  /** The service answered `429`: hold every reader of this key for `delayMs`. */
  holdFor(delayMs: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.clock.now() + delayMs);
    // Readers still queued that do not wait out a 429 fail now instead.
    for (const queue of Object.values(this.queues)) {
      for (const waiter of queue.filter((queued) => !queued.waitOut)) {
        queue.splice(queue.indexOf(waiter), 1);
        waiter.stopListening();
        waiter.reject(this.heldError());
      }
    }
  }

  /** Throws when an interactive read would have to wait out a `429`. */
  refuseWhileHeld(): void {
    if (this.clock.now() < this.heldUntil) throw this.heldError();
  }

  private heldError(): RateLimitError {
    return new RateLimitError(
      'GET /v1/sessions/:token is rate limited for this API key; try again after retryAfterMs.',
      Math.max(1, Math.ceil(this.heldUntil - this.clock.now())),
    );
  }

  private pump(): void {
    const now = this.clock.now();
    if (now < this.heldUntil) {
      if (this.timer === undefined) {
        this.timer = this.clock.setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, this.heldUntil - now);
      }
      return;
    }
    while (this.inFlight < this.maxInFlight) {
      const waiter = this.queues.background.shift() ?? this.queues.interactive.shift();
      if (!waiter) return;
      waiter.stopListening();
      this.inFlight++;
      let finished = false;
      waiter.resolve(() => {
        if (finished) return;
        finished = true;
        this.inFlight--;
        this.pump();
      });
    }
  }
}
