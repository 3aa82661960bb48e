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
 * in an open-addressing table of typed arrays, its expiry beside it: 25 bytes a slot, 1.33 to
 * 2 slots per live digest. Any other digest string is kept as it is, in a map.
 *
 * Expiry is read, not scheduled: a digest past its expiry counts as absent, and its slot is
 * reclaimed when the table is rebuilt (when it fills, and by `purge`). No queue of expiries
 * holds every digest a second time.
 */
export class ReplayDigests {
  // The table: 4 words of key, the expiry and the state of each slot.
  private capacity = MIN_CAPACITY;
  private keys = new Uint32Array(MIN_CAPACITY * 4);
  private expiries = new Float64Array(MIN_CAPACITY);
  private states = new Uint8Array(MIN_CAPACITY);
  private used = 0;
  private deleted = 0;
  // Digests that are not 32 lowercase hex digits, with their expiry.
  private readonly others = new Map<string, number>();
  private readonly words = new Uint32Array(4);

  /** Digests held: the live ones, and expired ones not reclaimed yet (see `purge`). */
  get size(): number {
    return this.used + this.others.size;
  }

  /** Records `digest` until `now + ttlMs`; `false` when it is already recorded and not expired. */
  remember(digest: string, ttlMs: number, now: number): boolean {
    const at = now + ttlMs;
    const words = this.words;
    if (!wordsOf(digest, words)) {
      const until = this.others.get(digest);
      if (until !== undefined && until > now) return false;
      this.others.set(digest, at);
      return true;
    }
    const slot = this.find(words);
    if (slot >= 0) {
      if ((this.expiries[slot] as number) > now) return false;
      this.expiries[slot] = at;
      return true;
    }
    this.insert(words, at, now);
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

  /** Reclaims every digest expired at `now` (the table reclaims them itself as it fills). */
  purge(now: number): void {
    this.rebuild(now);
    for (const [digest, until] of this.others) if (until <= now) this.others.delete(digest);
  }

  /** The first slot to probe: the mixed words scaled to the capacity, which is any size. */
  private start(words: Uint32Array): number {
    const mixed = Math.imul((words[0] as number) ^ (words[3] as number), 0x9e3779b1);
    const hash = (mixed ^ (mixed >>> 15) ^ (words[1] as number)) >>> 0;
    return Math.floor((hash / 4294967296) * this.capacity);
  }

  private next(slot: number): number {
    return slot + 1 === this.capacity ? 0 : slot + 1;
  }

  /** The slot holding `words`, or -1. */
  private find(words: Uint32Array): number {
    const keys = this.keys;
    for (let slot = this.start(words); ; slot = this.next(slot)) {
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

  private insert(words: Uint32Array, at: number, now: number): void {
    // The table is at most three quarters full: past that it is rebuilt, without what has
    // expired. Linear probing over one byte of state a slot stays short at that load.
    if ((this.used + this.deleted + 1) * 4 > this.capacity * 3) this.rebuild(now);
    this.place(words, at);
  }

  private place(words: Uint32Array, at: number): void {
    let slot = this.start(words);
    while (this.states[slot] === FULL) slot = this.next(slot);
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

  /**
   * Rehashes the digests still live at `now` into a table of two slots for each: half full,
   * so half of the live count again can arrive before the next rebuild (each costs a few
   * slot visits per digest that arrived since). It grows with the window, and shrinks once a
   * burst has expired.
   */
  private rebuild(now: number): void {
    const { keys, expiries, states, capacity } = this;
    let live = 0;
    for (let slot = 0; slot < capacity; slot++) {
      if (states[slot] === FULL && (expiries[slot] as number) > now) live += 1;
    }
    const next = Math.max(MIN_CAPACITY, (live + 1) * 2);
    this.capacity = next;
    this.keys = new Uint32Array(next * 4);
    this.expiries = new Float64Array(next);
    this.states = new Uint8Array(next);
    this.used = 0;
    this.deleted = 0;
    const words = new Uint32Array(4);
    for (let slot = 0; slot < capacity; slot++) {
      if (states[slot] !== FULL || (expiries[slot] as number) <= now) continue;
      words.set(keys.subarray(slot * 4, slot * 4 + 4));
      this.place(words, expiries[slot] as number);
    }
  }
}
