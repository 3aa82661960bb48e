import { FaceverifyError } from '../errors.js';

/** Why an image could not be fetched. */
export type ImageFetchFailure =
  | 'host_not_allowed'
  | 'insecure_url'
  | 'expired'
  | 'redirect_refused'
  | 'too_large'
  | 'not_an_image'
  | 'http_error'
  | 'timeout';

/** `fetchFrontImage` refused or failed; `reason` says which check. The URL's query is never included. */
export class ImageFetchError extends FaceverifyError {
  readonly reason: ImageFetchFailure;

  constructor(reason: ImageFetchFailure, message: string, options?: { cause?: unknown }) {
    super('image_error', message, options);
    this.reason = reason;
  }
}
