/** The header the service signs every webhook with (hex HMAC-SHA256 of the raw body). */
export const SIGNATURE_HEADER = 'x-webhook-signature';

/** Request headers as Fetch `Headers`, Node's `IncomingHttpHeaders`, or a plain record. */
export type HeadersLike =
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

/**
 * Reads one header. A header sent more than once comes back comma-joined, as `Headers`
 * does it, so a request with two signatures fails the check instead of having one picked.
 */
export function readHeader(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | readonly string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    // Node's headers are lower case already: this looks further only for a hand-made record,
    // and compares lengths first, so a header that is absent (an unsigned request) is cheap.
    const lower = name.toLowerCase();
    for (const key in record) {
      if (key.length === lower.length && key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  if (Array.isArray(value)) return value.join(', ');
  return value as string | undefined;
}
