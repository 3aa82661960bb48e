import { RecentEntries } from '../base/recent-entries.js';
import type { StoreAlarmCode } from '../store/store-alarm.js';
import type { ActivityKind, ActivityWindow } from './activity-window.js';
import { counted, inflected } from './counted.js';

/** Stable codes of the Receiver's alarms; each message says what to fix. */
export type AlarmCode =
  | 'secret_mismatch'
  | 'raw_body_unavailable'
  | 'webhooks_missing'
  | 'handler_failing'
  | 'store_unavailable'
  | 'results_undeliverable'
  /**
   * Due work waits longer than a minute (or three sweep intervals, if longer): sweeps do
   * not keep up, or do not run.
   */
  | 'backlog_growing'
  /**
   * A store call has not answered within `storeSlowMs` (5 s): raised while it waits.
   */
  | 'store_slow'
  /**
   * Sessions in the store are of an account the Receiver no longer has (removed from
   * `accounts`, or unknown to the resolver): they are left unpolled, never polled with
   * another account's key.
   */
  | 'account_missing'
  /**
   * Calls to the service's API (polls, confirmations of webhooks) fail or time out: on a
   * Receiver of several accounts, raised with the account whose calls fail.
   */
  | 'api_failing'
  /**
   * Requests naming account ids not known to be accounts were turned away (`503`): this
   * minute's budget of resolver calls for such ids (`accounts.maxResolvesPerMinute`) was
   * spent. Accounts known to this instance, and webhooks of sessions in the store, are not.
   */
  | 'account_budget_spent'
  /**
   * A session start failed after its request may have reached the service (a timeout, a
   * dropped connection, a 5xx): a session may exist that the Receiver does not track.
   */
  | 'start_ambiguous'
  /**
   * An account's session starts this hour run far above its hourly rate of the day before:
   * a launch, or a script starting sessions.
   */
  | 'starts_surging'
  /**
   * Raised by the store, or about it: each code is described at `StoreAlarmCode`.
   */
  | StoreAlarmCode;

/** A situation an operator must act on, raised at most once per window per code. */
export interface ReceiverAlert {
  code: AlarmCode;
  /** What is wrong and how to fix it. */
  message: string;
  /** How often it happened within the window. */
  count: number;
  raisedAt: Date;
  /**
   * The account it concerns, on a Receiver of several accounts: each account's requests and
   * results are judged apart too (a wrong secret or callback URL is one account's), and its
   * alarms raised with its id.
   */
  account?: string;
}

export interface Rule {
  code: AlarmCode;
  /** Failing: results cannot arrive as they should. Degraded: they do, with help or late. */
  severity: 'failing' | 'degraded';
  /**
   * The kinds whose counting can start the situation (`measure` from 0 to more); a count of
   * any other kind only keeps it away, or is not read.
   */
  raisedBy: readonly ActivityKind[];
  /** How often the situation happened in the window, or 0 when it is not happening. */
  measure(window: ActivityWindow): number;
  message(count: number, minutes: number, window: ActivityWindow): string;
}

// A few results by polling alone can be a webhook lost on the way; this many, none by webhook,
// is a callback that does not reach this Receiver.
const MISSING_WEBHOOKS_AFTER = 3;
const FAILING_HANDLER_AFTER = 3;
// One failed call is a blip the retries absorb; this many in the window is the API failing.
const FAILING_API_AFTER = 3;

/**
 * Results recovered by polling while no webhook was accepted: the service's own traffic
 * shows that its webhooks do not get through. Refusals anyone can cause (a bad signature, a
 * body a parser consumed) count toward an alarm only with this evidence, so requests from
 * strangers never raise one on their own.
 */
const webhooksLost = (w: ActivityWindow) =>
  w.count('webhook_accepted') === 0 && w.count('delivered_by_poll') > 0;

