import { matchSignature } from '@faceverify/core';

/** How a captured body may differ from the bytes the service signed. */
export type BodyChange =
  | 'trailing-newline-added'
  | 'trailing-newline-removed'
  | 'line-endings-changed'
  | 'byte-order-mark'
  | 'encoding-changed'
  | 'reserialized';

/** Why a captured `X-Webhook-Signature` does or does not match its body. */
export type SignatureDiagnosis =
  | { kind: 'valid'; secretLabel: string; explanation: string }
  | { kind: 'malformed-signature'; explanation: string }
  | { kind: 'body-changed'; change: BodyChange; secretLabel: string; explanation: string }
  | {
      kind: 'no-match';
      /**
       * The body is exactly as JSON.stringify writes it: most likely parsed and serialized
       * again before it was captured, rather than signed with another secret.
       */
      likelyReserialized: boolean;
      explanation: string;
    };

const EXPLANATIONS: Record<BodyChange, string> = {
  'trailing-newline-added':
    'The body has a trailing newline the service did not sign: something added it after the request arrived (a capture tool, a logging proxy, an editor that saved the file).',
  'trailing-newline-removed':
    'The service signed the body with a trailing newline, and it was removed before verifying (a trim() on the raw body?).',
  'line-endings-changed':
    'Line endings were converted (CRLF and LF): verify the bytes as received, never text that went through a conversion.',
  'byte-order-mark': 'A UTF-8 byte order mark was added or removed before verifying.',
  'encoding-changed':
    'The body was decoded and encoded again with another character encoding (Latin-1 and UTF-8). Verify the raw bytes, before any decoding.',
  reserialized:
    'The body was parsed as JSON and serialized again (key order or whitespace changed), e.g. by express.json() followed by JSON.stringify(req.body). Verify the raw bytes: mount the webhook middleware before any body parser.',
};

const SERVICE_FIELD_ORDER = [
  'event',
  'status',
  'external_user_id',
  'confidence',
  'livenessPassed',
  'duplicate',
  'risk',
  'reason',
  'frontImageUrl',
];

const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

function latin1Bytes(text: string): Uint8Array | undefined {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return undefined;
    bytes[i] = code;
  }
  return bytes;
}

// Each byte as one character (ISO-8859-1). Not TextDecoder('latin1'): the Encoding Standard
// maps that label to windows-1252, which reads 0x80-0x9f as other characters. In chunks:
// String.fromCharCode(...bytes) passes one argument per byte, and a body of about 125 KB
// overflows the stack.
const LATIN1_CHUNK = 8192;
function latin1Text(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += LATIN1_CHUNK) {
    parts.push(String.fromCharCode(...bytes.subarray(start, start + LATIN1_CHUNK)));
  }
  return parts.join('');
}

function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function orderedKeys(value: Record<string, unknown>, order: readonly string[]) {
  const keys = Object.keys(value).sort((a, b) => {
    const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
    return rank(a) - rank(b);
  });
  return Object.fromEntries(keys.map((key) => [key, value[key]]));
}

const asciiEscaped = (json: string) =>
  json.replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

// A loop, not /(\r?\n)+$/: that regex tries every newline as a start, quadratic on a body
// of many newlines followed by anything else.
function withoutTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '\n') end -= text[end - 2] === '\r' ? 2 : 1;
  return text.slice(0, end);
}

/** Compact JSON with a space after each `:` and `,` outside strings (Python's json.dumps). */
function spacedSeparators(compact: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const char = compact[i]!;
    out += char;
    if (inString) {
      if (char === '\\') out += compact[++i] ?? '';
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === ':' || char === ',') out += ' ';
  }
  return out;
}

const JSON_INDENTS = [undefined, 2, 4, '\t'] as const;

/** Whether `text` is exactly what JSON.stringify writes for its value, compact or indented. */
function isStringifyOutput(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  return JSON_INDENTS.some((indent) => JSON.stringify(parsed, null, indent) === text);
}

