import type { Clock } from '../base/clock/clock.js';
import { ConfigurationError } from '../base/errors.js';
import type { Log } from '../base/logging/logger.js';
import { RecentEntries } from '../base/recent-entries.js';
import type { Client, ClientOptions } from '../client/index.js';
import { isClient } from '../client/is-client.js';
import { type LabeledSecret, requireSecrets } from '../wire/signature/secrets.js';
import { isAccountId } from './account-id.js';
import type { AccountConfig, AccountResolver, AccountsOption } from './accounts-option.js';

/** An account ready to use: its id, its secrets, newest first, and its API client. */
export interface Account {
  readonly id: string;
  readonly secrets: readonly LabeledSecret[];
  readonly client: Client;
}

/**
 * What `find` says of an id arriving on the webhook path when it is not cached: `busy` when
 * the budget of resolver calls for ids not known to be accounts is spent for this minute.
 */
export type AccountLookup = Account | undefined | 'busy';

/**
 * Whether the store holds a session of the account a request names (open, or closed and
 * still kept), for the user its body names: evidence that the id is a real account's, whoever else named it before.
 */
export type AccountEvidence = () => boolean | Promise<boolean>;

const MINUTE = 60_000;
// Ids known to be accounts, kept past the cache: only the resolver's answers add to it, so
// strangers cannot fill it; the bound is for a resolver that answers every id.
const MIN_KNOWN = 10_000;

interface Entry {
  account: Account | undefined;
  /** What the account's client was built from, to tell whether a refresh changed it. */
  source?: Client | ClientOptions;
  resolvedAt: number;
  /**
   * Who asked, for an unknown id: the Receiver's own calls never take for an answer an
   * unknown id a request (anyone's) had asked about.
   */
  askedBy: Asker;
}

type Asker = 'receiver' | 'request';

/**
 * The accounts of a Receiver: a fixed map, checked whole at construction, or a resolver
 * whose answers are cached (least recently used dropped past `cacheSize`, unknown ids too,
 * each refreshed after `refreshAfterMs`), with one call per id at a time.
 *
 * Ids a request names spend a budget per minute (`maxResolvesPerMinute`) only while nothing
 * shows they are an account's: an id the resolver answered with an account (for the
 * Receiver's own calls or a request), or one a request names with evidence that the store
 * holds a session of it, is resolved whatever the budget. So requests to made-up ids
 * spend a budget of their own, never the one real accounts' webhooks need.
 */
export class AccountDirectory {
  private readonly fixed: Map<string, Account> | undefined;
  private readonly resolver: AccountResolver | undefined;
  private readonly cache: RecentEntries<string, Entry>;
  /** Ids the resolver answered with an account, least recently used first. */
  private readonly known: RecentEntries<string, true>;
  private readonly inFlight = new Map<string, Promise<Account | undefined>>();
  private readonly cacheSize: number;
  private readonly refreshAfterMs: number;
  private readonly maxResolvesPerMinute: number;
  private windowStart = Number.NEGATIVE_INFINITY;
  private resolvesInWindow = 0;

  /**
   * @param option The `accounts` option.
   * @param buildClient Builds an account's client from its options (on the Receiver's clock).
   */
  constructor(
    option: AccountsOption,
    private readonly buildClient: (options: ClientOptions) => Client,
    private readonly clock: Clock,
    private readonly log: Log,
  ) {
    if (isResolver(option)) {
      this.resolver = option;
      this.cacheSize = wholeOption('cacheSize', option.cacheSize, 1000);
      this.refreshAfterMs = wholeOption('refreshAfterMs', option.refreshAfterMs, 5 * MINUTE);
      this.maxResolvesPerMinute = wholeOption(
        'maxResolvesPerMinute',
        option.maxResolvesPerMinute,
        60,
      );
      this.cache = new RecentEntries(this.cacheSize);
      this.known = new RecentEntries(Math.max(this.cacheSize, MIN_KNOWN));
      return;
    }
    const ids = Object.keys(option);
    if (ids.length === 0) {
      throw new ConfigurationError(
        'Receiver option "accounts" lists no account: give at least one (`{ live: { secret, client } }`), or a resolver (`{ resolve }`).',
      );
    }
    this.fixed = new Map(ids.map((id) => [id, this.build(id, option[id]!)]));
    this.cacheSize = ids.length;
    this.cache = new RecentEntries(this.cacheSize);
    this.known = new RecentEntries(Math.max(this.cacheSize, MIN_KNOWN));
    this.refreshAfterMs = Number.POSITIVE_INFINITY;
    this.maxResolvesPerMinute = 0;
  }

  /** The accounts of a fixed map (none for a resolver): what `check()` checks. */
  listed(): Account[] {
    return this.fixed ? [...this.fixed.values()] : [];
  }

  /** How many ids are cached now (accounts and unknown ids): bounded by `cacheSize`. */
  get cached(): number {
    return this.fixed ? this.fixed.size : this.cache.size;
  }

  /**
   * The account `id` names, for an id the Receiver itself chose or stored (a session it
   * started, a record it reads): never limited, and never answered from an unknown id a
   * request asked about (a stranger's request must not turn away an account being
   * onboarded). `undefined` when there is no such account. Rejects when the resolver fails.
   */
  get(id: string): Account | undefined | Promise<Account | undefined> {
    if (this.fixed) return this.fixed.get(id);
    const entry = this.touch(id);
    if (entry?.account) return entry.account;
    if (entry && entry.askedBy === 'receiver' && !this.stale(entry)) return undefined;
    return this.resolve(id, 'receiver');
  }

