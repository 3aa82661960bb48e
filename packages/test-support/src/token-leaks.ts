/**
 * The forms a session token could be kept in: as it is, the hex and base64 of its text, and
 * the hex, base64 and raw bytes (latin1) of what its base64url decodes to.
 */
function tokenForms(token: string): string[] {
  const text = Buffer.from(token, 'utf8');
  const bytes = Buffer.from(token, 'base64url');
  return [
    token,
    text.toString('hex'),
    text.toString('base64'),
    bytes.toString('hex'),
    bytes.toString('base64'),
    bytes.toString('latin1'),
  ];
}

/** The tokens found in `dump` (a store's contents as text) in any of their forms. */
export function tokenLeaks(dump: string, tokens: readonly string[]): string[] {
  const haystack = dump.toLowerCase();
  return tokens.filter((token) =>
    tokenForms(token).some((form) => haystack.includes(form.toLowerCase())),
  );
}

/**
 * How many distinct sealed tokens a dump holds: `fvt2.<key id>.<wrapped data key>…~<sealed>`
 * (several share one data key, so each is told apart by its sealed part), or `fvt1.<key
 * id>.<sealed>…` as tokens were sealed before.
 */
export function sealedTokenCount(dump: string): number {
  return new Set(
    dump.match(/fvt2\.[A-Za-z0-9_.-]+~[A-Za-z0-9_-]+|fvt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g),
  ).size;
}
