/**
 * The form of a word that agrees with `count`: `inflected(1, 'was', 'were')` is `was`,
 * `inflected(2, 'record')` is `records`.
 */
export function inflected(count: number, singular: string, plural = `${singular}s`): string {
  return count === 1 ? singular : plural;
}

/**
 * A count and its noun as a person would write them, for messages: `1 key`, `2 keys`, `0 keys`;
 * `plural` where adding an s is not the plural.
 *
 * @example
 * `Redis evicted ${counted(evicted, 'key')} under memory pressure`
 */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${inflected(count, singular, plural)}`;
}
