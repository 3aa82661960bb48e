/**
 * Where a page of dead letters ended: the retention end of its last record and that record's
 * key. Dead letters are listed in that order (retention end, then key), so a page starts
 * strictly after the cursor, whether or not the record it names is still there.
 */
export interface DeadLetterPosition {
  purgeAt: number;
  key: string;
}

/** The opaque cursor a store hands out after a page of dead letters. */
export function encodeDeadLetterCursor({ purgeAt, key }: DeadLetterPosition): string {
  return `${purgeAt}:${key}`;
}

/**
 * Reads a cursor of `encodeDeadLetterCursor`; a cursor that is not one is refused, as
 * starting over or skipping silently would both list the wrong records.
 */
export function decodeDeadLetterCursor(cursor: string): DeadLetterPosition {
  const colon = cursor.indexOf(':');
  const purgeAt = Number(cursor.slice(0, colon));
  if (colon <= 0 || !Number.isSafeInteger(purgeAt) || colon === cursor.length - 1) {
    throw new RangeError(
      `"${cursor}" is not a dead-letter cursor: pass the cursor of the previous page as it was returned, or none for the first page.`,
    );
  }
  return { purgeAt, key: cursor.slice(colon + 1) };
}

/** Whether a dead letter comes after `position` in listing order. */
export function isAfter(purgeAt: number, key: string, position: DeadLetterPosition): boolean {
  return purgeAt > position.purgeAt || (purgeAt === position.purgeAt && key > position.key);
}
