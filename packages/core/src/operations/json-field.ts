/** What `jsonField` gives for a value it does not read: an object, an array, or no JSON at all. */
export const UNREAD_FIELD: unique symbol = Symbol('unread field');

/** A value `jsonField` reads, as `JSON.parse` gives it. */
export type JsonFieldValue = string | number | boolean | null;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The value of the field `name` of a flat JSON object, read from its text without parsing
 * the rest: where the text is the object, the same value `JSON.parse(text)[name]` has
 * (escapes decoded, numbers as numbers). Reading costs a few string searches, where parsing a
 * body costs building every value in it. `undefined` when no such field is written; for a
 * value that is an object, an array or not JSON, `UNREAD_FIELD`.
 *
 * In valid JSON, `"name"` followed by a colon is a key: a quote inside a string is escaped.
 * Only where a text repeats a key or nests it before the top-level one (no payload of the
 * service does) can it read another value than the parse would.
 */
export function jsonField(
  text: string,
  name: string,
): JsonFieldValue | typeof UNREAD_FIELD | undefined {
  const key = `"${name}"`;
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
    const colon = afterSpace(text, at + key.length);
    // The same words as a value, not a key: read on.
    if (text.charCodeAt(colon) !== COLON) continue;
    return valueAt(text, afterSpace(text, colon + 1));
  }
  return undefined;
}

/** The JSON literal (string, number, boolean, null) that starts at `start`. */
function valueAt(text: string, start: number): JsonFieldValue | typeof UNREAD_FIELD {
  if (text.charCodeAt(start) !== QUOTE) {
    let end = start;
    while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
    const word = text.slice(start, end);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    // Number() reads a JSON number as JSON.parse does; it also reads words JSON does not.
    return JSON_NUMBER.test(word) ? Number(word) : UNREAD_FIELD;
  }
  let end = text.indexOf('"', start + 1);
  while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
  if (end === -1) return UNREAD_FIELD;
  // Plain text is the string itself: only escapes need the parser.
  const plain = text.slice(start + 1, end);
  if (!plain.includes('\\')) return plain;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return UNREAD_FIELD;
  }
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** The end of a number, `true`, `false` or `null`: a comma, a closing bracket, or space. */
function isDelimiter(code: number): boolean {
  return code === 0x2c || code === 0x7d || code === 0x5d || isSpace(code);
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function afterSpace(text: string, from: number): number {
  let at = from;
  while (isSpace(text.charCodeAt(at))) at++;
  return at;
}
