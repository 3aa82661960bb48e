import { ConfigurationError } from '../base/errors.js';

// Header values must be visible ASCII. Checking here matters because `fetch` quotes an
// invalid header value in its error message, which would put the key into an error.
const HEADER_SAFE = /^[\x21-\x7e]+$/;
// base64url, and plain base64 with its padding, which some token libraries still emit.
const SEGMENT = /^[\w\-+/]*={0,2}$/;

function decodeSegment(segment: string): string | undefined {
  const base64 = segment.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  try {
    return atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  } catch {
    return undefined;
  }
}

/**
 * A JOSE compact token: a JWT or JWS (three segments) or a JWE (five), whose first segment
 * is a JSON object. The header is decoded rather than matched on its `eyJ` prefix, because
 * whitespace in the JSON (`{ "alg"` encodes as `eyAi`) changes the prefix.
 */
function looksLikeJoseToken(apiKey: string): boolean {
  const segments = apiKey.split('.');
  if (segments.length !== 3 && segments.length !== 5) return false;
  if (segments[0] === '' || !segments.every((segment) => SEGMENT.test(segment))) return false;
  const header = decodeSegment(segments[0]!);
  return header !== undefined && /^\s*\{\s*"/.test(header);
}

/**
 * Refuses API keys that cannot be right, without ever quoting the key. `source` names where
 * the key came from so that the message points at what to fix.
 */
export function assertApiKey(apiKey: string, source: string): void {
  if (looksLikeJoseToken(apiKey)) {
    throw new ConfigurationError(
      `The API key from ${source} looks like a JWT (a signed or encrypted token). A dashboard ` +
        'session token is not an API key, and the service does not accept it in place of one. ' +
        'Use the API key of your account, from Settings.',
    );
  }
  if (!HEADER_SAFE.test(apiKey)) {
    throw new ConfigurationError(
      `The API key from ${source} contains spaces, control or non-ASCII characters; ` +
        'check that it was copied whole and alone.',
    );
  }
}
