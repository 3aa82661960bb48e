import type { Clock } from '../clock/clock.js';

/** What the Receiver counts, for `health()` and its alarms. */
export type ActivityKind =
  | 'webhook_accepted'
  | 'signature_missing'
  | 'signature_invalid'
  | 'payload_invalid'
  | 'raw_body_unavailable'
  | 'store_unavailable'
  | 'handler_failed'
  | 'delivered_by_webhook'
  | 'delivered_by_poll'
  | 'undeliverable'
  /** A sweep left work due for longer than `BACKLOG_ALARM_AGE_MS`. */
  | 'backlog_growing';

const BUCKET_MS = 60_000;

/**
 * Counts of what happened over the last `windowMs`, in one-minute buckets: a few numbers per
 * kind whatever the traffic, and a count read without scanning events.
 */
export class ActivityWindow {
  private readonly buckets = new Map<ActivityKind, { start: number; count: number }[]>();
  private readonly last = new Map<ActivityKind, number>();
  private readonly details = new Map<ActivityKind, string>();

  constructor(
    private readonly clock: Clock,
    readonly windowMs: number,
    /** Called after each record, e.g. to check the alarms. */
    private readonly onRecord: (kind: ActivityKind) => void = () => undefined,
  ) {}

  /** Counts one `kind`; `detail` (the newest wins) can say how to fix it. */
  record(kind: ActivityKind, detail?: string): void {
    const now = this.clock.now();
    if (detail !== undefined) this.details.set(kind, detail);
    const start = now - (now % BUCKET_MS);
    let list = this.buckets.get(kind);
    if (!list) {
      list = [];
      this.buckets.set(kind, list);
    }
    const newest = list[list.length - 1];
    if (newest?.start === start) newest.count++;
    else list.push({ start, count: 1 });
    this.last.set(kind, now);
    this.prune(list, now);
    this.onRecord(kind);
  }

  /** How many of `kind` in the window. */
  count(kind: ActivityKind): number {
    const list = this.buckets.get(kind);
    if (!list) return 0;
    this.prune(list, this.clock.now());
    let total = 0;
    for (const bucket of list) total += bucket.count;
    return total;
  }

  /** The newest detail recorded with `kind`. */
  detailOf(kind: ActivityKind): string | undefined {
    return this.details.get(kind);
  }

  /** When `kind` last happened, ever. */
  lastAt(kind: ActivityKind): number | undefined {
    return this.last.get(kind);
  }

  private prune(list: { start: number }[], now: number): void {
    const oldest = now - this.windowMs;
    while (list.length > 0 && list[0]!.start + BUCKET_MS <= oldest) list.shift();
  }
}
