import { openAesGcm, sealAesGcm } from '#aead';
import { RecentEntries } from '../../base/recent-entries.js';
import { fromBase64Url } from './base64-url.js';
import { allOf, andThen, type MaybeAsync } from './maybe-async.js';
import type { TokenKey } from './token-keys.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const IV_BYTES = 12;
const DATA_KEY_BYTES = 32;
/** Between the wrapped data key and each sealed part: in no base64url text, nor in a key id. */
const PART = '~';
// Binds a wrapped data key to its purpose: no other text sealed under a token key opens as one.
const WRAP_AAD = encoder.encode('faceverify data key v2');
/**
 * Texts sealed under one data key before a new one is drawn: AES-GCM with random 96-bit IVs is
 * sound for 2^32 of them per key, and 2^24 keeps the odds of two equal IVs below 2^-49.
 */
const DATA_KEY_SEALS = 2 ** 24;
/** Data keys kept opened: one per process (and per 2^24 seals) that wrote what is read here. */
const OPENED_DATA_KEYS_LIMIT = 256;

/** The data key this keyring seals with, and the header that carries it wrapped. */
interface DataKey {
  bytes: Uint8Array;
  /** `<key id>.<wrapped>` for each sealing key, joined by `.`. */
  header: string;
  seals: number;
}

/**
 * The keys of one store wrapper, and envelope sealing with them (as Tink's envelope AEAD and
 * cloud KMS data keys do): a random data key seals every text once, with AES-256-GCM, and is
 * carried beside it wrapped (AES-256-GCM too) under each sealing key, its id in clear so the
 * key that opens it is found without trying all:
 *
 * `<prefix><key id>.<wrapped data key>[.<key id>.<wrapped data key>…]~<part>[~<part>…]`
 *
 * each part the base64url of a 12-byte IV, the ciphertext and the tag. However many keys are
 * configured, a text is sealed once; the data key is wrapped once per key when it is drawn (per
 * keyring, and again every 2^24 seals) and opened once per process for each data key read.
 * Parts are sealed apart, each with its own associated data, so one can be dropped later
 * without sealing the rest again (a result's image link, once of no further use).
 *
 * Texts sealed under every key before envelopes (`<prefix><key id>.<IV and ciphertext>`, one
 * pair per key) still open: see `openEach`.
 */
export class Keyring {
  private dataKey: DataKey | Promise<DataKey> | undefined;
  // What each header read opened to (`undefined`: no key here opens it); its keys never change.
  private readonly opened = new RecentEntries<string, MaybeAsync<Uint8Array | undefined>>(
    OPENED_DATA_KEYS_LIMIT,
  );

  /** Every key once per id, in order: the same secret listed twice hashes and seals once. */
  readonly distinct: readonly TokenKey[];
  /**
   * The keys each data key is wrapped under, and users are looked up under (each one's hash of
   * the id): the keys that key and hash new records, or did while a rotation rolls out. Others
   * only open and find by token what they sealed and keyed before (a signing secret beside
   * `tokenKeys`): no lookup per webhook for a hash nothing new is written under.
   */
  readonly sealing: readonly TokenKey[];

  /**
   * @param keys Every key, in order: the first keys and hashes new records, all open.
   * @param sealing How many of the first keys each data key is wrapped under.
   */
  constructor(
    readonly keys: readonly TokenKey[],
    sealing: number,
  ) {
    this.distinct = keys.filter(
      (key, index) => keys.findIndex((other) => other.id === key.id) === index,
    );
    this.sealing = this.distinct.filter((key) => keys.indexOf(key) < sealing);
  }

  /** The key new records are keyed, and their users' ids hashed, under. */
  get first(): TokenKey {
    return this.keys[0]!;
  }

  /** `parts` (each plain text with its associated data) sealed as one text under `prefix`. */
  seal(
    prefix: string,
    parts: readonly (readonly [plain: string, aad: string])[],
  ): MaybeAsync<string> {
    return andThen(this.currentDataKey(), (dataKey) => {
      dataKey.seals += 1;
      const sealed = parts.map(([plain, aad]) => sealPart(dataKey.bytes, plain, aad));
      return andThen(
        allOf(sealed),
        (texts) => `${prefix}${dataKey.header}${PART}${texts.join(PART)}`,
      );
    });
  }

  /**
   * The parts of an envelope sealed under `prefix`, each opened with its associated data in
   * `aads` (a part dropped since is absent from the end); `undefined` when no key here opens
   * its data key, or anything of it was altered or copied from elsewhere.
   */
  open(prefix: string, sealed: string, aads: readonly string[]): MaybeAsync<string[] | undefined> {
    const parts = sealed.slice(prefix.length).split(PART);
    if (parts.length < 2 || parts.length - 1 > aads.length) return undefined;
    return andThen(this.openDataKey(parts[0]!), (dataKey) => {
      if (!dataKey) return undefined;
      const opened = parts.slice(1).map((part, index) => openText(dataKey, part, aads[index]!));
      return andThen(allOf(opened), (texts) =>
        texts.some((text) => text === undefined) ? undefined : (texts as string[]),
      );
    });
  }

