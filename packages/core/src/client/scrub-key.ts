const REDACTED = '[redacted]';

/**
 * Removes the API key from response text before it is parsed, so that nothing the client
 * returns, throws or logs carries it, even when a service echoes the key back ("invalid key
 * sk_..."). The JSON-escaped spelling is removed too, for keys with `"` or `\`.
 */
export function scrubKey(text: string, apiKey: string): string {
  if (text.includes(apiKey)) text = text.split(apiKey).join(REDACTED);
  const escaped = JSON.stringify(apiKey).slice(1, -1);
  if (escaped !== apiKey && text.includes(escaped)) text = text.split(escaped).join(REDACTED);
  return text;
}
