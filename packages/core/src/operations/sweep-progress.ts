/**
 * When this Receiver's sweeps ran, on the clock leases follow: what tells why due work waited
 * (`checkBacklog`). Sweeps that ran to their end while it waited did not keep up; a sweep that
 * ran from before it was due until now (or still runs) was held (by a handler, or the
 * service's API); sweeps that
 * failed since did so on the store; and none at all since means sweeps do not run.
 */
export class SweepProgress {
  /** When the sweep running now began; `undefined` while none runs. */
  private runningSince: number | undefined;
  /** When the latest sweep that ran to its end began, and when it ended. */
  private completed: { began: number; ended: number } | undefined;
  /** When a sweep last failed (the store, mostly). */
  private failedAt: number | undefined;

  /** Runs `sweep`, noting when it began and how it ended. */
  async track<T>(now: () => number, sweep: () => Promise<T>): Promise<T> {
    const began = now();
    this.runningSince = began;
    try {
      const report = await sweep();
      this.completed = { began, ended: now() };
      return report;
    } catch (error) {
      this.failedAt = now();
      throw error;
    } finally {
      if (this.runningSince === began) this.runningSince = undefined;
    }
  }

  /**
   * Why work due since `dueAt` still waits at `now`; `lostAt`: when the store last said it lost
   * acknowledged writes (which can undo what a sweep took).
   */
  whyWaiting(dueAt: number, now: number, lostAt: number): WhyWaiting {
    const { completed, runningSince } = this;
    if (completed !== undefined && lostAt >= completed.began) return { kind: 'lost' };
    if (completed !== undefined && completed.began >= dueAt) return { kind: 'behind' };
    if (runningSince !== undefined && runningSince < dueAt) {
      return { kind: 'held', forMs: now - runningSince };
    }
    // The latest sweep began before it was due and ended after: it held until then.
    if (completed !== undefined && completed.ended >= dueAt) {
      return { kind: 'held', forMs: completed.ended - completed.began };
    }
    if (this.failedAt !== undefined && this.failedAt >= dueAt) return { kind: 'failing' };
    return { kind: 'idle' };
  }
}

/**
 * `behind`: sweeps ran to their end meanwhile and left it (throughput); `held`: one sweep ran
 * from before it was due until now, or still runs; `lost`: the store lost writes since the
 * latest sweep began; `failing`: sweeps failed since; `idle`: none ran since.
 */
export type WhyWaiting =
  | { kind: 'behind' }
  | { kind: 'held'; forMs: number }
  | { kind: 'failing' }
  | { kind: 'lost' }
  | { kind: 'idle' };
