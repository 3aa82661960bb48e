import { randomBytes } from 'node:crypto';
import { sign, verify } from '@faceverify/core';

/** Why an image link is refused. */
export type ImageLinkCheck = 'valid' | 'expired' | 'invalid';

/** Path under which front images are served; the image id follows. */
export const FRONT_IMAGE_PATH = '/files/front/';

/**
 * Issues and checks signed, expiring links to front images: `expires` (epoch milliseconds) and
 * `signature` (HMAC-SHA256 of the id and the expiry with a key that never leaves the emulator)
 * travel in the query, so a link cannot be extended or pointed at another image.
 */
export class FrontImageLinks {
  private readonly key = randomBytes(32).toString('hex');

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** A link valid for `ttlMs` from now. */
  async issue(baseUrl: string, imageId: string): Promise<string> {
    const expires = this.now() + this.ttlMs;
    const url = new URL(`${FRONT_IMAGE_PATH}${encodeURIComponent(imageId)}`, `${baseUrl}/`);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('signature', await sign(signedText(imageId, expires), this.key));
    return url.toString();
  }

  /** The signature is checked before the expiry, so a tampered expiry reads as invalid. */
  async check(
    imageId: string,
    expires: string | undefined,
    signature: string | undefined,
  ): Promise<ImageLinkCheck> {
    if (expires === undefined || !/^\d{1,16}$/.test(expires)) return 'invalid';
    const expiresAt = Number(expires);
    if (!(await verify(signedText(imageId, expiresAt), signature, this.key))) return 'invalid';
    return this.now() >= expiresAt ? 'expired' : 'valid';
  }
}

function signedText(imageId: string, expires: number): string {
  return `${imageId}.${expires}`;
}
