import type { StoredResult, TrackedSession } from '@faceverify/core/store';
import { describe, expect, it } from 'vitest';
import { MalformedRowError } from '../src/malformed-row-error.js';
import {
  SESSION_COLUMNS,
  type SessionRow,
  sessionFromRow,
  sessionRowValues,
} from '../src/session-row.js';

const record: TrackedSession = {
  key: 'k1',
  token: 'sealed',
  externalUserId: 'u1',
  createdAt: 1_700_000_000_000,
  expiresAt: 1_700_000_600_000,
  state: 'delivering',
  dueAt: 1_700_000_000_500,
  attempts: 2,
  // The mapping keeps a result as it was given; its payload's fields are not its concern.
  result: {
    payload: { status: 'approved' } as unknown as StoredResult['payload'],
    source: 'webhook',
    receivedAt: 1_700_000_000_400,
  },
  lease: { owner: 'w1', until: 1_700_000_030_000 },
};

/** The row an insert of `record` writes, as a driver returns it. */
function rowOf(values: unknown[]): Record<string, unknown> {
  return Object.fromEntries(SESSION_COLUMNS.map((column, index) => [column, values[index]]));
}

describe('one row <-> TrackedSession mapping for every SQL store', () => {
  it('reads back what it writes, the due time moved to the live lease end', () => {
    expect(sessionFromRow(rowOf(sessionRowValues(record)))).toEqual({
      ...record,
      dueAt: record.lease?.until,
    });
  });

  it('reads int8 columns as node-postgres (strings) and PGlite (bigints) return them', () => {
    const values = sessionRowValues(record);
    const asStrings = values.map((value) => (typeof value === 'number' ? String(value) : value));
    const asBigints = values.map((value) => (typeof value === 'number' ? BigInt(value) : value));
    const expected = sessionFromRow(rowOf(values));
    expect(sessionFromRow(rowOf(asStrings))).toEqual(expected);
    expect(sessionFromRow(rowOf(asBigints))).toEqual(expected);
  });

  it('leaves out what a row does not hold: token, result and lease', () => {
    const bare = { ...record, state: 'pending' as const };
    delete bare.token;
    delete bare.result;
    delete bare.lease;
    expect(sessionFromRow(rowOf(sessionRowValues(bare)))).toStrictEqual(bare);
  });

  const malformed: [string, SessionRow, string][] = [
    ['an unknown state', { state: 'paused' }, 'unknown state "paused"'],
    ['a result that is not JSON', { result: '{oops' }, 'a stored result is not valid JSON'],
    ['a result without a payload', { result: '{"source":"webhook"}' }, 'not valid JSON'],
    ['a time that is not a whole number', { due_at: 1.5 }, 'due_at is not a whole number'],
    ['an empty time', { created_at: '' }, 'created_at is not a whole number'],
    ['a lease without its end', { lease_until: null }, 'lease_until is not a whole number'],
    ['a key that is not text', { key: 7 }, 'key is not text'],
  ];
  it.each(malformed)('refuses a row it cannot have written: %s', (_name, change, message) => {
    const row = { ...rowOf(sessionRowValues(record)), ...change };
    expect(() => sessionFromRow(row)).toThrow(MalformedRowError);
    expect(() => sessionFromRow(row)).toThrow(message);
  });

  it('never repeats a malformed result in its message', () => {
    const row = { ...rowOf(sessionRowValues(record)), result: '{"secret": "sk_live_1"' };
    expect(() => sessionFromRow(row)).toThrow(/^a stored result is not valid JSON$/);
  });
});
