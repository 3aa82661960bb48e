import { MAX_EXTERNAL_USER_ID_LENGTH } from '../client/external-user-id.js';
import { MinHeap } from '../store/min-heap.js';
import { OUTCOME_FIELDS } from '../wire/payload/outcome-fields.js';
import { COMPLETED_EVENT } from '../wire/payload/parse.js';
import type { VerificationPayload } from '../wire/payload/types.js';
import type { ActivityKind, ActivityWindow } from './activity-window.js';
import { jsonField, UNREAD_FIELD } from './json-field.js';

/** Why a body was refused without its signature being known to hold. */
export type RefusalReason = 'signature_invalid' | 'raw_body_unverified';

// Users remembered at once, and what they may take in memory together (each is counted at two
// bytes a character of its key, plus what an entry costs besides): a flood of refused bodies,
// however long the ids they name, cannot grow this past a few hundred kilobytes.
const MAX_REMEMBERED = 1_000;
const MAX_BYTES = 256 * 1024;
const ENTRY_OVERHEAD_BYTES = 96;

// Not fatal: the service's bodies are valid UTF-8, and a stranger's that is not costs no
// exception to set aside.
const decoder = new TextDecoder();
// What a body says when one of its outcome fields is unread (an object, not JSON): no result
// polling recovers says that, so it matches none.
const UNREAD_OUTCOME = 'unread';

const RECOVERED: Record<RefusalReason, ActivityKind> = {
  signature_invalid: 'signature_invalid_recovered',
  raw_body_unverified: 'raw_body_unverified_recovered',
};

interface Refused {
  at: number;
  reason: RefusalReason;
  /** A digest of what the body said the result was (`OUTCOME_FIELDS`). */
  outcome: string;
  /** Its rank when the record is full: the lowest ranks stay (see `note`). */
  rank: number;
  bytes: number;
}

/**
 * Evidence that refused requests were the service's own webhooks, not a stranger's: a refused
 * body that reads as a `verification.completed` of a user whose result polling then recovers,
 * and that says what polling then says (status, confidence, liveness, duplicate, risk,
 * reason), was that result's webhook. Anyone can send a badly signed or compressed body, even
 * one naming themselves; only the service knew the result before polling told it. An alarm
 * about the secret or the mount order waits for this evidence (see alarms.ts).
 *
 * Bounded whatever strangers send: one entry per user (the latest body), ids no session can
 * have (longer than `MAX_EXTERNAL_USER_ID_LENGTH`) not kept, at most `MAX_REMEMBERED` users and
 * `MAX_BYTES`, each kept for the alarms' window only. When full, which users stay does not
 * depend on the order bodies came in: each user has a rank drawn from a key of this process,
 * and the lowest ranks stay, so a flood of made-up users leaves each real one its fair chance
 * instead of pushing all of them out.
 *
 * A body is read, not parsed: its event and user, and its outcome once kept, are read from its
 * text (`jsonField`): a flood costs a decode and a few searches per request, and no body is
 * left out for what reading it would cost.
 *
 * The user ids stay in this process's memory for the alarms' window at most, never in a log
 * or the store.
 */
/** A kept entry in the rank order. */
interface Ranked {
  at: number;
  key: string;
  entry: Refused;
}

export class RefusedBodies {
  /** Oldest first: a user noted again moves to the end. */
  private readonly byUser = new Map<string, Refused>();
  private bytes = 0;
  // The entries by rank, highest first (`at` is the rank negated); entries since removed or
  // replaced are skipped when they come to the top, and swept out when they outnumber the kept.
  private readonly byRank = new MinHeap<Ranked>();

  constructor(
    private readonly activity: ActivityWindow,
    private readonly now: () => number,
    /** What the ranks are drawn from: secret to senders, so none can choose a low one. */
    private readonly rankKey: number = globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!,
  ) {}

  /** How many users are remembered now, and the memory they are counted at. */
  get size(): { users: number; bytes: number } {
    this.expire(this.now());
    return { users: this.byUser.size, bytes: this.bytes };
  }

