import { ConfigurationError } from '../errors.js';

// Three base64url segments, the first a JSON header (`{"` encodes as `eyJ`); the signature
// segment may be empty for unsigned tokens.
const JWT_SHAPE = /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/;
// Header values must be visible ASCII. Checking here matters because `fetch` quotes an
// invalid header value in its error message, which would put the key into an error.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * Refuses API keys that cannot be right, without ever quoting the key. `source` names where
 * the key came from so that the message points at what to fix.
 */
export function assertApiKey(apiKey: string, source: string): void {
  if (JWT_SHAPE.test(apiKey)) {
    throw new ConfigurationError(
      `The API key from ${source} looks like a JWT. A dashboard session token is not an API ` +
        'key, and the service does not accept it in place of one. Use the API key of your account.',
    );
  }
  if (!HEADER_SAFE.test(apiKey)) {
    throw new ConfigurationError(
      `The API key from ${source} contains spaces, control or non-ASCII characters; ` +
        'check that it was copied whole and alone.',
    );
  }
}