/** Bodies a parser consumed first that the service sent, or may have sent as polling shows. */
function rawBodiesRefused(w: ActivityWindow): number {
  const signed = w.count('raw_body_unavailable');
  const unverified = w.count('raw_body_unverified');
  if (signed > 0) return signed + unverified + w.count('raw_body_unkept');
  // What the parser kept, refused, named a user whose result polling recovered: the service's.
  if (w.count('raw_body_unverified_recovered') > 0) return unverified;
  // Nothing was kept to judge by: every body is consumed, whoever sends it.
  return webhooksLost(w) ? w.count('raw_body_unkept') : 0;
}

/**
 * Badly signed bodies shown to be the service's: one of them named a user whose result polling
 * then recovered, and said that result (RefusedBodies). Without that, they may all be a
 * stranger's, or an end user's body naming herself.
 */
const badlySigned = (w: ActivityWindow) =>
  w.count('signature_invalid_recovered') > 0 ? w.count('signature_invalid') : 0;

/**
 * What a token key removed too soon did: sessions left unpolled (none of the keys their token
 * or result is sealed under is listed), or polled but indexed by their user under a key not
 * listed, so that webhooks naming the user miss them. One fix for both.
 */
function tokenKeyMissing(minutes: number, window: ActivityWindow): string {
  const left = window.count('token_key_missing');
  const unindexed = window.count('user_key_missing');
  const told: string[] = [];
  if (left > 0) {
    told.push(
      `${counted(left, 'session')} in the last ${minutes} minutes ${inflected(left, 'was', 'were')} left to another instance, as this one lists none of the keys ${inflected(left, 'its', 'their')} token or result is sealed under (${window.detailOf('token_key_missing') ?? 'a token key'}): ${inflected(left, 'it is', 'they are')} neither polled, delivered nor expired here.`,
    );
  }
  if (unindexed > 0) {
    told.push(
      `${counted(unindexed, 'session')} polled in the last ${minutes} minutes ${inflected(unindexed, 'is', 'are')} indexed by ${inflected(unindexed, 'its user', 'their users')} under a key this instance does not list as a token key (${window.detailOf('user_key_missing') ?? 'a token key'}): webhooks naming ${inflected(unindexed, 'that user', 'those users')} find no session here and are answered untracked.`,
    );
  }
  return `${told.join(' ')} During a rolling change this passes once every instance runs the new configuration. If no instance lists the key any more, it was removed too soon: list it again (FACEVERIFY_TOKEN_KEYS, or the secret FACEVERIFY_WEBHOOK_SECRET), last, until the sessions started before the change have closed; a signing secret that keyed sessions before token keys were set is listed last among FACEVERIFY_TOKEN_KEYS until then (docs/polling-and-stores.md, Session tokens at rest).`;
}

