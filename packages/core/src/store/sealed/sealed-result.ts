import type { StoredResult } from '../store.js';
import { type Keyring, sealedKeyIdsOf } from './keyring.js';
import { andThen, type MaybeAsync } from './maybe-async.js';

/** A result sealed in an envelope, its image link a part of its own (see `sealResult`). */
const PREFIX = 'fvr2.';
/** A result sealed whole under each key apart, as before envelopes. */
const EACH_KEY_PREFIX = 'fvr1.';
/** Between the body's associated data and the link's: a record key never holds a NUL. */
const LINK_AAD = '\u0000frontImageUrl';

/**
 * A result as a store holds it once sealed: one field, the whole `StoredResult` sealed with
 * AES-256-GCM. Nothing of it is left in clear: no store decides anything on a result's
 * contents, only on whether a record has one (`attachResult` never replaces one, `settle`
 * keeps the first, a pending settle of a record with one delivers it), so the outcome, the
 * user's id, the reason and the image link are all sealed, and the Receiver, which compares
 * outcomes to spot a replayed webhook, does so on what this wrapper opened.
 *
 * Two versions, named by the prefix:
 * - `fvr2.` (written now): an envelope (see `Keyring`) of two parts, the result as JSON with
 *   `frontImageUrl` empty, then the link alone (absent when the result has none, or once it
 *   was dropped);
 * - `fvr1.` (written before): the JSON sealed under each key apart, one pair per key.
 */
export interface SealedResult {
  sealed: string;
}

const textOf = (result: StoredResult | SealedResult) => (result as SealedResult).sealed;

/** Whether a stored result is sealed; one written before results were sealed is in clear. */
export function isSealedResult(result: StoredResult | SealedResult | undefined): boolean {
  if (result === undefined) return false;
  const sealed = (result as Partial<SealedResult>).sealed;
  return (
    typeof sealed === 'string' && (sealed.startsWith(PREFIX) || sealed.startsWith(EACH_KEY_PREFIX))
  );
}

// The record key binds the result to its record, as it binds a token; the prefix keeps a
// token's ciphertext, sealed for the same record, from opening as a result.
const bodyAad = (recordKey: string) => `${PREFIX}${recordKey}`;
const linkAad = (recordKey: string) => `${PREFIX}${recordKey}${LINK_AAD}`;

/** Seals `result` once for the record stored under `recordKey`. */
export function sealResult(
  keyring: Keyring,
  result: StoredResult,
  recordKey: string,
): MaybeAsync<StoredResult> {
  const link = result.payload.frontImageUrl;
  const body = link ? { ...result, payload: { ...result.payload, frontImageUrl: '' } } : result;
  const parts: [string, string][] = [[JSON.stringify(body), bodyAad(recordKey)]];
  if (link) parts.push([link, linkAad(recordKey)]);
  // Stores keep a result as the opaque value they were given (JSON text or a copy).
  return andThen(keyring.seal(PREFIX, parts), (sealed) => ({ sealed }) as unknown as StoredResult);
}

/**
 * A sealed result without its image link, sealed nothing again: the same envelope with the
 * link's part left out. `undefined` for a result sealed before envelopes, whose link is not a
 * part of its own.
 */
export function sealedWithoutLink(sealed: StoredResult): StoredResult | undefined {
  const text = textOf(sealed);
  if (!text.startsWith(PREFIX)) return undefined;
  const parts = text.split('~');
  if (parts.length <= 2) return sealed;
  return { sealed: `${parts[0]}~${parts[1]}` } as unknown as StoredResult;
}

/** The ids of the keys a sealed result can be opened with. */
export function sealedResultKeyIds(result: StoredResult): string[] {
  const text = textOf(result);
  return sealedKeyIdsOf(text.startsWith(PREFIX) ? PREFIX : EACH_KEY_PREFIX, text);
}

/**
 * Opens a sealed result; `undefined` when no configured key opens it, or it was altered or
 * copied from another record.
 */
export function openResult(
  keyring: Keyring,
  result: StoredResult,
  recordKey: string,
): MaybeAsync<StoredResult | undefined> {
  const text = textOf(result);
  if (!text.startsWith(PREFIX)) {
    return andThen(
      keyring.openEach(EACH_KEY_PREFIX, text, `${EACH_KEY_PREFIX}${recordKey}`),
      parse,
    );
  }
  return andThen(keyring.open(PREFIX, text, [bodyAad(recordKey), linkAad(recordKey)]), (parts) => {
    const opened = parse(parts?.[0]);
    if (opened && parts![1] !== undefined) opened.payload.frontImageUrl = parts![1];
    return opened;
  });
}

function parse(plain: string | undefined): StoredResult | undefined {
  if (plain === undefined) return undefined;
  try {
    return JSON.parse(plain) as StoredResult;
  } catch {
    return undefined;
  }
}
