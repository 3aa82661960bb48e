import fc from 'fast-check';

/** The fields every valid `verification.completed` payload has. */
export const REQUIRED_FIELDS = [
  'event',
  'status',
  'external_user_id',
  'confidence',
  'livenessPassed',
  'duplicate',
  'risk',
  'reason',
  'frontImageUrl',
] as const;

export type Payload = Record<string, unknown>;

// Built once: building `stringMatching` and the string arbitraries costs milliseconds, more
// than drawing a value from them, and every case draws a payload.
const PAYLOAD_FIELDS = fc.record({
  status: fc.constantFrom('verified', 'failed'),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  livenessPassed: fc.boolean(),
  duplicate: fc.boolean(),
  risk: fc.oneof(fc.constantFrom('low', 'medium', 'high'), fc.string({ maxLength: 12 })),
  reason: fc.option(fc.string({ unit: 'grapheme', maxLength: 20 }), { nil: null }),
  imagePath: fc.stringMatching(/^[a-z0-9]{1,12}$/),
  extras: fc.dictionary(
    fc
      .string({ minLength: 1, maxLength: 10 })
      .filter(
        (key) => !(REQUIRED_FIELDS as readonly string[]).includes(key) && key !== '__proto__',
      ),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 4 },
  ),
});

/** A valid payload for `uid`, with random field values and random extra fields. */
export function validPayload(uid: string): fc.Arbitrary<Payload> {
  return PAYLOAD_FIELDS.map(({ imagePath, extras, ...fields }) => ({
    ...extras,
    event: 'verification.completed',
    external_user_id: uid,
    ...fields,
    frontImageUrl: `https://files.example.test/front/${imagePath}.jpg?sig=ab12&exp=1763776000`,
  }));
}

/** How a payload is written out: every form is the same JSON to a parser. */
export type JsonStyle = 'compact' | 'pretty' | 'bom' | 'trailing-space' | 'escaped';

export const jsonStyle: fc.Arbitrary<JsonStyle> = fc.constantFrom(
  'compact',
  'pretty',
  'bom',
  'trailing-space',
  'escaped',
);

export function serialize(payload: Payload, style: JsonStyle): Uint8Array {
  switch (style) {
    case 'pretty':
      return Buffer.from(JSON.stringify(payload, null, 2));
    case 'bom':
      return Buffer.from(`\uFEFF${JSON.stringify(payload)}`);
    case 'trailing-space':
      return Buffer.from(`${JSON.stringify(payload)}\n \t\r\n`);
    case 'escaped':
      // Every non-ASCII character as a \u escape: same value, different bytes.
      return Buffer.from(
        JSON.stringify(payload).replace(
          /[\u007f-\uffff]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        ),
      );
    default:
      return Buffer.from(JSON.stringify(payload));
  }
}

/** A valid payload with a `__proto__` member, written as JSON text (an object literal would set the prototype). */
export function withProtoKey(payload: Payload): Uint8Array {
  return Buffer.from(`{"__proto__":{"polluted":true},${JSON.stringify(payload).slice(1)}`);
}

/** `depth` nested arrays: `[[[...]]]`. */
export function deepArrays(depth: number): Uint8Array {
  return Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

/** `depth` nested objects: `{"a":{"a":...}}`. */
export function deepObjects(depth: number): Uint8Array {
  return Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

/** A valid payload carrying one extra member nested `depth` arrays deep. */
export function withDeepMember(payload: Payload, depth: number): Uint8Array {
  return Buffer.from(
    `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},${JSON.stringify(payload).slice(1)}`,
  );
}

/** A valid payload padded (in an extra string field) to exactly `size` bytes. */
export function paddedTo(payload: Payload, size: number): Uint8Array {
  const base = JSON.stringify({ ...payload, padding: '' });
  const fill = size - Buffer.byteLength(base);
  if (fill < 0) throw new Error(`payload is already larger than ${size} bytes`);
  return Buffer.from(JSON.stringify({ ...payload, padding: 'p'.repeat(fill) }));
}

/** Field values that break one required field (each one fails the documented check). */
export const BREAKING_VALUES: Record<(typeof REQUIRED_FIELDS)[number], readonly unknown[]> = {
  event: [undefined, 1, null, { name: 'verification.completed' }],
  status: [undefined, 'pending', 'VERIFIED', 1, null, true],
  external_user_id: [undefined, '', 1, null, ['user']],
  confidence: [undefined, 'high', null, true, [0.5]],
  livenessPassed: [undefined, 'true', 1, null],
  duplicate: [undefined, 'false', 0, null],
  risk: [undefined, 1, null, false, { level: 'low' }],
  reason: [undefined, 1, true, ['x']],
  frontImageUrl: [
    undefined,
    'ftp://files.example.test/a.jpg',
    'not a url',
    'javascript:alert(1)',
    1,
  ],
};
