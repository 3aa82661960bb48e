import { type Keyring, sealedKeyIdsOf } from './keyring.js';
import { andThen, type MaybeAsync } from './maybe-async.js';

/** A token sealed in an envelope (see `Keyring`), the prefix and record key as associated data. */
const PREFIX = 'fvt2.';
/** A token sealed under each key apart, as before envelopes, the record key as associated data. */
const EACH_KEY_PREFIX = 'fvt1.';
/**
 * Between the token and its user's id in the sealed text. A token is a path segment and never
 * holds a NUL; a token sealed before user ids were sealed with it has none.
 */
const USER_SEPARATOR = '\u0000';

/** Whether a stored token is sealed; a record written before sealing holds it in clear. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX) || stored.startsWith(EACH_KEY_PREFIX);
}

/** The associated data of a token's verify URL, sealed as the envelope's second part. */
const verifyUrlAad = (recordKey: string) => `${PREFIX}${recordKey}#verify_url`;

/**
 * Seals a token once, in an envelope (see `Keyring`): `fvt2.<key id>.<wrapped data key>…~<IV
 * and ciphertext>`, the record key as associated data. The user's id rides along when given:
 * the store holds only a keyed hash of it, and an open session without a result has nowhere
 * else to keep the id the Receiver names it by (a `verification.expired` event). It is dropped
 * with the token when the record closes. So is the session's verify URL, a second part when
 * given (with when the service said it expires, after a NUL: a URL holds none): it holds the
 * token, and is handed out again while the session is open.
 */
export function sealToken(
  keyring: Keyring,
  token: string,
  recordKey: string,
  externalUserId?: string,
  verifyUrl?: string,
  verifyUrlExpiresAt?: number,
): MaybeAsync<string> {
  const plain = externalUserId === undefined ? token : `${token}${USER_SEPARATOR}${externalUserId}`;
  const tokenPart = [plain, `${PREFIX}${recordKey}`] as const;
  if (verifyUrl === undefined) return keyring.seal(PREFIX, [tokenPart]);
  const link =
    verifyUrlExpiresAt === undefined
      ? verifyUrl
      : `${verifyUrl}${USER_SEPARATOR}${verifyUrlExpiresAt}`;
  return keyring.seal(PREFIX, [tokenPart, [link, verifyUrlAad(recordKey)]]);
}

/** The ids of the keys a sealed token can be opened with: what an instance must list to open it. */
export function sealedKeyIds(sealed: string): string[] {
  return sealedKeyIdsOf(PREFIX, sealed);
}

/** A sealed token opened: the token, and its user's id when it was sealed with it. */
export interface OpenedToken {
  token: string;
  externalUserId?: string;
  /** The session's verify URL, when it was sealed with the token. */
  verifyUrl?: string;
  /** When the service said the verify URL expires, when it was sealed with it. */
  verifyUrlExpiresAt?: number;
}

/**
 * Opens a sealed token, enveloped (`fvt2.`) or sealed under each key (`fvt1.`); `undefined`
 * when no configured key opens it (they were removed from the configuration) or it was altered.
 */
export function openSealedToken(
  keyring: Keyring,
  sealed: string,
  recordKey: string,
): MaybeAsync<OpenedToken | undefined> {
  if (!sealed.startsWith(PREFIX)) {
    return andThen(keyring.openEach(EACH_KEY_PREFIX, sealed, recordKey), (plain) =>
      plain === undefined ? undefined : openedToken(plain),
    );
  }
  const aads = [`${PREFIX}${recordKey}`, verifyUrlAad(recordKey)];
  return andThen(keyring.open(PREFIX, sealed, aads), (parts) => {
    if (parts === undefined) return undefined;
    const opened = openedToken(parts[0]!);
    const link = parts[1];
    if (link === undefined) return opened;
    const at = link.indexOf(USER_SEPARATOR);
    if (at < 0) opened.verifyUrl = link;
    else {
      opened.verifyUrl = link.slice(0, at);
      opened.verifyUrlExpiresAt = Number(link.slice(at + 1));
    }
    return opened;
  });
}

function openedToken(plain: string): OpenedToken {
  const at = plain.indexOf(USER_SEPARATOR);
  return at < 0
    ? { token: plain }
    : { token: plain.slice(0, at), externalUserId: plain.slice(at + 1) };
}
