import { FaceverifyError } from '../base/errors.js';

/** Why an image could not be fetched. */
export type ImageFetchFailure =
  | 'invalid_url'
  | 'host_not_allowed'
  | 'insecure_url'
  | 'expired'
  | 'removed'
  | 'redirect_refused'
  | 'too_large'
  | 'not_an_image'
  | 'type_not_allowed'
  | 'http_error'
  | 'network_error'
  | 'timeout'
  | 'aborted';

/**
 * `fetchFrontImage` refused or failed; `reason` says which check or which failure. Every
 * failure of `fetchFrontImage` is one of these, network errors and timeouts included (the
 * original error is the `cause`). The URL's query is never included.
 */
export class ImageFetchError extends FaceverifyError {
  readonly reason: ImageFetchFailure;

  constructor(reason: ImageFetchFailure, message: string, options?: { cause?: unknown }) {
    super('image_error', message, options);
    this.reason = reason;
  }
}
