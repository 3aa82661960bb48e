/**
 * Characters that change what a terminal shows, or where a line ends: C0 and C1 controls
 * (escape sequences start with ESC or CSI), DEL, the Unicode line and paragraph separators,
 * and the bidirectional overrides and isolates that reorder what follows them.
 */
const BEYOND_ASCII = '\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNPRINTABLE = new RegExp(`[\\\\\\u0000-\\u001f${BEYOND_ASCII}]`, 'g');
/** Those of them `JSON.stringify` leaves as they are. */
const LEFT_BY_JSON = new RegExp(`[${BEYOND_ASCII}]`, 'g');

/**
 * `text` as one line a terminal shows as it is: every character of {@link UNPRINTABLE}
 * written as an escape (`\n`, `\x1b`, `\u2028`), and a backslash doubled, so an id that
 * holds the two characters `\n` is told from one that holds a newline. Everything the command
 * line prints from the store or from another party (user ids, keys, a receiver's answer)
 * goes through it: one dead letter never prints as two lines, nor recolours the terminal.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    if (char === '\\') return '\\\\';
    const named = NAMED_ESCAPES[char];
    if (named) return named;
    const code = char.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * JSON text with the characters of {@link UNPRINTABLE} that `JSON.stringify` leaves as they
 * are (DEL, C1 controls, the separators and bidirectional controls) written as `\u` escapes:
 * the same JSON value, one line a terminal shows as it is.
 */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(
    LEFT_BY_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
