import type { Clock } from '../base/clock/clock.js';
import { RecentEntries } from '../base/recent-entries.js';

/** What the Receiver counts, for `health()` and its alarms. */
export type ActivityKind =
  | 'webhook_accepted'
  | 'signature_missing'
  | 'signature_invalid'
  | 'payload_invalid'
  /** A body a parser consumed first, with a signature valid over what the parser kept. */
  | 'raw_body_unavailable'
  /** Such a body with a signature that could not be checked: maybe the service's. */
  | 'raw_body_unverified'
  /** Such a body of which the parser kept nothing to check: consumed whoever sent it. */
  | 'raw_body_unkept'
  /** Such a body without a signature: never the service's. */
  | 'raw_body_unsigned'
  /** A body refused for its signature named a user whose result polling then recovered. */
  | 'signature_invalid_recovered'
  /** A body a parser consumed under an unverified signature named such a user. */
  | 'raw_body_unverified_recovered'
  /**
   * A refused body's user left out of the refused bodies' record (or another's pushed out),
   * full of users named within the window: the body might have been the service's.
   */
  | 'refused_unkept'
  | 'store_unavailable'
  | 'handler_failed'
  | 'delivered_by_webhook'
  | 'delivered_by_poll'
  /**
   * The service's answer for a session a webhook had named (its user's, among several open
   * sessions) while the service could not be asked: that webhook reached the Receiver, this
   * instance or another, within the window or before it.
   */
  | 'polled_after_webhook'
  | 'undeliverable'
  /** Work left due for longer than the backlog bound (`backlogAlarmAgeMs`). */
  | 'backlog_growing'
  /** A store call unanswered for `storeSlowMs`, counted while it still waits. */
  | 'store_slow'
  /** A session of an account the Receiver no longer has (or of none), left unpolled. */
  | 'account_missing'
  /** A session left to another instance: none of the keys its token is sealed under is listed. */
  | 'token_key_missing'
  /**
   * A session polled here whose user is indexed under a key this instance does not list as a
   * token key: webhooks naming that user do not find it.
   */
  | 'user_key_missing'
  /** A call to the service's API (a poll, a webhook's confirmation) failed or timed out. */
  | 'api_failed'
  /** A webhook verified with a secret other than the first listed: a rotation not finished. */
  | 'older_secret'
  /** A request naming an id not known to be an account's, turned away: the budget was spent. */
  | 'account_budget_spent'
  /** A session start that failed after its request may have reached the service. */
  | 'start_ambiguous'
  /** A session start in an hour whose starts run far above the day before's hourly rate. */
  | 'starts_surging';

const BUCKET_MS = 60_000;
// Accounts followed one by one at once: the ones seen least recently are forgotten past it.
const MAX_ACCOUNTS = 1_000;

/** One kind's buckets, oldest first, and their sum: alarms read counts on every rejection. */
interface Counts {
  list: { start: number; count: number }[];
  total: number;
}

/**
 * Counts of what happened over the last `windowMs`, in one-minute buckets: a few numbers per
 * kind whatever the traffic, and a count read without scanning events.
 */
export class ActivityWindow {
  private readonly buckets = new Map<ActivityKind, Counts>();
  private readonly last = new Map<ActivityKind, number>();
  private readonly details = new Map<ActivityKind, string>();
  private readonly accounts = new RecentEntries<string, ActivityWindow>(MAX_ACCOUNTS);
  // When each alarm was last raised, by code: what went wrong recently (`health().recent`).
  private readonly raised = new Map<string, number>();
  // When each line logged once per window (`firstInWindow`) was last logged.
  private readonly told = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    readonly windowMs: number,
    /** Called after each record, e.g. to check the alarms (of the account, when one is named). */
    private readonly onRecord: (kind: ActivityKind, account?: string) => void = () => undefined,
  ) {}

  /**
   * Counts one `kind`; `detail` (the newest wins) can say how to fix it. On a Receiver of
   * several accounts, `account` counts it toward that account's window too (`forAccount`).
   */
  record(kind: ActivityKind, detail?: string, account?: string): void {
    if (account !== undefined) this.keptFor(account).record(kind, detail);
    this.countOne(kind, detail);
    this.onRecord(kind, account);
  }

  /** What one account's requests and results did over the window (nothing, if none yet). */
  forAccount(account: string): ActivityWindow {
    return this.accounts.get(account) ?? new ActivityWindow(this.clock, this.windowMs);
  }

  /** The window of `account`, kept from now on (a new one when it had none). */
  private keptFor(account: string): ActivityWindow {
    const window = this.accounts.get(account) ?? new ActivityWindow(this.clock, this.windowMs);
    // Most recently seen last: the first is the one forgotten when there are too many.
    return this.accounts.set(account, window);
  }

  /** Notes that the alarm `code` was raised now (of `account`, in its window, when named). */
  noteRaised(code: string, account?: string): void {
    if (account !== undefined) this.keptFor(account).noteRaised(code);
    else this.raised.set(code, this.clock.now());
  }

  /** When the alarm `code` was last raised, however long ago. */
  lastRaisedAt(code: string): number | undefined {
    return this.raised.get(code);
  }

  /** When the alarm `code` was last raised within the window, if it was. */
  raisedAt(code: string): number | undefined {
    const at = this.raised.get(code);
    return at !== undefined && this.clock.now() - at < this.windowMs ? at : undefined;
  }

  /**
   * `true` once per window for `topic`, then `false` until the window has passed: for a line
   * logged at most once per window while what it tells goes on.
   */
  firstInWindow(topic: string): boolean {
    const now = this.clock.now();
    const last = this.told.get(topic);
    if (last !== undefined && now - last < this.windowMs) return false;
    this.told.set(topic, now);
    return true;
  }

  /** The alarms raised within the window, the most recent last. */
  raisedRecently(): string[] {
    const now = this.clock.now();
    return [...this.raised]
      .filter(([, at]) => now - at < this.windowMs)
      .sort(([, a], [, b]) => a - b)
      .map(([code]) => code);
  }

  private countOne(kind: ActivityKind, detail: string | undefined): void {
    const now = this.clock.now();
    if (detail !== undefined) this.details.set(kind, detail);
    const start = now - (now % BUCKET_MS);
    let counts = this.buckets.get(kind);
    if (!counts) {
      counts = { list: [], total: 0 };
      this.buckets.set(kind, counts);
    }
    const newest = counts.list[counts.list.length - 1];
    if (newest?.start === start) newest.count++;
    else counts.list.push({ start, count: 1 });
    counts.total++;
    this.last.set(kind, now);
    this.prune(counts, now);
  }

  /** How many of `kind` in the window. */
  count(kind: ActivityKind): number {
    const counts = this.buckets.get(kind);
    if (!counts) return 0;
    this.prune(counts, this.clock.now());
    return counts.total;
  }

  /** The newest detail recorded with `kind`. */
  detailOf(kind: ActivityKind): string | undefined {
    return this.details.get(kind);
  }

  /** When `kind` last happened, ever. */
  lastAt(kind: ActivityKind): number | undefined {
    return this.last.get(kind);
  }

  private prune(counts: Counts, now: number): void {
    const oldest = now - this.windowMs;
    const { list } = counts;
    while (list.length > 0 && list[0]!.start + BUCKET_MS <= oldest) {
      counts.total -= list.shift()!.count;
    }
  }
}