  /**
   * The account a request names: a malformed id is unknown without a call. An id known to be
   * an account's is resolved whatever the budget; any other spends this minute's budget, and
   * past it is resolved only if `evidence` (a session of it in the store) holds, else
   * `busy`. A cached unknown id is answered unknown until `refreshAfterMs`, or resolved again
   * at once on evidence. Rejects when the resolver fails.
   */
  find(id: string, evidence?: AccountEvidence): AccountLookup | Promise<AccountLookup> {
    if (!isAccountId(id)) return undefined;
    if (this.fixed) return this.fixed.get(id);
    const entry = this.touch(id);
    if (entry?.account) return entry.account;
    const running = this.inFlight.get(id);
    if (running) return running;
    if (this.known.has(id)) return this.resolve(id, 'request');
    const fresh = entry !== undefined && !this.stale(entry);
    // An unknown id asked about again within refreshAfterMs costs nothing, unless the store
    // shows a session of it: an account onboarded since a stranger named it.
    if (!fresh && this.spendBudget()) return this.resolve(id, 'request');
    if (!evidence) return fresh ? undefined : 'busy';
    const unknown: AccountLookup = fresh ? undefined : 'busy';
    const vouched = evidence();
    return vouched instanceof Promise
      ? vouched.then(
          (holds): AccountLookup | Promise<AccountLookup> =>
            holds ? this.resolve(id, 'request') : unknown,
          (): AccountLookup => unknown,
        )
      : vouched
        ? this.resolve(id, 'request')
        : unknown;
  }

  /**
   * A cached entry, moved to the young end. A stale account is resolved again in the
   * background (and served meanwhile); a stale unknown id is not: asking about it again is
   * `find`'s or `get`'s to decide, within the budget where a request asks.
   */
  private touch(id: string): Entry | undefined {
    const entry = this.cache.get(id);
    if (!entry) return undefined;
    this.cache.set(id, entry);
    if (entry.account && this.stale(entry) && !this.inFlight.has(id)) {
      this.resolve(id, 'receiver').catch((error: unknown) => {
        // The cached account serves on; the next refresh tries again.
        entry.resolvedAt = this.clock.now();
        this.log.warn('Refreshing an account failed; its cached configuration stays in use.', {
          account: id,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }
    return entry;
  }

  private stale(entry: Entry): boolean {
    return this.clock.now() - entry.resolvedAt >= this.refreshAfterMs;
  }

  private spendBudget(): boolean {
    const now = this.clock.now();
    if (now - this.windowStart >= MINUTE) {
      this.windowStart = now;
      this.resolvesInWindow = 0;
    }
    if (this.resolvesInWindow >= this.maxResolvesPerMinute) return false;
    this.resolvesInWindow += 1;
    return true;
  }

  private resolve(id: string, askedBy: Asker): Promise<Account | undefined> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const resolving = this.load(id, askedBy);
    this.inFlight.set(id, resolving);
    // Forgotten once settled, whether it resolved or the resolver threw (even at once).
    const forget = () => {
      if (this.inFlight.get(id) === resolving) this.inFlight.delete(id);
    };
    resolving.then(forget, forget);
    return resolving;
  }

  private async load(id: string, askedBy: Asker): Promise<Account | undefined> {
    const config = await this.resolver!.resolve(id);
    const resolvedAt = this.clock.now();
    if (config === undefined || config === null) {
      this.known.delete(id);
      this.cache.set(id, { account: undefined, resolvedAt, askedBy });
      return undefined;
    }
    const previous = this.cache.get(id);
    const client =
      previous?.account && sameClient(previous.source, config.client)
        ? previous.account.client
        : undefined;
    const account = this.build(id, config, client);
    this.cache.set(id, { account, source: config.client, resolvedAt, askedBy });
    this.known.set(id, true);
    return account;
  }

  /**
   * An account from its configuration; `client`, when given, is the client a refresh keeps
   * because its options did not change, so its pacing (the limits are per key) carries over.
   */
  private build(id: string, config: AccountConfig, client?: Client): Account {
    if (!isAccountId(id)) {
      throw new ConfigurationError(
        `Account id ${JSON.stringify(String(id).slice(0, 80))} is not usable: it must be 1 to 64 letters, digits, "_" or "-", as it is a path segment of the account's callback URL.`,
      );
    }
    if (typeof config !== 'object' || config === null || config.client === undefined) {
      throw new ConfigurationError(
        `Account "${id}" needs \`secret\` (its webhook signing secret) and \`client\` (its API client, or \`{ apiKey }\`).`,
      );
    }
    const secrets = requireSecrets(config.secret, `the secret of account "${id}"`);
    return {
      id,
      secrets,
      client: client ?? (isClient(config.client) ? config.client : this.buildClient(config.client)),
    };
  }
}

function isResolver(option: AccountsOption): option is AccountResolver {
  return typeof (option as Partial<AccountResolver>).resolve === 'function';
}

function sameClient(
  source: Client | ClientOptions | undefined,
  next: Client | ClientOptions,
): boolean {
  if (source === next) return true;
  if (!source || isClient(source) || isClient(next)) return false;
  return source.apiKey === next.apiKey && source.baseUrl === next.baseUrl;
}

function wholeOption(name: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new ConfigurationError(
      `accounts.${name} must be a whole number of at least 1, got ${String(value)}.`,
    );
  }
  return resolved;
}