/** Each situation the Receiver recognises, and what it says about it. */
export const ALARM_RULES: readonly Rule[] = [
  {
    code: 'secret_mismatch',
    severity: 'failing',
    raisedBy: ['signature_invalid', 'signature_invalid_recovered', 'delivered_by_poll'],
    // A bad signature anyone can send; one on a body naming a user whose result polling then
    // recovered was the service's (RefusedBodies).
    measure: (w) => (webhooksLost(w) ? badlySigned(w) : 0),
    message: (count, minutes) =>
      `${counted(count, 'webhook')} failed ${inflected(count, 'its', 'their')} signature check in the last ${minutes} minutes while polling recovered ${inflected(count, 'its result', 'their results')}: the webhook secret (FACEVERIFY_WEBHOOK_SECRET or the secret option) does not match the signing secret in the service's Settings. Copy it from Settings; during a rotation list both, in the order of the rotation's current step (docs/security.md, Rotation). If the secret is right, something rewrites the body before verification.`,
  },
  {
    code: 'raw_body_unavailable',
    severity: 'failing',
    raisedBy: [
      'raw_body_unavailable',
      'raw_body_unverified',
      'raw_body_unkept',
      'raw_body_unverified_recovered',
      'delivered_by_poll',
    ],
    measure: rawBodiesRefused,
    // The adapter that saw it knows the framework, so its hint names the concrete fix.
    message: (count, minutes, window) =>
      `The raw request body is not available, so its signature cannot be checked (${counted(count, 'webhook')} in the last ${minutes} minutes). ${window.detailOf('raw_body_unavailable') ?? window.detailOf('raw_body_unverified') ?? window.detailOf('raw_body_unkept') ?? 'Mount verificationWebhook() before any body parser.'}`,
  },
  {
    code: 'webhooks_missing',
    severity: 'degraded',
    // A recovered body the parser kept tells the unkept ones were not the service's: they no
    // longer explain the polling (rawBodiesRefused).
    raisedBy: ['delivered_by_poll', 'raw_body_unverified_recovered'],
    // Refused webhooks that may be the service's are the alarms above, with their own fix;
    // requests without a signature, anyone's, never hide this one. Nor is it raised while
    // refused bodies are too many to keep as evidence (RefusedBodies): one left out may have
    // been the service's, and "no webhook reached this receiver" would not be known. A result
    // polled for a session a webhook had named with its user's other open sessions tells that
    // the webhook reached the receiver (another instance of it, or before the window).
    measure: (w) => {
      const polled = w.count('delivered_by_poll');
      const explained =
        w.count('webhook_accepted') +
        w.count('polled_after_webhook') +
        badlySigned(w) +
        rawBodiesRefused(w) +
        w.count('refused_unkept');
      return explained === 0 && polled >= MISSING_WEBHOOKS_AFTER ? polled : 0;
    },
    message: (count, minutes) =>
      `${counted(count, 'result')} in the last ${minutes} minutes arrived only by polling, and no webhook reached this receiver: check that callback_url in the service's Settings is this receiver's webhook URL, reachable from the service.`,
  },
  {
    code: 'handler_failing',
    severity: 'degraded',
    raisedBy: ['handler_failed'],
    measure: (w) => {
      const failed = w.count('handler_failed');
      return failed >= FAILING_HANDLER_AFTER ? failed : 0;
    },
    message: (count, minutes) =>
      `A verification.completed handler failed ${counted(count, 'time')} in the last ${minutes} minutes; its results wait for retries until maxDeliveryAttempts. Its errors reach receiver.on('error') with stage 'handler'.`,
  },
  {
    code: 'store_unavailable',
    severity: 'failing',
    raisedBy: ['store_unavailable'],
    measure: (w) => w.count('store_unavailable'),
    message: (count, minutes) =>
      `The store failed ${counted(count, 'time')} in the last ${minutes} minutes: webhooks are answered 503 and polling stalls. Check the store's connection (the Redis or PostgreSQL URL, the pool, the server).`,
  },
  {
    code: 'results_undeliverable',
    severity: 'degraded',
    raisedBy: ['undeliverable'],
    measure: (w) => w.count('undeliverable'),
    message: (count, minutes) =>
      `${counted(count, 'result')} ${inflected(count, 'was', 'were')} given up as undeliverable in the last ${minutes} minutes after maxDeliveryAttempts failed handler runs; ${inflected(count, 'it was', 'they were')} passed to verification.undeliverable handlers. Fix the handler, then deliver ${inflected(count, 'it', 'them')} again with receiver.deadLetters.redeliver(key) or 'faceverify dead-letters redeliver KEY' (list them with receiver.deadLetters.list()).`,
  },
  {
    code: 'store_slow',
    severity: 'degraded',
    raisedBy: ['store_slow'],
    measure: (w) => w.count('store_slow'),
    message: (count, minutes, window) =>
      `The store was slow to answer ${counted(count, 'time')} in the last ${minutes} minutes (${window.detailOf('store_slow') ?? 'a call waited'}): webhooks wait on it, and their senders may give up. Check the store's server (its load, slow commands, memory, persistence) and the network to it.`,
  },
  {
    code: 'account_missing',
    severity: 'degraded',
    raisedBy: ['account_missing'],
    measure: (w) => w.count('account_missing'),
    message: (count, minutes, window) =>
      `${counted(count, 'session')} in the last ${minutes} minutes belonged to an account this receiver does not have (${window.detailOf('account_missing') ?? 'an account'}): they are left open and unpolled, as no other account's key may ask for them. Give the account back to the accounts option (or the resolver) until its sessions have ended, or erase them (receiver.forgetUser for each user of the account).`,
  },
  {
    code: 'token_key_missing',
    severity: 'degraded',
    raisedBy: ['token_key_missing', 'user_key_missing'],
    measure: (w) => w.count('token_key_missing') + w.count('user_key_missing'),
    message: (_count, minutes, window) => tokenKeyMissing(minutes, window),
  },
  {
    code: 'api_failing',
    severity: 'degraded',
    raisedBy: ['api_failed'],
    measure: (w) => {
      const failed = w.count('api_failed');
      return failed >= FAILING_API_AFTER ? failed : 0;
    },
    message: (count, minutes, window) =>
      `${counted(count, 'call')} to the service's API failed in the last ${minutes} minutes (the last: ${window.detailOf('api_failed') ?? 'no answer'}): results of these sessions wait, and are polled again. A 429 means the account's rate limit is spent (its plan's limits, or other traffic with its API key); a timeout or a 5xx, that the service (or the network to FACEVERIFY_BASE_URL) fails: check the service's status.`,
  },
  {
    code: 'account_budget_spent',
    severity: 'degraded',
    raisedBy: ['account_budget_spent'],
    measure: (w) => w.count('account_budget_spent'),
    message: (count, minutes) =>
      `${counted(count, 'request')} in the last ${minutes} minutes named an account id this instance does not know to be an account, and ${inflected(count, 'was', 'were')} answered 503 account_unavailable: the budget of resolver calls for such ids (accounts.maxResolvesPerMinute) was spent, most likely by requests to made-up ids. Webhooks of accounts this instance resolved, and of sessions in the store, are still served. If your accounts are many and new to each instance (webhooks of sessions not tracked), raise maxResolvesPerMinute; otherwise limit the sender's rate in front of the webhook route.`,
  },
  {
    code: 'start_ambiguous',
    severity: 'degraded',
    raisedBy: ['start_ambiguous'],
    measure: (w) => w.count('start_ambiguous'),
    message: (count, minutes) =>
      `${counted(count, 'session start')} in the last ${minutes} minutes failed after ${inflected(count, 'its request', 'their requests')} may have reached the service (a timeout, a dropped connection or a 5xx answer): each may have created a session this Receiver does not track. Such a session may be billed; its user never got its link, so it will not complete. If it keeps happening, check the network between this instance and the service, and the client's timeoutMs.`,
  },
  {
    code: 'starts_surging',
    severity: 'degraded',
    raisedBy: ['starts_surging'],
    measure: (w) => w.count('starts_surging'),
    message: (_count, _minutes, window) =>
      `Session starts are surging: ${window.detailOf('starts_surging') ?? 'far more this hour than usual'}. Each start may be billed. If it is not a launch or a campaign of yours, look for a script starting sessions for many made-up users: set starts.perAccountPerDay in createReceiver() to bound a day's cost, and lower starts.perUserPerDay (docs/operations.md, "Session starts").`,
  },
  {
    code: 'backlog_growing',
    severity: 'degraded',
    raisedBy: ['backlog_growing'],
    measure: (w) => w.count('backlog_growing'),
    // The detail says why the work waited, and so which fix (backlog-check.ts).
    message: (count, minutes, window) =>
      `Results and polls waited too long for a sweep ${counted(count, 'time')} in the last ${minutes} minutes: ${window.detailOf('backlog_growing') ?? 'records are due.'}`,
  },
];

