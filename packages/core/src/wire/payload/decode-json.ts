import { WebhookPayloadError } from '../../base/errors.js';
import {
  JsonTooDeepError,
  parseJsonWithoutPrototypeKeys,
} from './parse-json-without-prototype-keys.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes strict UTF-8 and parses JSON without prototype keys (see
 * `parseJsonWithoutPrototypeKeys`); both failures are a `WebhookPayloadError`.
 */
export function decodeJson(body: string | Uint8Array): unknown {
  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    try {
      text = decoder.decode(body);
    } catch {
      throw new WebhookPayloadError('The body is not valid UTF-8.');
    }
  }
  try {
    return parseJsonWithoutPrototypeKeys(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw new WebhookPayloadError(error.message);
    throw new WebhookPayloadError('The body is not valid JSON.');
  }
}
