/**
 * Virtual time for the whole simulated system: every timer of every instance, every network
 * answer and every step of the schedule is an event here, run in time order (ties in the
 * order they were set). Between two events, all work that is ready runs to its end (promise
 * chains; the system under test does no real I/O in a simulation), so one seed is one run.
 */
interface Scheduled {
  at: number;
  seq: number;
  run: () => void;
}

// One macrotask turn: every promise chain that is ready runs before it ends.
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Scheduler {
  private readonly queue: Scheduled[] = [];
  private seq = 0;
  private cancelled = new Set<number>();
  private blocking: Promise<unknown>[] = [];

  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  /** Runs `run` at `at` (never before now); returns a handle for `cancel`. */
  at(at: number, run: () => void): number {
    const event = { at: Math.max(at, this.time), seq: ++this.seq, run };
    // A binary heap would be faster; runs hold a few thousand events, and a sorted insert
    // keeps the order obvious.
    let low = 0;
    let high = this.queue.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const other = this.queue[middle]!;
      if (other.at < event.at || (other.at === event.at && other.seq < event.seq)) {
        low = middle + 1;
      } else high = middle;
    }
    this.queue.splice(low, 0, event);
    return event.seq;
  }

  after(ms: number, run: () => void): number {
    return this.at(this.time + ms, run);
  }

  cancel(handle: number): void {
    this.cancelled.add(handle);
  }

  /**
   * Holds time still until `work` is done: for work that waits on something outside the
   * simulation (a key derivation on the thread pool), so that its real duration cannot change
   * the order of events.
   */
  block(work: Promise<unknown>): void {
    this.blocking.push(work);
  }

  /** Resolves after `ms` of virtual time. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  /** Runs every event up to `until`, each followed by the work it made ready. */
  async runUntil(until: number): Promise<void> {
    await turn();
    while (this.queue.length > 0 && this.queue[0]!.at <= until) {
      const event = this.queue.shift()!;
      if (this.cancelled.delete(event.seq)) continue;
      this.time = event.at;
      event.run();
      await turn();
      while (this.blocking.length > 0) {
        await this.blocking.shift();
        await turn();
      }
    }
    this.time = until;
    await turn();
  }
}