/**
 * The kinds after whose counting the alarms are checked. A request without a signature, or
 * with a payload that is not the service's, raises none (anyone can send one) and costs no
 * check; nor does an accepted webhook, which can only end a situation.
 */
export const ALARM_KINDS: ReadonlySet<ActivityKind> = new Set(
  ALARM_RULES.flatMap((rule) => rule.raisedBy),
);

/**
 * The rules each kind can raise: counting one checks those alone. Every rule names in
 * `raisedBy` each kind whose count can start its situation, so no other rule can start on it;
 * a wrongly signed request, which anyone can send, is judged by one rule, not by all of them.
 */
const RULES_RAISED_BY: ReadonlyMap<ActivityKind, readonly Rule[]> = new Map(
  [...ALARM_KINDS].map((kind) => [
    kind,
    ALARM_RULES.filter((rule) => rule.raisedBy.includes(kind)),
  ]),
);

/**
 * Raises each alarm whose situation is happening, at most once per window: not again while the
 * window notes it raised (`ActivityWindow.noteRaised`), by this or by the store (whose alarms,
 * such as `token_key_missing`, are noted there too).
 */
export class Alarms {
  constructor(
    /** The window judged, or how to find it (an account's, which its parent may replace). */
    private readonly windowOf: ActivityWindow | (() => ActivityWindow),
    private readonly raise: (alert: ReceiverAlert) => void,
    /** The account whose window this is, named in each alert and its message. */
    private readonly account?: string,
  ) {}