  /**
   * Opens a text sealed under every key apart (`<prefix><key id>.<IV and ciphertext>`, one
   * pair per key), as texts were before envelopes, with the first key here among those it
   * was sealed under; `undefined` when none is, or it was altered.
   */
  openEach(prefix: string, sealed: string, aad: string): MaybeAsync<string | undefined> {
    const parts = sealed.slice(prefix.length).split('.');
    for (let index = 0; index + 1 < parts.length; index += 2) {
      const key = this.keys.find((candidate) => candidate.id === parts[index]);
      if (key) return openText(key.sealKey, parts[index + 1]!, aad);
    }
    return undefined;
  }

  private currentDataKey(): MaybeAsync<DataKey> {
    const current = this.dataKey;
    if (current instanceof Promise) return current;
    if (current && current.seals < DATA_KEY_SEALS) return current;
    const bytes = randomBytes(DATA_KEY_BYTES).slice();
    const wrapped = this.sealing.map((key) =>
      andThen(sealPart(key.sealKey, bytes, WRAP_AAD), (text) => `${key.id}.${text}`),
    );
    const drawn = andThen(allOf(wrapped), (pairs): DataKey => {
      const dataKey = { bytes, header: pairs.join('.'), seals: 0 };
      this.dataKey = dataKey;
      return dataKey;
    });
    if (drawn instanceof Promise) {
      this.dataKey = drawn;
      // A failed draw is seen by the seals that waited on it; the next one draws again.
      drawn.catch(() => {
        if (this.dataKey === drawn) this.dataKey = undefined;
      });
    }
    return drawn;
  }

  /** The data key a header carries, opened with the first key here among those it names. */
  private openDataKey(header: string): MaybeAsync<Uint8Array | undefined> {
    const known = this.opened.get(header);
    if (known !== undefined || this.opened.has(header)) return known;
    const opening = this.unwrap(header);
    this.opened.set(header, opening);
    if (opening instanceof Promise) void opening.then((bytes) => this.opened.set(header, bytes));
    return opening;
  }

  private unwrap(header: string): MaybeAsync<Uint8Array | undefined> {
    const pairs = header.split('.');
    for (let index = 0; index + 1 < pairs.length; index += 2) {
      const key = this.keys.find((candidate) => candidate.id === pairs[index]);
      if (key) return openBytes(key.sealKey, pairs[index + 1]!, WRAP_AAD);
    }
    return undefined;
  }
}

/**
 * The ids of the keys a sealed text can be opened with, enveloped or not: what an instance
 * must list to open it, read without any key.
 */
export function sealedKeyIdsOf(prefix: string, sealed: string): string[] {
  const end = sealed.indexOf(PART);
  const header = sealed.slice(prefix.length, end < 0 ? undefined : end);
  return header.split('.').filter((_, index) => index % 2 === 0);
}

/** `plain` sealed with AES-256-GCM under `key`: the base64url of a fresh IV, ciphertext and tag. */
function sealPart(
  key: Uint8Array,
  plain: Uint8Array | string,
  aad: Uint8Array | string,
): MaybeAsync<string> {
  return sealAesGcm(key, randomBytes(IV_BYTES), aad, plain);
}

/** What `sealPart` sealed; `undefined` when the key, IV, associated data or bytes differ. */
function openBytes(
  key: Uint8Array,
  part: string,
  aad: Uint8Array,
): MaybeAsync<Uint8Array | undefined> {
  try {
    const bytes = fromBase64Url(part);
    const opening = openAesGcm(key, bytes.subarray(0, IV_BYTES), aad, bytes.subarray(IV_BYTES));
    return opening instanceof Promise ? opening.catch(() => undefined) : opening;
  } catch {
    return undefined;
  }
}

/** The text `sealPart` sealed (see `openBytes`). */
function openText(key: Uint8Array, part: string, aad: string): MaybeAsync<string | undefined> {
  return andThen(openBytes(key, part, encoder.encode(aad)), (bytes) =>
    bytes === undefined ? undefined : decoder.decode(bytes),
  );
}

// Random bytes are drawn from a buffer filled 4 KiB at a time: one getRandomValues call costs
// about as much for 4 KiB as for 12 bytes, and a webhook seals several texts. A new buffer
// replaces a used one, so no byte is ever drawn twice (no IV repeats).
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let offset = 0;

/** `length` (at most 4096) fresh random bytes, a view of their own no later draw overlaps. */
function randomBytes(length: number): Uint8Array {
  if (offset + length > pool.byteLength) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}
