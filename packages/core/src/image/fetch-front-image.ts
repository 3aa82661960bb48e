import type { VerificationCompletedEvent } from '../delivery/events.js';
import {
  type FrontImageState,
  IMAGE_URL_LIFETIME_MS,
} from '../wire/payload/front-image-lifetime.js';
import { readLimited } from '../wire/read-limited.js';
import { ImageFetchError } from './image-fetch-error.js';

export { IMAGE_URL_LIFETIME_MS };

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Raster types accepted by default. SVG is not among them: it can carry scripts, and an image
 * kept to be shown later must not.
 */
export const RASTER_IMAGE_TYPES: readonly string[] = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/avif',
];

export interface FetchFrontImageOptions {
  /**
   * Hosts the image may come from, e.g. `['files.faceverify.example']`. Required: a
   * payload's URL is data, and fetching anything it names would be request forgery. An entry
   * without a port allows the scheme's default port only; name the port to allow another one
   * (`'files.faceverify.example:8443'`).
   */
  allowedHosts: readonly string[];
  /** Media types accepted. Default {@link RASTER_IMAGE_TYPES}: JPEG, PNG, WebP, GIF and AVIF. */
  allowedContentTypes?: readonly string[];
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Largest image accepted. Default 10 MiB. */
  maxBytes?: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** The clock, for tests. */
  now?: () => number;
}

export interface FrontImage {
  bytes: Uint8Array;
  contentType: string;
}

function describe(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function parseUrl(raw: unknown): URL {
  try {
    return new URL(String(raw));
  } catch {
    throw new ImageFetchError('invalid_url', 'The frontImageUrl of the event is not a URL.');
  }
}

function checkUrl(raw: unknown, allowedHosts: readonly string[]): URL {
  const url = parseUrl(raw);
  // `url.host` carries the port only when it is not the scheme's default, so an entry without
  // a port matches the default port alone: a payload cannot point at another service
  // (`:6379`) on an allowed machine.
  if (!allowedHosts.some((entry) => entry.toLowerCase() === url.host)) {
    throw new ImageFetchError(
      'host_not_allowed',
      `The image host ${url.host} is not in allowedHosts; add it if it is the service's file host` +
        `${url.port ? ` (with its port, ${url.port}: an entry without a port allows the default port only)` : ''}.`,
    );
  }
  // Plain http is accepted only on this machine, where the local emulator serves images.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new ImageFetchError(
      'insecure_url',
      `Refusing to fetch ${describe(url)} over ${url.protocol}`,
    );
  }
  return url;
}

/** Why a request or a body read failed: our timeout, the caller's signal, or the network. */
function failure(
  error: unknown,
  url: URL,
  timeout: AbortSignal,
  signal: AbortSignal | undefined,
): ImageFetchError {
  if (error instanceof ImageFetchError) return error;
  if (timeout.aborted) {
    return new ImageFetchError('timeout', `Fetching ${describe(url)} timed out.`, {
      cause: error,
    });
  }
  if (signal?.aborted) {
    return new ImageFetchError('aborted', `Fetching ${describe(url)} was aborted.`, {
      cause: error,
    });
  }
  return new ImageFetchError(
    'network_error',
    `Fetching ${describe(url)} failed: the connection failed or was cut. Try again while the link is valid.`,
    { cause: error },
  );
}

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

async function readCapped(response: Response, maxBytes: number, url: URL): Promise<Uint8Array> {
  const tooLarge = () =>
    new ImageFetchError(
      'too_large',
      `The image at ${describe(url)} is larger than ${maxBytes} bytes.`,
    );
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array();
  const read = await readLimited(response.body, maxBytes);
  if (read.kind === 'too-large') throw tooLarge();
  if (read.kind === 'failed') throw read.error;
  return read.bytes;
}

/**
 * Downloads the front image of a result. The URL must be on an allowed host and port,
 * redirects are refused, only raster image types are accepted, the size is capped and the
 * request (body included) times out. Every failure is an `ImageFetchError`. A link older than its
 * 15 minutes is refused with a clear error instead of a confusing 403.
 *
 * @example
 * receiver.on('verification.completed', async (event) => {
 *   const image = await fetchFrontImage(event, { allowedHosts: ['files.faceverify.example'] });
 *   await archive.put(`${event.data.external_user_id}.jpg`, image.bytes);
 * });
 */
export async function fetchFrontImage(
  event: Pick<VerificationCompletedEvent, 'data' | 'receivedAt'> & {
    frontImage?: FrontImageState;
  },
  options: FetchFrontImageOptions,
): Promise<FrontImage> {
  const expired = () =>
    new ImageFetchError(
      'expired',
      'The front image link has expired (links last 15 minutes after they are issued). Fetch the image inside your verification.completed handler, or ask the service for a fresh result with receiver.confirm(token).',
    );
  // Delivered after its lifetime, the event carries no link at all: that, not a bad URL.
  if (event.frontImage?.state === 'expired') throw expired();
  if (event.frontImage?.state === 'removed') {
    throw new ImageFetchError(
      'removed',
      'This delivery carries no image link: a result given up (a dead letter) keeps none in the store. Fetch the image inside your verification.completed handler, or ask the service for a fresh result with receiver.confirm(token) while it still knows the session.',
    );
  }
  const url = checkUrl(event.data.frontImageUrl, options.allowedHosts);
  const now = options.now ?? Date.now;
  if (now() - event.receivedAt.getTime() > IMAGE_URL_LIFETIME_MS) throw expired();
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { redirect: 'manual', signal });
  } catch (error) {
    throw failure(error, url, timeout, options.signal);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new ImageFetchError(
      'redirect_refused',
      `The image at ${describe(url)} redirects; refused.`,
    );
  }
  if (response.status === 403 || response.status === 410) {
    await response.body?.cancel();
    throw expired();
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ImageFetchError(
      'http_error',
      `Fetching ${describe(url)} answered ${response.status}.`,
    );
  }
  const contentType = response.headers.get('content-type') ?? '';
  const type = mediaType(contentType);
  if (!type.startsWith('image/')) {
    await response.body?.cancel().catch(() => undefined);
    throw new ImageFetchError(
      'not_an_image',
      `The resource at ${describe(url)} is ${contentType || 'untyped'}, not an image.`,
    );
  }
  const allowedTypes = (options.allowedContentTypes ?? RASTER_IMAGE_TYPES).map(mediaType);
  if (!allowedTypes.includes(type)) {
    await response.body?.cancel().catch(() => undefined);
    throw new ImageFetchError(
      'type_not_allowed',
      `The image at ${describe(url)} is ${type}, which is not in allowedContentTypes (${allowedTypes.join(', ')}).${type === 'image/svg+xml' ? ' SVG is refused by default because it can carry scripts.' : ''}`,
    );
  }
  try {
    return {
      bytes: await readCapped(response, options.maxBytes ?? 10 * 1024 * 1024, url),
      contentType,
    };
  } catch (error) {
    throw failure(error, url, timeout, options.signal);
  }
}
