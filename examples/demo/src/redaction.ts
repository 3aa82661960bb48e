/**
 * How the demo shows credentials: session tokens and keys by a prefix, signed links without
 * the signature that makes them usable.
 */

/** A hosted session token's first six characters, as faceverify's own logs show it. */
export function shortToken(token: string): string {
  return `${token.slice(0, 6)}…`;
}

/** An API key or signing secret, shortened as the emulator's banner examples show them. */
export function shortCredential(value: string): string {
  const prefix = value.match(/^[a-z]+_(?:test_)?/)?.[0] ?? '';
  return `${value.slice(0, prefix.length + 4)}…`;
}

/** A signed URL without its query string, which carries the signature. */
export function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
}
