import { checkStorableUserId } from '@faceverify/core/store';

/**
 * `externalUserIds` as given, once each is one the store could hold bit for bit: the ids a
 * statement reads by (`hasNewerSession`), refused as `insert` and `findByUser` refuse them.
 */
export function storableUserIds(
  externalUserIds: readonly string[],
  where: string,
): readonly string[] {
  for (const externalUserId of externalUserIds) checkStorableUserId(externalUserId, where);
  return externalUserIds;
}