/** The bytes the service may have signed, for each way the captured body may have changed. */
function candidates(body: Uint8Array): Array<[BodyChange, Uint8Array]> {
  const out: Array<[BodyChange, Uint8Array]> = [];
  const text = utf8Text(body);
  const latin1 = latin1Text(body);
  const source = text ?? latin1;
  const trimmed = withoutTrailingNewlines(source);
  if (trimmed !== source) out.push(['trailing-newline-added', encoder.encode(trimmed)]);
  out.push(['trailing-newline-removed', encoder.encode(`${source}\n`)]);
  if (source.includes('\r\n')) {
    out.push(['line-endings-changed', encoder.encode(source.replaceAll('\r\n', '\n'))]);
  } else if (source.includes('\n')) {
    out.push(['line-endings-changed', encoder.encode(source.replaceAll('\n', '\r\n'))]);
  }
  if (source.startsWith('\ufeff')) out.push(['byte-order-mark', encoder.encode(source.slice(1))]);
  else out.push(['byte-order-mark', encoder.encode(`\ufeff${source}`)]);
  if (text !== undefined) {
    const narrowed = latin1Bytes(text);
    if (narrowed) out.push(['encoding-changed', narrowed]);
  }
  out.push(['encoding-changed', encoder.encode(latin1)]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch {
    return out;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    const forms = [record, orderedKeys(record, SERVICE_FIELD_ORDER), orderedKeys(record, [])];
    for (const form of forms) {
      const layouts = JSON_INDENTS.map((indent) => JSON.stringify(form, null, indent));
      layouts.push(spacedSeparators(JSON.stringify(form)));
      for (const json of layouts) {
        out.push(
          ['reserialized', encoder.encode(json)],
          ['reserialized', encoder.encode(asciiEscaped(json))],
        );
      }
    }
  }
  return out;
}

/**
 * Says why a captured webhook's signature does not match its body: a malformed header, a
 * body changed after it arrived (which change), or, when no known change explains it, a
 * secret that is not the one the service signs with. Tries every secret given.
 *
 * @example
 * const diagnosis = await diagnoseSignature(capturedBytes, capturedHeader, [secret]);
 * console.log(diagnosis.explanation);
 */
export async function diagnoseSignature(
  body: Uint8Array,
  signature: string,
  secrets: readonly string[],
): Promise<SignatureDiagnosis> {
  const header = signature.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(header)) {
    const hint = /^sha256=/i.test(header)
      ? ' It has a "sha256=" prefix: the service sends the 64 hex digits alone, so this header came from elsewhere or was rewritten.'
      : '';
    return {
      kind: 'malformed-signature',
      explanation: `The signature is not 64 hexadecimal digits (it has ${header.length} characters).${hint}`,
    };
  }
  const exact = await matchSignature(body, header, secrets);
  if (exact) {
    return {
      kind: 'valid',
      secretLabel: exact.label,
      explanation: `The signature matches the body with ${exact.label} (the ${exact.index === 0 ? 'first' : 'a later'} secret listed).`,
    };
  }
  for (const [change, bytes] of candidates(body)) {
    const match = await matchSignature(bytes, header, secrets);
    if (match) {
      return {
        kind: 'body-changed',
        change,
        secretLabel: match.label,
        explanation: EXPLANATIONS[change],
      };
    }
  }
  const secretFix =
    "copy the webhook signing secret from the service's Settings into FACEVERIFY_WEBHOOK_SECRET (during a rotation, both: new,old)";
  // The service's own layout is not known, so no list of layouts above can be complete: a
  // body exactly as JSON.stringify writes it was most likely written by JSON.stringify.
  if (isStringifyOutput(utf8Text(body) ?? latin1Text(body))) {
    return {
      kind: 'no-match',
      likelyReserialized: true,
      explanation: `The body is exactly what JSON.stringify writes, so it was most likely parsed and serialized again before it was captured (express.json() then JSON.stringify(req.body), a logging middleware), in a layout this check does not know: a change of whitespace or key order changes the signature. Capture the raw bytes instead: mount the webhook middleware before any body parser and save the request body as received (or \`faceverify-emulator\`'s Inspector shows each webhook as sent). If the raw bytes do not match either, ${secretFix}.`,
    };
  }
  return {
    kind: 'no-match',
    likelyReserialized: false,
    explanation: `No known change of the body explains the signature, so the secret is most likely not the service's: ${secretFix}. If it is, the body was changed in a way this check does not know.`,
  };
}