  /**
   * Remembers the user a refused body names, and what it says the result was, if it reads as
   * a `verification.completed`; on a Receiver of several accounts, as a user of the account
   * the request named.
   */
  note(body: Uint8Array, reason: RefusalReason, account?: string): void {
    // Read, not parsed (jsonField): for a 2 KiB body, a decode and a few searches cost about
    // half of its signature check, where parsing it cost about as much as the check.
    const text = decoder.decode(body);
    if (jsonField(text, 'event') !== COMPLETED_EVENT) return;
    const user = jsonField(text, 'external_user_id');
    if (typeof user !== 'string' || user === '' || user.length > MAX_EXTERNAL_USER_ID_LENGTH) {
      return;
    }
    const now = this.now();
    this.expire(now);
    const key = keyOf(user, account);
    const rank = hash(key, this.rankKey);
    const bytes = key.length * 2 + ENTRY_OVERHEAD_BYTES;
    this.remove(key);
    if (this.byUser.size >= MAX_REMEMBERED || this.bytes + bytes > MAX_BYTES) {
      // Evidence is lost, this body's or another's: what it would have told is unknown.
      this.activity.record('refused_unkept', undefined, account);
    }
    while (this.byUser.size >= MAX_REMEMBERED || this.bytes + bytes > MAX_BYTES) {
      const highest = this.highest();
      // Full of users ranked below this one: it is the one left out.
      if (highest.entry.rank <= rank) return;
      this.remove(highest.key);
    }
    // Digested only once kept: in a flood, most bodies are left out by their rank.
    const entry: Refused = { at: now, reason, outcome: outcomeOfText(text), rank, bytes };
    const kept = detached(key);
    this.byUser.set(kept, entry);
    this.bytes += entry.bytes;
    this.byRank.push({ at: -rank, key: kept, entry });
    if (this.byRank.size > 2 * this.byUser.size + 64) {
      this.byRank.filter((ranked) => this.byUser.get(ranked.key) === ranked.entry);
    }
  }

  /** Erasure (`receiver.forgetUser`): the user is no longer remembered by this process. */
  forget(user: string, account?: string): void {
    this.remove(keyOf(user, account));
  }

  /**
   * A result was recovered by polling: a refused body of its user that said the same result
   * was its webhook.
   */
  recovered(payload: VerificationPayload, account?: string): void {
    if (this.byUser.size === 0) return;
    const key = keyOf(payload.external_user_id, account);
    const refused = this.byUser.get(key);
    if (!refused) return;
    this.remove(key);
    const said = outcomeOf(OUTCOME_FIELDS.map((field) => payload[field] ?? null));
    if (this.now() - refused.at <= this.activity.windowMs && refused.outcome === said) {
      this.activity.record(RECOVERED[refused.reason], undefined, account);
    }
  }

  /** Drops what is older than the alarms' window, oldest first. */
  private expire(now: number): void {
    for (const [key, entry] of this.byUser) {
      if (now - entry.at <= this.activity.windowMs) return;
      this.remove(key);
    }
  }

  private remove(key: string): void {
    const entry = this.byUser.get(key);
    if (!entry) return;
    this.byUser.delete(key);
    this.bytes -= entry.bytes;
  }

  /** The kept entry of the highest rank (there is one: called only when full). */
  private highest(): Ranked {
    for (let top = this.byRank.peek(); ; top = this.byRank.peek()) {
      if (top && this.byUser.get(top.key) === top.entry) return top;
      this.byRank.pop();
    }
  }
}

/**
 * A copy of `key` that holds nothing else: a user id read from a body is a slice of the
 * body's text, and engines keep the whole text (up to `maxBodyBytes`) alive while the slice
 * is, which would make each kept user cost its body.
 */
const detached = (key: string): string => JSON.parse(JSON.stringify(key)) as string;

/** The same user id in two accounts is two users. */
const keyOf = (user: string, account: string | undefined) =>
  account === undefined ? user : `${account}\u0000${user}`;

/** What a refused body says the result was, read from its text (`outcomeOf`). */
function outcomeOfText(text: string): string {
  const values = OUTCOME_FIELDS.map((field) => jsonField(text, field) ?? null);
  return values.includes(UNREAD_FIELD) ? UNREAD_OUTCOME : outcomeOf(values);
}

/** A digest of the outcome fields' values a body or result says: compared, never shown. */
function outcomeOf(values: readonly unknown[]): string {
  const said = JSON.stringify(values);
  return `${hash(said, 1).toString(36)}.${hash(said, 2).toString(36)}`;
}

/** A 32-bit hash of `text` under `seed` (FNV-1a, then mixed): for ranks and digests in memory. */
function hash(text: string, seed: number): number {
  let value = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    value = Math.imul(value ^ text.charCodeAt(index), 0x01000193);
  }
  value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
  value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
  return (value ^ (value >>> 16)) >>> 0;
}