  private get window(): ActivityWindow {
    return typeof this.windowOf === 'function' ? this.windowOf() : this.windowOf;
  }

  /** The alarms whose situation is happening now, with their counts. */
  active(): { rule: Rule; count: number }[] {
    return ALARM_RULES.map((rule) => ({ rule, count: rule.measure(this.window) })).filter(
      ({ count }) => count > 0,
    );
  }

  /**
   * Raises what is happening and was not raised within the window: of the rules `kind` can
   * raise, when it is given (it was just counted), else of all.
   */
  check(now: number, kind?: ActivityKind): void {
    const { window } = this;
    const minutes = Math.round(window.windowMs / 60_000);
    const rules = kind === undefined ? ALARM_RULES : (RULES_RAISED_BY.get(kind) ?? []);
    for (const rule of rules) {
      const count = rule.measure(window);
      if (count <= 0) continue;
      if (window.raisedAt(rule.code) !== undefined) continue;
      // Raised on evidence of the window, and again only on evidence newer than the last
      // raise: the one-minute buckets can still count what is up to a minute older, and an
      // unrelated count must not raise it on that (a store that failed once, 15 minutes ago).
      const newest = Math.max(...rule.raisedBy.map((kind) => window.lastAt(kind) ?? -Infinity));
      if (now - newest >= window.windowMs) continue;
      const last = window.lastRaisedAt(rule.code);
      if (last !== undefined && newest <= last) continue;
      window.noteRaised(rule.code);
      const message = rule.message(count, minutes, window);
      this.raise({
        code: rule.code,
        message: this.account === undefined ? message : `Account "${this.account}": ${message}`,
        count,
        raisedAt: new Date(now),
        ...(this.account === undefined ? {} : { account: this.account }),
      });
    }
  }
}

// Accounts whose alarms are kept at once, as many as the activity window follows.
const MAX_ACCOUNTS = 1_000;

/**
 * The alarms of each account of a Receiver of several, judged on that account's window (a
 * wrong signing secret or callback URL is one account's, hidden among the others' traffic in
 * the Receiver's own window), each raised once per window per account.
 */
export class AccountAlarms {
  private readonly byAccount = new RecentEntries<string, Alarms>(MAX_ACCOUNTS);

  constructor(
    private readonly activity: ActivityWindow,
    private readonly raise: (alert: ReceiverAlert) => void,
  ) {}

  /** The alarms of `account`. */
  of(account: string): Alarms {
    let alarms = this.byAccount.get(account);
    if (!alarms) {
      alarms = new Alarms(() => this.activity.forAccount(account), this.raise, account);
      this.byAccount.set(account, alarms);
    }
    return alarms;
  }
}
