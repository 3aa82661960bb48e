import { MinHeap } from './min-heap.js';

interface Entry {
  at: number;
  key: string;
}

const EMPTY = 0;
const FULL = 1;
const DELETED = 2;
const MIN_CAPACITY = 1024;

/** Reads a 128-bit digest in lowercase hex into four 32-bit words; `false` for anything else. */
function wordsOf(digest: string, words: Uint32Array): boolean {
  if (digest.length !== 32) return false;
  for (let word = 0; word < 4; word++) {
    let value = 0;
    for (let i = word * 8; i < word * 8 + 8; i++) {
      const code = digest.charCodeAt(i);
      let nibble: number;
      if (code >= 48 && code <= 57) nibble = code - 48;
      else if (code >= 97 && code <= 102) nibble = code - 87;
      else return false;
      value = (value << 4) | nibble;
    }
    words[word] = value >>> 0;
  }
  return true;
}

/**
 * The replay window of `MemoryStore`: each remembered digest until its expiry, in as little
 * memory as a day of webhooks allows and with no object per digest for the garbage collector
 * to trace. A 128-bit digest in hex (what the Receiver remembers) is kept as four 32-bit words
 * in an open-addressing table of typed arrays, its expiry beside it; expiries are queued in
 * arrival order (their order whenever the TTL and the clock are steady) in typed arrays too,
 * and an expiry earlier than the last one queued goes to a heap instead. Any other digest
 * string is kept as it is, in a map.
 */
export class ReplayDigests {
  // The table: 4 words of key, the expiry and the state of each slot.
  private capacity = MIN_CAPACITY;
  private keys = new Uint32Array(MIN_CAPACITY * 4);
  private expiries = new Float64Array(MIN_CAPACITY);
  private states = new Uint8Array(MIN_CAPACITY);
  private used = 0;
  private deleted = 0;
  // The queue of expiries: a ring of keys and times, oldest at `head`.
  private queueKeys = new Uint32Array(MIN_CAPACITY * 4);
  private queueAts = new Float64Array(MIN_CAPACITY);
  private head = 0;
  private queued = 0;
  private lastQueuedAt = Number.NEGATIVE_INFINITY;
  private readonly outOfOrder = new MinHeap<Entry>();
  // Digests that are not 32 lowercase hex digits, with their expiry.
  private readonly others = new Map<string, number>();
  private readonly words = new Uint32Array(4);

  get size(): number {
    return this.used + this.others.size;
  }

  /** Records `digest` until `now + ttlMs`; `false` when it is already recorded and not expired. */
  remember(digest: string, ttlMs: number, now: number): boolean {
    this.purge(now);
    const at = now + ttlMs;
    const words = this.words;
    if (!wordsOf(digest, words)) {
      const until = this.others.get(digest);
      if (until !== undefined && until > now) return false;
      this.others.set(digest, at);
      this.outOfOrder.push({ at, key: digest });
      return true;
    }
    const slot = this.find(words);
    if (slot >= 0 && (this.expiries[slot] as number) > now) return false;
    if (slot >= 0) this.expiries[slot] = at;
    else this.insert(words, at);
    if (this.queued === 0 || at >= this.lastQueuedAt) this.enqueue(words, at);
    else this.outOfOrder.push({ at, key: digest });
    return true;
  }

  forget(digest: string): void {
    if (wordsOf(digest, this.words)) {
      const slot = this.find(this.words);
      if (slot >= 0) this.remove(slot);
    } else {
      this.others.delete(digest);
    }
  }

  /** Drops every digest expired at `now`. */
  purge(now: number): void {
    const words = this.words;
    while (this.queued > 0 && (this.queueAts[this.head] as number) <= now) {
      const at = this.queueAts[this.head] as number;
      for (let i = 0; i < 4; i++) words[i] = this.queueKeys[this.head * 4 + i] as number;
      this.expire(words, at);
      this.head = (this.head + 1) % this.queueAts.length;
      this.queued -= 1;
    }
    for (let entry = this.outOfOrder.peek(); entry && entry.at <= now; ) {
      this.outOfOrder.pop();
      if (wordsOf(entry.key, words)) this.expire(words, entry.at);
      else if (this.others.get(entry.key) === entry.at) this.others.delete(entry.key);
      entry = this.outOfOrder.peek();
    }
  }

  private expire(words: Uint32Array, at: number): void {
    // A digest forgotten and remembered again since has a later expiry of its own.
    const slot = this.find(words);
    if (slot >= 0 && this.expiries[slot] === at) this.remove(slot);
  }

  private start(words: Uint32Array): number {
    const mixed = Math.imul((words[0] as number) ^ (words[3] as number), 0x9e3779b1);
    return (mixed ^ (mixed >>> 15) ^ (words[1] as number)) & (this.capacity - 1);
  }

  /** The slot holding `words`, or -1. */
  private find(words: Uint32Array): number {
    const mask = this.capacity - 1;
    const keys = this.keys;
    for (let slot = this.start(words); ; slot = (slot + 1) & mask) {
      const state = this.states[slot];
      if (state === EMPTY) return -1;
      if (
        state === FULL &&
        keys[slot * 4] === words[0] &&
        keys[slot * 4 + 1] === words[1] &&
        keys[slot * 4 + 2] === words[2] &&
        keys[slot * 4 + 3] === words[3]
      ) {
        return slot;
      }
    }
  }

  private insert(words: Uint32Array, at: number): void {
    // Emptied slots are reclaimed by rebuilding; the table is at most half full.
    if ((this.used + this.deleted + 1) * 2 > this.capacity) this.rebuild();
    const mask = this.capacity - 1;
    let slot = this.start(words);
    while (this.states[slot] === FULL) slot = (slot + 1) & mask;
    if (this.states[slot] === DELETED) this.deleted -= 1;
    this.keys.set(words, slot * 4);
    this.expiries[slot] = at;
    this.states[slot] = FULL;
    this.used += 1;
  }

  private remove(slot: number): void {
    this.states[slot] = DELETED;
    this.used -= 1;
    this.deleted += 1;
  }

  /** Rehashes the live digests into a table sized for them: it grows, and shrinks after a burst. */
  private rebuild(): void {
    const { keys, expiries, states, capacity } = this;
    let next = MIN_CAPACITY;
    while (next < (this.used + 1) * 4) next *= 2;
    this.capacity = next;
    this.keys = new Uint32Array(next * 4);
    this.expiries = new Float64Array(next);
    this.states = new Uint8Array(next);
    this.used = 0;
    this.deleted = 0;
    const words = new Uint32Array(4);
    for (let slot = 0; slot < capacity; slot++) {
      if (states[slot] !== FULL) continue;
      words.set(keys.subarray(slot * 4, slot * 4 + 4));
      this.insert(words, expiries[slot] as number);
    }
  }

  private enqueue(words: Uint32Array, at: number): void {
    if (this.queued === this.queueAts.length) this.growQueue();
    const tail = (this.head + this.queued) % this.queueAts.length;
    this.queueKeys.set(words, tail * 4);
    this.queueAts[tail] = at;
    this.queued += 1;
    this.lastQueuedAt = at;
  }

  private growQueue(): void {
    const length = this.queueAts.length;
    const keys = new Uint32Array(length * 8);
    const ats = new Float64Array(length * 2);
    for (let i = 0; i < this.queued; i++) {
      const from = (this.head + i) % length;
      keys.set(this.queueKeys.subarray(from * 4, from * 4 + 4), i * 4);
      ats[i] = this.queueAts[from] as number;
    }
    this.queueKeys = keys;
    this.queueAts = ats;
    this.head = 0;
  }
}
