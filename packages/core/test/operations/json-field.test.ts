import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonField, UNREAD_FIELD } from '../../src/operations/json-field.js';
import { OUTCOME_FIELDS } from '../../src/wire/payload/outcome-fields.js';

// The fields a refused body is read by (RefusedBodies): the outcome fields, its user, its event.
const NAMES = ['event', 'external_user_id', ...OUTCOME_FIELDS];

const literal = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

/** JSON text of `object` as a sender may write it: compact, indented, or spaced by hand. */
const written = (object: Record<string, unknown>, style: number) =>
  style === 0
    ? JSON.stringify(object)
    : style === 1
      ? JSON.stringify(object, null, 2)
      : JSON.stringify(object, null, '\t').replaceAll('":', '" :\r\n');

describe('jsonField reads a field of a flat JSON object as JSON.parse gives it', () => {
  it('any string, number, boolean or null, compact or spaced, other fields around it, some absent', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...NAMES, 'notes', 'frontImageUrl'), literal),
        fc.integer({ min: 0, max: 2 }),
        (object, style) => {
          const text = written(object, style);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          for (const name of NAMES) expect(jsonField(text, name)).toEqual(parsed[name]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a key’s words inside another value, quoted or escaped, are not the key', () => {
    const text = JSON.stringify({
      notes: 'say "status": "verified" and \\"status\\":',
      label: 'status',
      other: '"status"',
      status: 'failed',
    });
    expect(jsonField(text, 'status')).toBe('failed');
  });

  it('escapes are decoded: a user id with quotes, backslashes and characters outside ASCII', () => {
    for (const user of ['a"b\\c\u00e9\u{1f600}\n', 'ends in a backslash\\', '\\"']) {
      const text = JSON.stringify({ external_user_id: user, status: 'failed' });
      expect(jsonField(text, 'external_user_id')).toBe(user);
      expect(jsonField(text, 'status')).toBe('failed');
    }
    expect(jsonField('{"external_user_id":"\\u0061\\u00e9"}', 'external_user_id')).toBe('aé');
  });

  it('an object, an array or words that are no JSON are unread; a field not written is undefined', () => {
    expect(jsonField('{"reason":{"code":1}}', 'reason')).toBe(UNREAD_FIELD);
    expect(jsonField('{"reason":[1,2]}', 'reason')).toBe(UNREAD_FIELD);
    expect(jsonField('{"reason":maybe}', 'reason')).toBe(UNREAD_FIELD);
    expect(jsonField('{"reason":"never closed', 'reason')).toBe(UNREAD_FIELD);
    expect(jsonField('{"status":"verified"}', 'reason')).toBeUndefined();
  });
});
