import { WebhookPayloadError } from '../errors.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

// `__proto__` keys are dropped so that spreading or merging a payload later cannot change
// an object's prototype.
function withoutProtoKeys(key: string, value: unknown): unknown {
  return key === '__proto__' ? undefined : value;
}

/** Decodes strict UTF-8 and parses JSON; both failures are a `WebhookPayloadError`. */
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
    // A reviver slows every parse; only a body that spells the key needs one.
    return text.includes('__proto__') ? JSON.parse(text, withoutProtoKeys) : JSON.parse(text);
  } catch {
    throw new WebhookPayloadError('The body is not valid JSON.');
  }
}
