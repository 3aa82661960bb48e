import type { StoredResult } from '../store/store.js';
import { openText, sealedTextKeyIds, sealText } from './sealed-text.js';
import type { TokenKey } from './token-keys.js';

const PREFIX = 'fvr1.';

/**
 * A result as a store holds it once sealed: one field, the whole `StoredResult` as JSON sealed
 * with AES-256-GCM (`fvr1.<key id>.<IV and ciphertext>`, one pair per key). Nothing of it is
 * left in clear: no store decides anything on a result's contents, only on whether a record
 * has one (`attachResult` never replaces one, `settle` keeps the first, a pending settle of a
 * record with one delivers it), so the outcome, the user's id, the reason and the image link
 * are all sealed, and the Receiver, which compares outcomes to spot a replayed webhook, does
 * so on what this wrapper opened.
 */
export interface SealedResult {
  sealed: string;
}

/** Whether a stored result is sealed; one written before results were sealed is in clear. */
export function isSealedResult(result: StoredResult | SealedResult | undefined): boolean {
  return (
    result !== undefined &&
    typeof (result as Partial<SealedResult>).sealed === 'string' &&
    (result as SealedResult).sealed.startsWith(PREFIX)
  );
}

// The record key binds the result to its record, as it binds a token; the prefix keeps a
// token's ciphertext, sealed under the same key for the same record, from opening as a result.
const associatedData = (recordKey: string) => `${PREFIX}${recordKey}`;

/** Seals `result` under each of `keys` for the record stored under `recordKey`. */
export async function sealResult(
  keys: readonly TokenKey[],
  result: StoredResult,
  recordKey: string,
): Promise<StoredResult> {
  const sealed: SealedResult = {
    sealed: await sealText(keys, PREFIX, JSON.stringify(result), associatedData(recordKey)),
  };
  // Stores keep a result as the opaque value they were given (JSON text or a copy).
  return sealed as unknown as StoredResult;
}

/** The ids of the keys a sealed result was sealed under. */
export function sealedResultKeyIds(result: StoredResult): string[] {
  return sealedTextKeyIds(PREFIX, (result as unknown as SealedResult).sealed);
}

/**
 * Opens a sealed result; `undefined` when no configured key opens it, or it was altered or
 * copied from another record.
 */
export async function openResult(
  keys: readonly TokenKey[],
  result: StoredResult,
  recordKey: string,
): Promise<StoredResult | undefined> {
  const plain = await openText(
    keys,
    PREFIX,
    (result as unknown as SealedResult).sealed,
    associatedData(recordKey),
  );
  if (plain === undefined) return undefined;
  try {
    return JSON.parse(plain) as StoredResult;
  } catch {
    return undefined;
  }
}
