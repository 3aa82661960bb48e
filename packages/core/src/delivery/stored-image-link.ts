import type { StoredResult } from '../store/store.js';

/**
 * The result as the store keeps it once its link is of no further use: after the session
 * closed (delivered or given up), or for a retry due after the link's 15 minutes. The signed
 * query in the link is a credential to the user's face image: it is not kept past its use.
 */
export function withoutImageLink(result: StoredResult): StoredResult {
  if (result.payload.frontImageUrl === '') return result;
  return { ...result, payload: { ...result.payload, frontImageUrl: '' } };
}
