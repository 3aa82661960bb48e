import { MinHeap } from './min-heap.js';

interface Entry {
  at: number;
  key: string;
}

// Marks a digest kept as given (not lowercase hex): no compact key contains this character.
const AS_GIVEN = '\u0100';
const codes: number[] = [];

/**
 * The key a digest is kept under: lowercase hex as the bytes it spells (a 128-bit digest is a
 * 16-character string, a third of the memory of its 32 hex digits), anything else as given
 * behind a character no compact key holds, so two different digests never share a key.
 */
function keyOf(digest: string): string {
  const length = digest.length;
  if (length === 0 || length % 2 !== 0 || length > 128) return AS_GIVEN + digest;
  codes.length = length / 2;
  for (let i = 0; i < length; i += 2) {
    const high = nibble(digest.charCodeAt(i));
    const low = nibble(digest.charCodeAt(i + 1));
    if (high < 0 || low < 0) return AS_GIVEN + digest;
    codes[i / 2] = (high << 4) | low;
  }
  return String.fromCharCode.apply(null, codes);
}

function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * The replay window of `MemoryStore`: each remembered digest until its expiry, in as little
 * memory as a day of webhooks allows. Expiries are kept relative to the first one, so they are
 * small integers (no boxed number each); they are queued in the order they were given, which
 * is their order whenever the TTL and the clock are steady (a queue of two arrays, no object
 * per entry); an expiry earlier than the last one queued goes to a heap instead.
 */
export class ReplayDigests {
  private readonly until = new Map<string, number>();
  private base: number | undefined;
  private queuedKeys: string[] = [];
  private queuedAts: number[] = [];
  private head = 0;
  private readonly outOfOrder = new MinHeap<Entry>();

  get size(): number {
    return this.until.size;
  }

  /** Records `digest` until `now + ttlMs`; `false` when it is already recorded and not expired. */
  remember(digest: string, ttlMs: number, now: number): boolean {
    this.purge(now);
    this.base ??= now;
    const key = keyOf(digest);
    const current = this.until.get(key);
    if (current !== undefined && current > now - this.base) return false;
    const at = now + ttlMs - this.base;
    this.until.set(key, at);
    const tail = this.queuedAts.length;
    if (tail === this.head || (this.queuedAts[tail - 1] as number) <= at) {
      this.queuedKeys.push(key);
      this.queuedAts.push(at);
    } else {
      this.outOfOrder.push({ at, key });
    }
    return true;
  }

  forget(digest: string): void {
    this.until.delete(keyOf(digest));
  }

  /** Drops every digest expired at `now`. */
  purge(now: number): void {
    if (this.base === undefined) return;
    const relative = now - this.base;
    const keys = this.queuedKeys;
    const ats = this.queuedAts;
    let head = this.head;
    while (head < ats.length && (ats[head] as number) <= relative) {
      this.expire(keys[head] as string, ats[head] as number);
      head += 1;
    }
    if (head === ats.length) {
      keys.length = 0;
      ats.length = 0;
      head = 0;
    } else if (head > 1024 && head * 2 > ats.length) {
      // Drop the consumed front once it is most of the queue: amortised O(1) per digest.
      this.queuedKeys = keys.slice(head);
      this.queuedAts = ats.slice(head);
      head = 0;
    }
    this.head = head;
    for (let entry = this.outOfOrder.peek(); entry && entry.at <= relative; ) {
      this.outOfOrder.pop();
      this.expire(entry.key, entry.at);
      entry = this.outOfOrder.peek();
    }
  }

  private expire(key: string, at: number): void {
    // A digest forgotten and remembered again since has a later expiry of its own.
    if (this.until.get(key) === at) this.until.delete(key);
  }
}
